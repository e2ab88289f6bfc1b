"""The ledger of a hitflow project: ``Store(location)`` opens the SQLite file (the embedded default,
``runs/hitflow.db``) or, for a ``postgresql://`` URL, the PostgreSQL database. The interface and the
ledger's rules are in flows/core/ledger/store_base.py; importing both backends here registers them with it,
so every caller imports this module and the interface never imports a backend (no import cycle).
"""

from flows.core.ledger import store_pg, store_sqlite  # noqa: F401  (registers the two backends)
from flows.core.ledger.store_base import DEFAULT_DB, SETTLED, Store, existing_store, migrations

__all__ = ["DEFAULT_DB", "SETTLED", "Store", "existing_store", "migrations"]
