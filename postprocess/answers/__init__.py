"""Answers, in one room: one answer per item from several workers' labels, how far to trust it, how
good each worker is, and when an item has judgements enough. Pure models over pandas DataFrames in
crowd-kit's style (each module's docstring gives its columns); the modules' layers are in
docs/architecture.md (``make lint`` holds the order)."""
