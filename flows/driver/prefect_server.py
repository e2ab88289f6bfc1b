"""Prefect's temporary API server started in a session of its own: as Prefect 3.8's plain child it died of
the terminal's Ctrl-C while the interrupted run still had to report to it; Prefect still stops it at exit."""

from __future__ import annotations

import os
import subprocess
from functools import partial
from types import SimpleNamespace
from typing import Any


def keep_ephemeral_server_out_of_terminal_signals() -> None:
    """Make the ephemeral server's ``subprocess.Popen`` start a new session (idempotent). If a
    Prefect release moves the code, nothing changes (the server is then as Prefect starts it)."""
    if os.environ.get("PREFECT_API_URL"):  # no ephemeral server then (flows/core/run/prefect_api.py): skip importing it
        return
    from prefect.server.api import server

    if not hasattr(server, "SubprocessASGIServer") or getattr(server.subprocess, "hitflow_own_session", False):
        return
    popen: Any = partial(subprocess.Popen, start_new_session=True)
    # the module's ``subprocess`` name only: every other user of subprocess.Popen is unchanged
    server.subprocess = SimpleNamespace(Popen=popen, TimeoutExpired=subprocess.TimeoutExpired,  # type: ignore[assignment]
                                        hitflow_own_session=True)
