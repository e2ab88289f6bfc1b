"""``Store(location)``: the SQLite ledger, or PostgreSQL for a ``postgresql://`` URL."""

from flows.core.ledger import store_sqlite  # noqa: F401  (registers the SQLite backend)
from flows.core.ledger.store_base import DEFAULT_DB, SETTLED, Store, existing_store, is_hitflow_ledger, migrations

__all__ = ["DEFAULT_DB", "SETTLED", "Store", "existing_store", "is_hitflow_ledger", "migrations"]
