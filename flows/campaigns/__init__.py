"""What every task kind shares: the plan, the page, the QC step and the outputs.

Owns the item plan (``campaign_plan``), one way to render a unit's page for every kind
(``task_pages``; handed to platforms as ``Run.page``), the QC step with its decisions and blocks
sent through the platform (``batch_review``, ``batch_hold``, ``block_evidence``), the review queue's
data (``review_data``), the budget, the dry run (each platform's plan through ``platform_for``),
outputs, the HTML report and the end-of-run summary. Each kind's own modules live beside it:
``flows/captions/`` (the caption task), ``flows/custom/`` (a requester's own page) and ``flows/studies/``
(the evaluation studies). The batch steps that post and collect are the platforms' own
(``flows/platforms/<name>/``); the driver that runs them in order is ``flows/driver/``.

May import: ``flows.core``, ``flows.platforms`` (``platform_for`` and the protocol), the kinds
``flows.captions``, ``flows.studies`` and ``flows.custom``, ``qc`` and ``postprocess``. Never the task server,
the review page, the driver or the CLI (``make lint``).
"""
