"""The ledger of a hitflow project: ``Store(location)`` opens the SQLite file (the embedded default,
``runs/hitflow.db``) or, for a ``postgresql://`` URL, the PostgreSQL database. The interface and the
ledger's rules are in flows/core/ledger/store_base.py; importing the SQLite backend here registers it with
it, so every caller imports this module and the interface never imports a backend statically (no import
cycle). The PostgreSQL backend (psycopg, ~0.15 s of CPU) is imported by ``Store`` when a
``postgresql://`` location is first opened, so a command on an SQLite ledger never pays for it.
"""

from flows.core.ledger import store_sqlite  # noqa: F401  (registers the SQLite backend)
from flows.core.ledger.store_base import DEFAULT_DB, SETTLED, Store, existing_store, is_hitflow_ledger, migrations

__all__ = ["DEFAULT_DB", "SETTLED", "Store", "existing_store", "is_hitflow_ledger", "migrations"]
