"""The answers' files for ``hitflow aggregate`` and every campaign's answers step; it imports no task kind
(docs/architecture.md; tests/test_layers.py), the models are postprocess/answers/ (pure)."""
