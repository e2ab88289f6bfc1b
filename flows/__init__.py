"""hitflow's side-effecting half: where the data's path runs (docs/architecture.md).

The top of ``flows/`` holds only its layers, bottom to top, each importing only those below it:

- ``flows/core/``: the ledger (``store``, ``ledger_calls``), a run's context, the config, the one Jinja
  environment, errors, the file readers and the answer formats.
- ``flows/platforms/``: who works: ``mturk/``, ``prolific/`` and ``links/``, each owning its adapter,
  batch steps, operations and fees, behind the ``Platform`` protocol; the target choice.
- ``flows/campaigns/``, ``flows/studies/``, ``flows/custom/``: what the task is (plan, page, QC step,
  outputs); they reach a platform only through ``flows.platforms.registry.platform_for``.
- ``flows/taskserver/``: the pages participants fill; above it ``flows/review/``: a person in the loop.
- ``flows/driver/``: a run, step by step, with its Prefect flow and the operations on a stored campaign.
- ``flows/cli/``: ``hitflow``, which alone may import everything.

``flows/sim/`` is the built-in marketplace simulator, a separate system (flows/sim/README.md);
production code reaches it only through ``flows.platforms.targets``. The layers are import-linter
contracts in pyproject.toml, run by ``make lint`` (docs/architecture.md draws them).
"""

import qc  # noqa: F401  (str columns in Python storage: qc/pandas_strings.py)
