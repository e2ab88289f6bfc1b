"""Pure quality control over pandas DataFrames: submit rules, worker heuristics, decisions.

Nothing in this package touches the network, the disk, SQLite or Prefect.
"""

from qc import pandas_strings  # noqa: F401  (str columns in Python storage: qc/pandas_strings.py)
