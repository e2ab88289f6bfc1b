"""A person in the loop: the review page, a person's decisions and the Prefect pause while a batch waits; its
modules and what they may import: docs/architecture.md (``make lint`` holds it)."""
