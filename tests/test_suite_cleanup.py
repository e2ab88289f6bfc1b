"""A test run stopped midway leaves nothing running (`make test` stopped with SIGTERM left
PostgreSQL servers, Prefect servers and a Prefect worker behind). The test starts pytest (one xdist
worker, as `make test` runs it) on the probe below, which holds the session's PostgreSQL and Prefect
servers and an orphan of its own; once they run it stops that pytest as a user would, then looks for
any survivor: the probe's own list of what it started (taken from the processes' parent and the
PostgreSQL pid file, independent of tests/reaper.py's mark) and every process carrying the run's mark."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import reaper
from tests.conftest import TEMPLATE_ENV
from tests.prefect_server import stop_group

ROOT = Path(__file__).resolve().parents[1]
PROBE = "HITFLOW_CLEANUP_PROBE"


def _started_at(pid: int) -> str | None:
    """The process's start time (/proc/PID/stat field 22), None once it is gone or a zombie: a pid
    reused by a new process is not the one we saw."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else fields[19]


@pytest.mark.skipif(not os.environ.get(PROBE), reason="the probe of test_stopped_run_leaves_nothing, run by it")
def test_probe_holds_servers(request: pytest.FixtureRequest) -> None:
    pg = request.getfixturevalue("pg_server")
    wanted = os.environ[PROBE].split(",")
    if "prefect" in wanted:
        request.getfixturevalue("prefect_worker_server")
    # What a lost `hitflow` leaves: a process in a session of its own that no fixture will stop.
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(900)"], start_new_session=True)
    postmaster = int((pg.root / "data" / "postmaster.pid").read_text().split()[0])
    children = [int(p.parent.name) for p in Path("/proc").glob("[0-9]*/stat")
                if _parent(p) == os.getpid()]
    pids = {pid: _started_at(pid) for pid in [postmaster, *children, os.getpid()]}
    ready = Path(os.environ["HITFLOW_CLEANUP_READY"])
    ready.with_suffix(".part").write_text(json.dumps(pids))
    ready.with_suffix(".part").replace(ready)
    time.sleep(900)  # stopped from outside long before


def _parent(stat: Path) -> int:
    try:
        return int(stat.read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def _inner_env(tmp_path: Path, servers: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("PYTEST_") and key not in (reaper.MARK, "HITFLOW_TEST_CPU", "PREFECT_API_URL")}
    return {**env, PROBE: servers, "HITFLOW_CLEANUP_READY": str(tmp_path / "ready.json"),
            "PREFECT_HOME": str(tmp_path / "prefect-home"), "PYTHONPATH": str(ROOT)}


@pytest.mark.parametrize(("servers", "how"), [
    ("postgres,prefect", "SIGTERM to pytest alone (kill PID)"),
    ("postgres", "SIGINT to its process group (Ctrl-C)"),
    ("postgres", "SIGTERM to its process group, then to pytest again (make test's shell passing its own on)"),
])
def test_stopped_run_leaves_nothing(servers: str, how: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    basetemp = tmp_path / "inner"
    env = _inner_env(tmp_path, servers)
    if "prefect" in servers:  # the inner server starts on a copy of this session's migrated database
        env[TEMPLATE_ENV] = str(request.getfixturevalue("prefect_database_template"))
    # without Hypothesis's plugin, which starts and holds nothing (its imports: CPU in both processes, the
    # inner pytest's controller and its worker)
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-n", "1",
            f"--basetemp={basetemp}",
            f"{Path(__file__).relative_to(ROOT)}::test_probe_holds_servers"]
    inner = subprocess.Popen(args, cwd=ROOT, env=env, start_new_session=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    mark = f"{inner.pid}."
    ready = tmp_path / "ready.json"
    try:
        deadline = time.monotonic() + 300
        while not ready.exists():
            assert inner.poll() is None, f"the inner pytest ended early:\n{inner.communicate()[0]}"
            assert time.monotonic() < deadline, "the probe's servers did not start in 300 s"
            time.sleep(0.5)
        started = json.loads(ready.read_text())
        seen = reaper.marked(mark)
        assert {int(pid) for pid in started} <= set(seen), "every process the probe started carries the run's mark"
        if how.startswith("SIGTERM to its process group"):  # the second SIGTERM once ended pytest unreaped
            os.killpg(inner.pid, signal.SIGTERM)
            time.sleep(0.1)
            inner.send_signal(signal.SIGTERM)
        elif how.startswith("SIGTERM"):
            inner.send_signal(signal.SIGTERM)
        else:
            os.killpg(inner.pid, signal.SIGINT)
        output = inner.communicate(timeout=120)[0]
        assert inner.returncode != 0, output
        survivors = {int(pid) for pid, at in started.items() if _started_at(int(pid)) == at}
        assert not survivors, f"{how} left {survivors} running:\n{output}"
        assert not reaper.marked(mark), f"{how} left processes of the run:\n{output}"
    finally:
        stop_group(inner, grace_s=5)
        reaper.reap(mark, grace_s=5)
