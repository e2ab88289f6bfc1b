"""A person in the loop: the review queue, the local review page and what a decision there sends.

Owns the queue read from the ledger (``review_data``), the page (``review_app``, ``review_cards``), the
decisions a person makes (``review_actions``), pausing a Prefect flow run while a batch waits
(``review_pause``) and ``make demo-review``.

May import: the core modules at the top of ``flows/``, ``flows.platforms``, ``flows.campaigns`` (the
run a batch belongs to), ``flows.taskserver``, ``qc`` and ``postprocess``.
"""
