"""The answers package as it was before the CPU pass of 2026-11-27 (branch answers59): the independent
computation that tests/test_answers_v1.py compares the rewritten modules with, float for float."""
