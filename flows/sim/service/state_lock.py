"""One process holds a simulator state file at a time."""

from __future__ import annotations

import fcntl
import os
import time
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from flows.core.errors import ConfigError

# set while a review page opens the file (flows/platforms/targets.py, held_briefly)
HELD_BRIEFLY: ContextVar[bool] = ContextVar("hitflow_sim_held_briefly", default=False)
BRIEF = "brief"
BRIEF_WAIT_S = 60.0


def locked_state(path: Path) -> Any:
    """The lock file, locked by this process; a holder that lets go once idle is waited for, any other refused."""
    lock = open(f"{path}.lock", "a+")  # noqa: SIM115  (held for the store's life)
    deadline = time.monotonic() + BRIEF_WAIT_S
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            lock.truncate(0)
            lock.write(f"{os.getpid()} {BRIEF}" if HELD_BRIEFLY.get() else str(os.getpid()))
            lock.flush()
            return lock
        except OSError as exc:
            lock.seek(0)
            holder = lock.read(40).split()
            if holder[1:] == [BRIEF] and time.monotonic() < deadline:
                time.sleep(0.1)
                continue
            lock.close()
            pid = f" (pid {holder[0]})" if holder and holder[0].isdigit() else ""
            raise ConfigError(f"simulator state {path} is in use by another hitflow process{pid}: a run, "
                              "or a `hitflow review` or `hitflow ui` page sending decisions there, which you stop "
                              "with Ctrl-C first; else wait for it to end, or talk to it with --endpoint-url if "
                              "it is a `hitflow sim serve`") from exc
