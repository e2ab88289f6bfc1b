"""The task server's site: its campaigns, its secret, what it signs, and its refusals."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from flows.config import CampaignConfig
from flows.store import Store
from flows.taskserver.task_guard import SessionLimits

PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc="


def task_secret(store_path: Path) -> bytes:
    """The HMAC key for session signatures and invite tokens: HITFLOW_TASK_SECRET, or a random
    key kept beside the store (mode 600) so a restarted server still accepts its own pages."""
    if os.environ.get("HITFLOW_TASK_SECRET"):
        return os.environ["HITFLOW_TASK_SECRET"].encode()
    path = Path(f"{store_path}.task-secret")
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(32))
    return path.read_text().strip().encode()


def sign(secret: bytes, *parts: str) -> str:
    return hmac.new(secret, "|".join(parts).encode(), hashlib.sha256).hexdigest()[:32]


def completion_code(secret: bytes, campaign: str, batch: int) -> str:
    """The code a finished participant brings back to Prolific: one per study (a study is one
    batch, created with its code), unguessable without the server's secret."""
    return "HF" + sign(secret, "completion", campaign, str(batch))[:10].upper()


def invite_link(secret: bytes, base_url: str, campaign: str, name: str) -> str:
    return f"{base_url.rstrip('/')}/task/{campaign}?invite={name}.{sign(secret, 'invite', campaign, name)[:16]}"


class Refused(Exception):
    """A request the server will not serve; the message is shown to the person."""

    def __init__(self, status: int, message: str, operator: str = ""):
        super().__init__(message)
        self.status = status
        self.operator = operator  # what the person running the server should do about it


@dataclass
class TaskSite:
    store_path: Path
    campaigns: dict[str, CampaignConfig]
    completion_base: str = PROLIFIC_COMPLETE
    secret: bytes = b""
    now: Callable[[], float] = time.time
    limits: SessionLimits = field(default_factory=SessionLimits)
    # The simulated crowd all comes from loopback; a deployment behind a proxy on loopback
    # sets this (docs/security.md).
    limit_loopback: bool = False
    page_fields: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    _local: threading.local = field(default_factory=threading.local)

    def __post_init__(self) -> None:
        self.secret = self.secret or task_secret(self.store_path)

    def store(self) -> Store:
        # SQLite connections stay in the thread that opened them.
        if not hasattr(self._local, "store"):
            self._local.store = Store(self.store_path)
        return self._local.store  # type: ignore[no-any-return]

    def campaign(self, name: str) -> CampaignConfig:
        if name not in self.campaigns:
            raise Refused(404, "There is no such task here. Check the link you were given.")
        return self.campaigns[name]

    def admit(self, participant: str, address: str) -> None:
        """Count a new session against the person's and the address's limits."""
        if address in ("127.0.0.1", "::1") and not self.limit_loopback:
            address = ""
        if not self.limits.allow(participant, address or participant):
            raise Refused(429, "Too many new task sessions from you in a short time. Finish or return the "
                               "ones you have, then try again in a few minutes.")
