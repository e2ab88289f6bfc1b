"""A person in the loop: the local review page and what a decision there sends.

Owns the page (``review_app``, ``review_cards``), the decisions a person makes (``review_actions``;
the ``Decision`` type is ``flows/core/decisions.py``, each platform's senders its own) and pausing a
Prefect flow run while a batch waits (``review_pause``). The queue's data is the campaign's
(``flows/campaigns/review_data.py``); ``make demo-review`` is ``flows/driver/review_demo.py``.

May import: ``flows.taskserver`` (its guard and thread), the task kinds, ``flows.platforms``,
``flows.core``, ``qc`` and ``postprocess``; never the driver or the CLI (``make lint``).
"""
