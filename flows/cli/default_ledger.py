"""The ledger every command uses when none is named: ``$HITFLOW_DB``, else ``runs/hitflow.db``."""

from __future__ import annotations

import os

DEFAULT_DB = os.environ.get("HITFLOW_DB", "runs/hitflow.db")  # one ledger for `run`, `serve` and `status`
