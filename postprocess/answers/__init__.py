"""Answers, in one room: one answer per item from several workers' labels, how far to trust it, how
good each worker is, and when an item has judgements enough. Pure models over pandas DataFrames in
crowd-kit's style (each module's docstring gives its columns); the files they are read from and written
to are flows/answers/, beside the CLI. The modules' layers, from ``extension_rounds`` and ``adaptive`` at
the top to ``judgements`` (the column contract every model reads) at the base, are in docs/architecture.md;
``make lint`` holds the order.
"""
