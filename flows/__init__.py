"""hitflow's side-effecting half: where the data's path runs (docs/architecture.md).

The tree shows the design's three seams:

- ``flows/platforms/``: who works (MTurk through boto3, Prolific, invited links; the target choice).
- ``flows/campaigns/``, ``flows/studies/``, ``flows/custom/``: what the task is (caption campaigns and
  their batch steps; human-evaluation studies; the user's own page). ``flows/review/``: a person in
  the loop.
- ``flows/taskserver/``: where the page is served to participants.

At the top stay the core every package may import: ``store`` (the SQLite ledger), ``ledger_calls``
(every platform write: intent, call, settle), ``run_context`` (the ``Run`` every step and platform
is handed), ``config``, the one Jinja environment (``templates``), ``errors``, the CSV and text
readers, and the CLI (``cli*``), which alone may import everything. ``flows/sim/`` is the built-in
marketplace simulator; production code reaches it only through ``flows.platforms.targets``.
"""
