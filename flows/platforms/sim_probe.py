"""Asking an endpoint over HTTP whether it is a hitflow simulator, and its clock."""

from __future__ import annotations

import json
from typing import Any

from flows.core.errors import PlatformError
from flows.platforms.clock_line import call, post_json


def is_simulator(endpoint_url: str) -> bool:
    """Whether ``endpoint_url`` answers ``GET /_sim/health`` as a hitflow simulator."""
    return simulator_health(endpoint_url).get("service") == "hitflow-simulator"


def simulator_health(endpoint_url: str) -> dict[str, Any]:
    """What ``GET /_sim/health`` answers with a 200 as a JSON object, within 5 s and 1 MiB; {} for anything else."""
    try:
        body = json.loads(call("GET", f"{endpoint_url.rstrip('/')}/_sim/health", None, 5))
    except (OSError, ValueError, RecursionError, PlatformError):  # refused, an error status, past a bound
        return {}
    return body if isinstance(body, dict) else {}


def served_sim_now(endpoint_url: str, timeout: float = 2.0) -> float | None:
    """A served simulator's clock, or None when nothing answers as one within ``timeout``."""
    try:
        return float(json.loads(post_json(f"{endpoint_url.rstrip('/')}/_sim/clock",
                                          json.dumps({"advance_seconds": 0}).encode(), timeout))["now"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError, PlatformError):  # URLError, timeouts: OSErrors
        return None

