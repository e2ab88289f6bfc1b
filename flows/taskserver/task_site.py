"""The task server's site: its campaigns, its secret, and its refusals."""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from flows.core.config.config import CampaignConfig
from flows.core.ledger.store import Store
from flows.core.site_secrets import INVITE_MAX_AGE_S, task_secret
from flows.taskserver.task_connections import address_key
from flows.taskserver.task_guard import SessionLimits
from flows.taskserver.unit_holds import HoldLimits

PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc="
class Refused(Exception):
    """A request the server will not serve; the message is shown to the person."""

    def __init__(self, status: int, message: str, operator: str = ""):
        super().__init__(message)
        self.status = status
        self.operator = operator  # what the person running the server should do about it


@dataclass
class TaskSite:
    store_path: str | Path  # the SQLite file or a postgresql:// URL
    campaigns: dict[str, CampaignConfig]
    completion_base: str = PROLIFIC_COMPLETE
    secret: bytes = b""
    now: Callable[[], float] = time.time
    limits: SessionLimits = field(default_factory=SessionLimits)
    holds: HoldLimits = field(default_factory=HoldLimits)  # unit holds per address and per batch (unit_holds.py)
    # The simulated crowd all comes from loopback; a deployment behind a local proxy sets this.
    limit_loopback: bool = False
    page_fields: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    apart: dict[str, tuple[bool, str]] = field(default_factory=dict)  # task_server.kept_apart, once a campaign
    invite_max_age_s: float = INVITE_MAX_AGE_S
    # A rehearsal server's seed for its invitees' session ids (one seed, one dataset); None where people are.
    session_seed: int | None = None
    _local: threading.local = field(default_factory=threading.local)

    def __post_init__(self) -> None:
        self.secret = self.secret or task_secret(self.store_path)

    def store(self) -> Store:
        # SQLite connections stay in the thread that opened them.
        if not hasattr(self._local, "store"):
            self._local.store = Store(self.store_path)
        return self._local.store  # type: ignore[no-any-return]

    def invite_session_id(self, campaign: str, participant: str, sessions_before: int) -> str:
        """A new invite session's id: 128 random bits, or seeded on a rehearsal's server; not a credential."""
        if self.session_seed is None:
            return "inv-" + secrets.token_hex(16)
        key = f"{self.session_seed}|{campaign}|{participant}|{sessions_before}"
        return "inv-" + hashlib.sha256(key.encode()).hexdigest()[:32]

    def invite_window_s(self, cfg: CampaignConfig) -> float:
        """How long an invite stays valid: a month, or the batch's window when that is longer."""
        return float(max(self.invite_max_age_s, cfg.batch_open_s or cfg.hit_lifetime_s))

    def campaign(self, name: str) -> CampaignConfig:
        if name not in self.campaigns:
            raise Refused(404, "There is no such task here. Check the link you were given.")
        return self.campaigns[name]

    def counted_address(self, address: str) -> str:
        """The key an address is limited by; "" for loopback unless ``limit_loopback`` (the simulated crowd)."""
        if address in ("127.0.0.1", "::1") and not self.limit_loopback:
            return ""
        return address_key(address) if address else ""

    def admit(self, participant: str, address: str) -> None:
        """Count a new session against the person's and the address's limits."""
        address = self.counted_address(address)
        if not self.limits.allow(participant, address or participant):
            raise Refused(429, "Too many new task sessions from you in a short time. Finish or return the "
                               "ones you have, then try again in a few minutes.")
