"""Pure quality control over pandas DataFrames: submit rules, worker heuristics, decisions.

Nothing in this package touches the network, the disk, SQLite or Prefect.
"""
