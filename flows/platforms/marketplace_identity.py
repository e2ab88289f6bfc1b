"""Which marketplace a run's platform calls reach, as a campaign's ledger row records it: the ids of its
HITs, studies and qualifications mean something on that marketplace only, so a campaign resumed on
another one is refused before anything is posted (flows/driver/sim_marketplace.py)."""

from __future__ import annotations

import urllib.parse

from flows.core.run.run_context import Target
from flows.platforms.sim_probe import simulator_marketplace


def marketplace_of(target: Target) -> str:
    """The identity of ``target``'s marketplace: ``simulator <id>`` for a simulator (the random id it keeps
    in its state file, the same on any port or process that opens that file), ``<kind> <url>`` for an
    MTurk-compatible endpoint or Prolific (its URL without credentials); "" for a simulator that names
    none (one from before), which nothing is compared with."""
    if target.kind == "sim":
        found = simulator_marketplace(target.endpoint_url)
        return f"simulator {found}" if found else ""
    return f"{target.kind} {public_url(target.endpoint_url)}"


def public_url(url: str) -> str:
    """``url`` as it may be stored and shown: scheme, host, port and path, without a user, a password, a
    query or a fragment (where credentials travel); a trailing slash dropped, so one endpoint is one id."""
    parts = urllib.parse.urlsplit(url.strip())
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a port that is not a number: the URL is refused elsewhere, shown without it here
        port = ""
    return urllib.parse.urlunsplit((parts.scheme.lower(), host + port, parts.path.rstrip("/"), "", ""))
