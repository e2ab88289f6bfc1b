"""Pure post-processing over pandas DataFrames, and the answers' models."""

import qc  # noqa: F401  (str columns in Python storage: qc/pandas_strings.py)
