"""hitflow's side-effecting half: its layers and their import rules are drawn in docs/architecture.md
(import-linter contracts in pyproject.toml); ``flows/sim/`` is reached only through ``flows.platforms.targets``."""

import qc  # noqa: F401  (str columns in Python storage: qc/pandas_strings.py)
