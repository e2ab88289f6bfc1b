"""The core every layer may import: ``ledger``, ``config``, ``pages``, ``outputs``, ``inputs``, ``run``
and the base modules (docs/architecture.md; the order inside is held by ``make lint``)."""
