"""The ledger: where a campaign's every platform call, answer, flag and decision is recorded.

``store`` opens one (``store_sqlite``: a SQLite file through sqlite-utils, ``ledger_db`` its
connection, ``campaign_lock`` one run a campaign; ``store_pg`` and ``pg_tables``: PostgreSQL),
``store_base`` is what both backends share, ``store_migrations`` their schema's history, and
``ledger_calls`` the intent-call-settle pattern every platform write goes through.

May import: the core's base modules (``flows.core.errors``, ``flows.core.db_url``). Not the config,
pages, outputs or a run (``make lint``: the layers of flows.core).

Importing the package imports sqlite-utils without pandas first (``sqlite_utils_import``): every module
here that uses it then finds it loaded, and a command that reads the ledger loads no pandas for it.
"""

from flows.core.ledger.sqlite_utils_import import import_without_pandas

import_without_pandas()
