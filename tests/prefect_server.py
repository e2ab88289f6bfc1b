"""A real, local ``prefect server`` for the tests that need one (schedules, work pools)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def prefect_server(home: Path, **settings: str) -> Iterator[dict[str, str]]:
    """Start ``prefect server`` (analytics and UI off, its own home) and yield the environment
    that points a client or worker at it (``PREFECT_API_URL``); stop it afterwards."""
    port = free_port()
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_UI_ENABLED": "false", "PREFECT_LOGGING_LEVEL": "WARNING", **settings}
    server = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--port", str(port)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2)
                break
            except OSError:
                assert server.poll() is None and time.time() < deadline, "the Prefect server did not start"
                time.sleep(0.5)
        yield {**env, "PREFECT_API_URL": f"http://127.0.0.1:{port}/api"}
    finally:
        server.terminate()
        server.wait(timeout=30)
