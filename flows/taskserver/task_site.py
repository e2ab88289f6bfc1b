"""The task server's site: its campaigns, its secret, what it signs, and its refusals.

Invite tokens and page signatures are itsdangerous signatures (HMAC-SHA256, checked in constant
time), each salted by purpose and campaign, so a token made for one campaign, or a page
signature, is never accepted as another. An invite carries its name and the time it was made,
and expires (``INVITE_MAX_AGE_S``, or a batch's whole window when that is longer). Completion
codes and the secret's fingerprint stay plain HMAC derivations: a code is registered with a
live Prolific study, so it must come out the same from any version of hitflow.
"""

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
from typing import Any

from itsdangerous import BadSignature, Signer, TimestampSigner, URLSafeTimedSerializer

from flows.core.config import CampaignConfig
from flows.core.errors import ConfigError
from flows.core.store import Store
from flows.taskserver.task_guard import SessionLimits

PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc="
INVITE_MAX_AGE_S = 30 * 86400
MIN_SECRET_BYTES = 32  # a shorter secret can be guessed from a forged invite's refusal or the fingerprint


def task_secret(store_path: Path) -> bytes:
    """The HMAC key for session signatures and invite tokens: HITFLOW_TASK_SECRET, or a random
    key kept beside the store (mode 600) so a restarted server still accepts its own pages."""
    if os.environ.get("HITFLOW_TASK_SECRET"):
        secret = os.environ["HITFLOW_TASK_SECRET"].strip().encode()
        if len(secret) < MIN_SECRET_BYTES:
            raise ConfigError(f"HITFLOW_TASK_SECRET is {len(secret)} bytes; use at least {MIN_SECRET_BYTES} random "
                              "bytes, e.g. `python3 -c 'import secrets; print(secrets.token_hex(32))'`")
        return secret
    path = Path(f"{store_path}.task-secret")
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(32))
    return path.read_text().strip().encode()


def sign(secret: bytes, *parts: str) -> str:
    """A plain HMAC derivation (completion codes, the fingerprint): stable across versions."""
    return hmac.new(secret, "|".join(parts).encode(), hashlib.sha256).hexdigest()[:32]


def completion_code(secret: bytes, campaign: str, batch: int) -> str:
    """The code a finished participant brings back to Prolific: one per study (a study is one
    batch, created with its code), unguessable without the server's secret."""
    return "HF" + sign(secret, "completion", campaign, str(batch))[:10].upper()


class _ClockSigner(TimestampSigner):
    """A TimestampSigner on a given clock (the site's), so expiry can be tested without waiting."""

    def __init__(self, *args: Any, clock: Callable[[], float] = time.time, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.clock = clock

    def get_timestamp(self) -> int:
        return int(self.clock())


def _invites(secret: bytes, campaign: str, clock: Callable[[], float]) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt=f"hitflow-invite:{campaign}", signer=_ClockSigner,
                                  signer_kwargs={"clock": clock, "digest_method": hashlib.sha256})


def invite_link(secret: bytes, base_url: str, campaign: str, name: str, clock: Callable[[], float] = time.time) -> str:
    token = _invites(secret, campaign, clock).dumps(name)
    return f"{base_url.rstrip('/')}/task/{campaign}?invite={token}"


def invited_name(secret: bytes, campaign: str, token: str, max_age_s: float, clock: Callable[[], float]) -> str:
    """The name an invite token was made for; "" when it is tampered with, expired or another campaign's."""
    try:
        name = _invites(secret, campaign, clock).loads(token, max_age=int(max_age_s))
    except BadSignature:  # also an expired one, and a payload that is not ours
        return ""
    return name if isinstance(name, str) else ""


def _page_signer(secret: bytes, campaign: str) -> Signer:
    return Signer(secret, salt=f"hitflow-page:{campaign}", digest_method=hashlib.sha256)


def page_signature(secret: bytes, campaign: str, session_id: str, item_ids: str) -> str:
    """What a served page carries back on submit: binds the session to the items it was shown."""
    return _page_signer(secret, campaign).get_signature(f"{session_id}|{item_ids}").decode()


def page_signature_valid(secret: bytes, campaign: str, session_id: str, item_ids: str, given: str) -> bool:
    return _page_signer(secret, campaign).verify_signature(f"{session_id}|{item_ids}", given.encode())


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
    invite_max_age_s: float = INVITE_MAX_AGE_S
    _local: threading.local = field(default_factory=threading.local)

    def __post_init__(self) -> None:
        self.secret = self.secret or task_secret(self.store_path)

    def store(self) -> Store:
        # SQLite connections stay in the thread that opened them.
        if not hasattr(self._local, "store"):
            self._local.store = Store(self.store_path)
        return self._local.store  # type: ignore[no-any-return]

    def invite_window_s(self, cfg: CampaignConfig) -> float:
        """How long an invite stays valid: a month, or the batch's window when that is longer."""
        return float(max(self.invite_max_age_s, cfg.batch_open_s or cfg.hit_lifetime_s))

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
