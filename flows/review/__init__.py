"""A person in the loop: the local review page (``review_app``, ``review_cards``), the decisions a person makes
(``review_actions``) and pausing a Prefect flow run while a batch waits (``review_pause``). What it may import:
docs/architecture.md (``make lint`` holds it)."""
