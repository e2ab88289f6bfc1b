"""hitflow's side-effecting half; its layers and import rules: docs/architecture.md."""

import qc  # noqa: F401  (str columns in Python storage: qc/pandas_strings.py)
