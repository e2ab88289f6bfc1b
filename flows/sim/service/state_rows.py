"""A simulator state file's rows (flows/sim/service/market_store.py), and decided answers read back from them."""

from __future__ import annotations

import json
import sqlite3
import threading
import zlib
from collections.abc import Iterable, Mapping
from contextlib import closing
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

COMPRESS_OVER = 2048  # HIT pages and most answers: files ~3x smaller, reload ~30% slower
DECIDED = frozenset({"Approved", "Rejected"})
ANSWER_ROW = "SELECT value FROM records WHERE kind = 'assignment' AND key = ?"


def dumps(value: Any) -> str:
    return json.dumps(value, default=lambda v: str(v) if isinstance(v, Decimal) else repr(v))


def pack_row(value: Any) -> str | bytes:
    """JSON text; big rows (a HIT's page is ~20 KB of HTML) as zlib-compressed bytes, about 5x smaller."""
    text = dumps(value)
    return zlib.compress(text.encode(), 1) if len(text) > COMPRESS_OVER else text


def unpack_row(stored: str | bytes) -> Any:
    return json.loads(zlib.decompress(stored) if isinstance(stored, bytes) else stored)


class Decidable(Protocol):
    status: str

    @property
    def answered(self) -> bool: ...

    def keep_answer_in(self, stored: StoredAnswer) -> None: ...


class AnswerReader:
    """Reads an assignment's answer from the state file (the connection is shared: under its lock)."""

    def __init__(self, path: Path, conn: sqlite3.Connection, lock: threading.Lock):
        self.path, self.conn, self.lock, self.closed = path, conn, lock, False

    def read(self, assignment_id: str) -> str:
        if self.closed:  # the simulator has stopped; its file is still there (its truth read after a run)
            with closing(sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)) as conn:
                row = conn.execute(ANSWER_ROW, [assignment_id]).fetchone()
        else:
            with self.lock:
                row = self.conn.execute(ANSWER_ROW, [assignment_id]).fetchone()
        return str(unpack_row(row[0])["answer"])

    def release(self, assignments: Mapping[str, Decidable], written: Iterable[str]) -> None:
        """Call once the rows ``written`` are committed: decided answers are read from the file from now on."""
        for key in written:
            a = assignments.get(key)
            if a is not None and a.status in DECIDED and a.answered:
                a.keep_answer_in(StoredAnswer(self, key))


class StoredAnswer:
    __slots__ = ("key", "reader")

    def __init__(self, reader: AnswerReader, key: str):
        self.reader, self.key = reader, key

    def __str__(self) -> str:
        return self.reader.read(self.key)
