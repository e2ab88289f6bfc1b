"""The SQLite ledger's one-runner-per-campaign lock, taken over from a dead holder."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import sqlite_utils

from flows.core.errors import CampaignBusyError

if TYPE_CHECKING:
    from flows.core.ledger.store_base import Store


@contextmanager
def hold_campaign_lock(db: sqlite_utils.Database, campaign: str) -> Iterator[None]:
    """Hold the campaign's lock for the block; a live holder elsewhere makes this fail."""
    me = f"{socket.gethostname()}:{os.getpid()}"
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT holder FROM locks WHERE campaign = ?", [campaign]).fetchone()
        if row and row[0] != me and holder_alive(row[0]):
            raise CampaignBusyError(f"campaign {campaign} is being run by {row[0]}; wait for it to finish, or "
                                    "stop it (a holder whose process is gone is taken over automatically)")
        conn.execute("INSERT OR REPLACE INTO locks (campaign, holder, acquired_at) VALUES (?, ?, ?)",
                     [campaign, me, time.time()])
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    try:
        yield
    finally:
        with db.atomic():
            conn.execute("DELETE FROM locks WHERE campaign = ? AND holder = ?", [campaign, me])


def live_holder(db: sqlite_utils.Database, campaign: str, others_only: bool = True) -> str | None:
    """The campaign's holder ``host:pid`` if a live process (not this one with ``others_only``); never waits."""
    row = db.execute("SELECT holder FROM locks WHERE campaign = ?", [campaign]).fetchone()
    me = f"{socket.gethostname()}:{os.getpid()}"
    if row and not (others_only and row[0] == me) and holder_alive(row[0]):
        return str(row[0])
    return None


def refuse_while_running(store: Store, campaign: str, what: str) -> None:
    """``what`` (e.g. cancel) is refused in one line while a live process runs the campaign."""
    holder = store.live_holder(campaign)
    if holder:
        raise CampaignBusyError(f"campaign {campaign} is being run right now by {holder}: stop that run first "
                                f"(Ctrl-C in its terminal, or kill its process), then {what} again")


def holder_alive(holder: str) -> bool:
    """Whether a lock holder ``host:pid`` still runs (other hosts are assumed alive)."""
    host, _, pid = holder.rpartition(":")
    if host != socket.gethostname():
        return True
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, ValueError):
        return False
    except PermissionError:
        return True
    return True
