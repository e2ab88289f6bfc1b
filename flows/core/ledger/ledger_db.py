"""The ledger's SQLite connection, every sqlite-utils transaction ``BEGIN IMMEDIATE``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import sqlite_utils


class LedgerDatabase(sqlite_utils.Database):
    @contextlib.contextmanager
    def atomic(self) -> Iterator[sqlite_utils.Database]:  # type: ignore[override]
        if self.conn.in_transaction:  # nested: sqlite-utils' savepoint
            with super().atomic() as db:
                yield db
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            self.rollback()  # a no-op when the error already ended the transaction
            raise
        try:
            self.conn.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise
