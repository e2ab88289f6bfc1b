"""hitflow's side-effecting half: where the data's path runs (docs/architecture.md).

Its layers, bottom to top (core, platforms, campaigns/studies/custom, taskserver, review, driver, cli),
each import only those below it: import-linter contracts in pyproject.toml, drawn in docs/architecture.md.
``flows/sim/`` is the built-in marketplace simulator (flows/sim/README.md), reached only through
``flows.platforms.targets``.
"""

import qc  # noqa: F401  (str columns in Python storage: qc/pandas_strings.py)
