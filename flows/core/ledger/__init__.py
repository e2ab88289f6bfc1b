"""The ledger: every platform call, answer, flag and decision of a campaign (SQLite or PostgreSQL).
Importing the package imports sqlite-utils without pandas first (``sqlite_utils_import``), so a command
that reads the ledger loads no pandas for it."""

from flows.core.ledger.sqlite_utils_import import import_without_pandas

import_without_pandas()
