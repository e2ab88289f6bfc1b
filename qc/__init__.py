"""Pure quality control over pandas DataFrames: nothing here touches the network, the disk, SQLite or Prefect."""

from qc import pandas_strings  # noqa: F401  (str columns in Python storage: qc/pandas_strings.py)
