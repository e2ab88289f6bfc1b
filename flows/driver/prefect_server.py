"""Prefect's temporary (ephemeral) API server, kept out of the terminal's signals.

A terminal's Ctrl-C is SIGINT to the whole foreground process group. Prefect 3.8 starts its ephemeral
server as a plain child process (``SubprocessASGIServer._run_uvicorn_command``), which died of it while the
interrupted run still had to tell it where it stopped. Started in a session of its own, the server sees no
terminal signal; Prefect still stops it when the run's process exits (its atexit ``stop()``).
"""

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
