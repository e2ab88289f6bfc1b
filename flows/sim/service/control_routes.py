"""Who may use the simulator's ``/_sim/`` control routes, and what their bodies hold."""

from __future__ import annotations

import base64
import ipaddress
import json
import secrets
from email.message import Message
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from flows.sim.mturk.worker_pages import BadRequest
from flows.sim.people.known_answers import add_known


def _direct_host(host: str) -> bool:
    """Whether a Host header names the server by IP address or as localhost, with any port."""
    name = host.strip().lower()
    name = name[1:name.index("]")] if name.startswith("[") and "]" in name else name.rsplit(":", 1)[0]
    if name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def check_control(path: str, headers: Message, body: bool) -> None:
    """The ``/_sim/`` routes but health answer only a caller naming the server by IP or localhost, with JSON."""
    if not path.startswith("/_sim/") or path == "/_sim/health":
        return
    if not _direct_host(headers.get("Host", "")):
        raise BadRequest(403, "the /_sim/ routes answer only a Host that is an IP address or localhost")
    ctype = headers.get("Content-Type", "").split(";")[0].strip().lower()
    if body and ctype != "application/json":
        raise BadRequest(415, "the /_sim/ routes take a JSON body (Content-Type: application/json)")


def control_body(raw: bytes) -> dict[str, Any]:
    """A control route's body: a JSON object of numbers."""
    try:
        payload = json.loads(raw or b"{}")
        if not isinstance(payload, dict) or not all(isinstance(v, int | float) for v in payload.values()):
            raise ValueError("expected a JSON object of numbers")
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise BadRequest(400, f"body is not a JSON object of numbers: {exc}") from exc
    return payload


def take_known(market: Any, body: bytes) -> dict[str, int]:
    """``POST /_sim/truth``: known answers into the market's bank, for every campaign or one ``scope``."""
    try:
        sent = json.loads(body or b"[]")
        scope = sent.get("scope") if isinstance(sent, dict) else None
        if isinstance(sent, dict) and not isinstance(scope, str):
            raise ValueError('expected a list, or {"scope": campaign name, "answers": list}')
        rows: Any = sent.get("answers") if isinstance(sent, dict) else sent
        with market.lock:
            return {"taken": add_known(market.bank, rows, scope)}
    except ValueError as exc:  # not JSON, not UTF-8, not rows
        raise BadRequest(400, f"body is not a list of known answers: {exc}") from exc


PROOF = b"hitflow-marketplace-proof:"  # signed before the nonce, so the key signs nothing else


def identity(store: Any) -> tuple[str, Ed25519PrivateKey]:
    """(id, key) kept in ``store`` (a MarketStore; a file from before gets them now), or new ones without."""
    kept = store.kept if store is not None else (lambda _name, make: make())
    marketplace_id = kept("marketplace_id", lambda: f"sim-{secrets.token_hex(8)}")
    key = kept("marketplace_key", lambda: Ed25519PrivateKey.generate().private_bytes_raw().hex())
    return marketplace_id, Ed25519PrivateKey.from_private_bytes(bytes.fromhex(key))


def public(key: Ed25519PrivateKey) -> str:
    return base64.b64encode(key.public_key().public_bytes_raw()).decode()


def prove(key: Ed25519PrivateKey, body: bytes) -> dict[str, str]:
    """``POST /_sim/prove`` ``{"nonce": "<32 to 128 hex digits>"}``: the signature of PROOF + the nonce's bytes."""
    try:
        nonce = json.loads(body or b"{}").get("nonce", "")
        raw = bytes.fromhex(nonce) if isinstance(nonce, str) and 32 <= len(nonce) <= 128 else b""
    except (ValueError, AttributeError) as exc:
        raise BadRequest(400, "the body must be {\"nonce\": \"<hex>\"}") from exc
    if not raw:
        raise BadRequest(400, "the body must be {\"nonce\": \"<32 to 128 hex digits>\"}")
    return {"signature": base64.b64encode(key.sign(PROOF + raw)).decode()}
