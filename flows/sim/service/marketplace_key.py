"""What a marketplace is known by: a random id, and a key pair kept in its state file. ``GET /_sim/health``
names both the id and the public key, and ``POST /_sim/prove`` signs a caller's fresh nonce: a ledger that
recorded the public key knows its campaign's marketplace again on any port, and a server that copies the id and
the public key (anyone can read them) cannot sign as it (flows/platforms/marketplace_identity.py checks)."""

from __future__ import annotations

import base64
import json
import secrets
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from flows.sim.mturk.worker_pages import BadRequest

PROOF = b"hitflow-marketplace-proof:"  # signed before the nonce, so the key signs nothing else


def identity(store: Any) -> tuple[str, Ed25519PrivateKey]:
    """(id, key) kept in ``store`` (a MarketStore; a file from before gets them now), or new ones without."""
    def new_id() -> str:
        return f"sim-{secrets.token_hex(8)}"

    def new_key() -> str:
        return Ed25519PrivateKey.generate().private_bytes_raw().hex()

    kept = store.kept if store is not None else (lambda _name, make: make())
    return kept("marketplace_id", new_id), Ed25519PrivateKey.from_private_bytes(bytes.fromhex(
        kept("marketplace_key", new_key)))


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
