"""Which Prefect API a ``hitflow run`` talks to, started if need be; imports nothing of Prefect."""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO

from flows.core.errors import ConfigError, HitflowError, Interrupted

HITFLOW_API_ENV = "HITFLOW_PREFECT_API_URL"
TEMPORARY_API_ENV = "HITFLOW_PREFECT_TEMPORARY_API"  # the temporary server's URL, which dies with the run
# What Prefect's own temporary server gets (prefect.server.api.server.SubprocessASGIServer, 3.8).
SERVER_ENV = {"PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1"}
# Prefect's settings for the temporary server unless the user set them: events written in larger batches.
TEMPORARY_SERVER_SETTINGS = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "100",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "2",
    "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_BATCH_SIZE": "200",
}

# Prefect's temporary server with the collector off until it serves, the imports' heap frozen first.
SERVER_BOOT = """\
import gc, sys
gc.disable()
import uvicorn
from prefect.server.api.server import create_app
gc.freeze()
app = create_app()


class Server(uvicorn.Server):
    async def startup(self, sockets=None):
        await super().startup(sockets=sockets)  # the app's lifespan: migrations, block types; then it listens
        gc.freeze()
        gc.enable()


Server(uvicorn.Config(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="error", lifespan="on")).run()
"""


def healthy(api_url: str, timeout_s: float = 2.0) -> bool:
    """Whether a Prefect API answers its health check at ``api_url`` (``http://host:port/api``)."""
    try:
        with urllib.request.urlopen(f"{api_url.rstrip('/')}/health", timeout=timeout_s) as reply:
            return bool(reply.status == 200)
    except (OSError, ValueError):  # refused, timed out, not a URL
        return False


class TemporaryServer:
    """Prefect's temporary API server in a child process, started without waiting for it."""

    def __init__(self) -> None:
        self.port = free_port()
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        self.log: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop); its errors, for a message
        env = {**TEMPORARY_SERVER_SETTINGS, **os.environ, **SERVER_ENV}  # a setting the user made wins
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVER_BOOT, str(self.port)],
            # a session of its own: a terminal's Ctrl-C must not stop it before the run has reported
            env=env, stdout=subprocess.DEVNULL, stderr=self.log, start_new_session=True)

    def wait_ready(self, timeout_s: float) -> str:
        """Block until the server answers (its API URL), or say in one line why it did not."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            if healthy(self.api_url, timeout_s=1.0):
                return self.api_url
            time.sleep(0.05)
        self.log.seek(0)
        last = (self.log.read().decode(errors="replace").strip().splitlines() or ["no output"])[-1]
        raise HitflowError(f"Prefect's temporary server did not start within {timeout_s:g} s ({last}); run "
                           f"`prefect server start` and set {HITFLOW_API_ENV}=http://127.0.0.1:4200/api, "
                           "or use --no-prefect")

    def stop(self, wait: bool = True) -> None:
        """``wait=False`` (an interrupted run): SIGTERM the server's session and leave without waiting."""
        if not wait and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)  # its session leader: pgid == pid
            self.process.returncode = -signal.SIGTERM  # not ours to reap: no "still running" warning
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


class PrefectApi:
    """The API a run will use, in ``PREFECT_API_URL`` before Prefect is imported; ``ready()`` waits for it."""

    def __init__(self, url: str, server: TemporaryServer | None = None):
        self.url, self.server = url, server
        os.environ["PREFECT_API_URL"] = url

    def ready(self, meanwhile: Sequence[str] = ()) -> str:
        """The API's URL once it answers; ``meanwhile``: modules imported while a server starts."""
        if self.server is not None:
            for module in meanwhile:
                if self.server.process.poll() is not None or healthy(self.server.api_url, timeout_s=0.5):
                    break
                importlib.import_module(module)
            timeout = float(os.environ.get("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120"))
            self.server.wait_ready(timeout)
        return self.url

    @contextmanager
    def flow_settings(self) -> Iterator[None]:
        """Prefect's settings for the run's flow; no heartbeats on a temporary server."""
        if self.server is None:
            yield
            return
        from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

        with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
            yield


@contextmanager
def prefect_api(wanted_now: bool = True) -> Iterator[PrefectApi | None]:
    """The run's Prefect API (None if not ``wanted_now``); a temporary server ends with the block."""
    before = os.environ.get("PREFECT_API_URL")
    if not wanted_now:
        yield None
        return
    if before:
        yield PrefectApi(before)
        return
    wanted = os.environ.get(HITFLOW_API_ENV, "").strip()
    if wanted and not healthy(wanted):
        raise ConfigError(f"{HITFLOW_API_ENV}={wanted} does not answer {wanted.rstrip('/')}/health: start it "
                          f"(`prefect server start`) or unset {HITFLOW_API_ENV} to use a temporary server")
    server = None if wanted else TemporaryServer()
    if server is not None:
        os.environ[TEMPORARY_API_ENV] = server.api_url
    interrupted = False
    try:
        yield PrefectApi(server.api_url if server else wanted, server)
    except (KeyboardInterrupt, Interrupted):  # Ctrl-C, SIGTERM: a person waits for the prompt
        interrupted = True
        raise
    finally:
        os.environ.pop("PREFECT_API_URL", None)
        os.environ.pop(TEMPORARY_API_ENV, None)
        if server is not None:
            _flush_prefect(timeout_s=2 if interrupted else 10)
            server.stop(wait=not interrupted)


def _flush_prefect(timeout_s: float) -> None:
    """Prefect's log and event workers send what they hold while the server is still up."""
    if "prefect" not in sys.modules:
        return
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for worker in (APILogWorker, EventsWorker):
        worker.drain_all(timeout=timeout_s, at_exit=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
