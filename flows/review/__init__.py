"""A person in the loop: the local review page and what a decision there sends.

Owns the page (``review_app``, ``review_cards``), the decisions a person makes (``review_actions``;
the ``Decision`` type is ``flows/core/decisions.py``, each platform's senders its own) and pausing a
Prefect flow run while a batch waits (``review_pause``). The queue's data is the campaign's
(``flows/campaigns/review_data.py``); ``make demo-review`` is ``flows/driver/review_demo.py``.
What it may import: docs/architecture.md (``make lint`` holds it).
"""
