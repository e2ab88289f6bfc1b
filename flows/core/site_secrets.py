"""The task site's secret and what it signs: invites, page signatures, completion codes."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from itsdangerous import BadSignature, Signer, TimestampSigner, URLSafeTimedSerializer

from flows.core.db_url import is_postgres_url
from flows.core.errors import ConfigError

INVITE_MAX_AGE_S = 30 * 86400
MIN_SECRET_BYTES = 32  # a shorter secret can be guessed from a forged invite's refusal or the fingerprint


def task_secret(store_path: str | Path) -> bytes:
    """The HMAC key for signatures and invites: HITFLOW_TASK_SECRET, or a random key kept beside the store."""
    if os.environ.get("HITFLOW_TASK_SECRET"):
        secret = os.environ["HITFLOW_TASK_SECRET"].strip().encode()
        if len(secret) < MIN_SECRET_BYTES:
            raise ConfigError(f"HITFLOW_TASK_SECRET is {len(secret)} bytes; use at least {MIN_SECRET_BYTES} random "
                              "bytes, e.g. `python3 -c 'import secrets; print(secrets.token_hex(32))'`")
        return secret
    if is_postgres_url(store_path):
        raise ConfigError("a PostgreSQL ledger has no folder to keep the task server's signing key in: set "
                          "HITFLOW_TASK_SECRET (the same value on every host that serves or posts pages)")
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
    """A study's completion code for Prolific, unguessable without the server's secret."""
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
