"""Which marketplace a run's platform calls reach, as the campaign's ledger row records it."""

from __future__ import annotations

import base64
import json
import secrets
import urllib.parse

from flows.core.errors import ConfigError, PlatformError
from flows.core.run.run_context import Target
from flows.platforms.clock_line import post_json
from flows.platforms.sim_probe import simulator_health

PROOF = b"hitflow-marketplace-proof:"  # what the simulator signs before the nonce (control_routes.py)


def marketplace_of(target: Target) -> str:
    """``target``'s marketplace identity: a simulator's proven id and key, else ``<kind> <url>``."""
    if target.kind == "sim":
        return simulator_marketplace(target.endpoint_url)
    return f"{target.kind} {public_url(target.endpoint_url)}"


def simulator_marketplace(endpoint_url: str) -> str:
    """``simulator <id> key:<public key>`` for a simulator proving its key, ``simulator <id>`` for an older one."""
    health = simulator_health(endpoint_url)
    found, key = str(health.get("marketplace") or ""), health.get("key")
    if not found or not key:
        return f"simulator {found}" if found else ""
    nonce = secrets.token_bytes(32)
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        signed = json.loads(post_json(f"{endpoint_url.rstrip('/')}/_sim/prove",
                                      json.dumps({"nonce": nonce.hex()}).encode(), 10))["signature"]
        Ed25519PublicKey.from_public_bytes(base64.b64decode(str(key), validate=True)).verify(
            base64.b64decode(str(signed), validate=True), PROOF + nonce)
    except (OSError, ValueError, KeyError, TypeError, RecursionError, PlatformError, InvalidSignature) as exc:
        raise ConfigError(f"the simulator at {public_url(endpoint_url)} names marketplace {found[:40]!r} but does "
                          f"not prove it holds that marketplace's key ({type(exc).__name__}): it is not that "
                          "marketplace; check the endpoint URL") from exc
    return f"simulator {found} key:{key}"


def public_url(url: str) -> str:
    """``url`` as it may be stored and shown: scheme, host, port and path (no trailing slash), nothing else."""
    parts = urllib.parse.urlsplit(url.strip())
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a port that is not a number: the URL is refused elsewhere, shown without it here
        port = ""
    return urllib.parse.urlunsplit((parts.scheme.lower(), host + port, parts.path.rstrip("/"), "", ""))
