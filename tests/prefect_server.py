"""A real, local ``prefect server`` for the tests that need one (schedules, work pools), and
process groups that a test always ends: nothing a test starts outlives it."""

from __future__ import annotations

import fcntl
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, closing, contextmanager, suppress
from pathlib import Path
from typing import Any

# one free loopback port, as the product finds it; the temporary server's batched writes
from flows.core.run.prefect_api import TEMPORARY_SERVER_SETTINGS, free_port


def group_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` still running (a zombie has finished: it only awaits its reaping)."""
    if not Path("/proc/self/stat").exists():  # no procfs: ask the kernel whether the group has anyone
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        return [pgid]
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _ppid, group = stat.read_text().rsplit(")", 1)[1].split()[:3]  # the name may hold ")"
        except (OSError, ValueError):
            continue  # the process ended while we looked
        if state != "Z" and int(group) == pgid:
            members.append(int(stat.parent.name))
    return members


def group_gone(proc: subprocess.Popen[Any], within_s: float) -> bool:
    """Whether ``proc``'s process group (``start_new_session=True``) ends within ``within_s``."""
    deadline = time.monotonic() + within_s
    while True:
        proc.poll()  # reap the leader, or it stays a zombie
        if not group_members(proc.pid):
            with suppress(subprocess.TimeoutExpired):  # the leader may have ended since poll(): reap it too,
                proc.wait(timeout=5)                    # so its returncode is there for the caller
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)


def stop_group(proc: subprocess.Popen[Any], grace_s: float = 20.0) -> list[int]:
    """SIGTERM to the whole group, then SIGKILL to whatever is left after ``grace_s`` (a process
    that ignores SIGTERM, or a child its parent left behind); returns any survivor (none but a
    process stuck in the kernel). It never raises, so it cannot hide a failing test's error."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        if group_gone(proc, wait_s):
            break
    with suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    return group_members(proc.pid)


@contextmanager
def process_group(args: list[str], grace_s: float = 20.0, **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """``subprocess.Popen(args)`` as the leader of a new process group, ended (with everything it
    started) when the block is left, however it is left."""
    proc = subprocess.Popen(args, start_new_session=True, **popen)
    try:
        yield proc
    finally:
        stop_group(proc, grace_s)


@contextmanager
def prefect_server(home: Path, template: Path | None = None, *, groups: list[subprocess.Popen[Any]] | None = None,
                   kept: Path | None = None, **settings: str) -> Iterator[dict[str, str]]:
    """Start ``prefect server`` (analytics and UI off, its own home) and yield the environment
    that points a client or worker at it (``PREFECT_API_URL``); stop it afterwards.

    ``template``: a migrated, empty Prefect database shared by the session's servers. A server on a
    fresh database runs every Alembic migration first (~7.5 s of CPU); this one starts on a
    copy of the template instead, or, where there is none yet, migrates its own and leaves a copy as
    the template (one server at a time: the others wait for it, see ``_template_lock``). ``kept``: where
    a template outlives the session (``kept_template``), copied in as the template when the session has
    none, written when a server migrated one. ``groups``, if given, gets the server's process (the leader
    of its group)."""
    home.mkdir(parents=True, exist_ok=True)
    with _template_lock(template) as lock:
        if template is not None and kept is not None and kept.is_file() and not template.is_file():
            _write_atomically(template, kept.read_bytes())
        copied = template is not None and template.is_file()
        if template is not None and copied:
            shutil.copyfile(template, home / "prefect.db")
            settings = {**ON_A_MIGRATED_DATABASE, **settings}
            lock.close()  # the copy is made: other servers need not wait for this one
        with _running(home, settings, groups) as env:
            if template is not None and not copied:
                _snapshot(home / "prefect.db", template)
                if kept is not None:
                    _write_atomically(kept, template.read_bytes())
                lock.close()
            yield env


# A database copied from the template is at Alembic's head and holds Prefect's block types: what the
# server would otherwise check or write at each start (prefect/server/api/server.py, lifespan()).
ON_A_MIGRATED_DATABASE = {"PREFECT_SERVER_DATABASE_MIGRATE_ON_START": "false",
                          "PREFECT_SERVER_REGISTER_BLOCKS_ON_START": "false"}


@contextmanager
def _template_lock(template: Path | None) -> Iterator[Any]:
    """An exclusive lock beside ``template`` (xdist workers are processes: a file lock), held until
    the block ends or the file yielded is closed; nothing to hold without a template."""
    if template is None:
        yield io.StringIO()
        return
    template.parent.mkdir(parents=True, exist_ok=True)
    with (template.parent / f"{template.name}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        yield lock


def kept_template(folder: Path) -> Path:
    """Where a migrated, empty database outlives the session, in ``folder`` (pytest's cache: a developer's
    next ``make test`` skips the migrations, ~5 s of CPU, as the workers' Prefect homes keep theirs), named
    for the installed Prefect and its SQLite migrations: another Prefect never starts on it."""
    from importlib.metadata import version
    from importlib.util import find_spec

    package = find_spec("prefect")  # its folder, without importing it
    assert package is not None and package.submodule_search_locations
    migrations = Path(package.submodule_search_locations[0], "server", "database", "_migrations", "versions", "sqlite")
    names = sorted(p.name for p in migrations.glob("*.py"))
    return folder / f"prefect-{version('prefect')}-{len(names)}-{names[-1][:30] if names else ''}.db"


def _snapshot(database: Path, template: Path) -> None:
    """A consistent copy of the running server's SQLite database (the backup API, as the server may
    be writing), renamed into place only when whole."""
    partial = template.with_suffix(f".{os.getpid()}.partial")
    with closing(sqlite3.connect(database)) as source, closing(sqlite3.connect(partial)) as copy:
        source.backup(copy)
    os.replace(partial, template)


# ``python -m prefect ARGS`` (Prefect's CLI app, its own entry), its ~2,000 imports made with Python's
# cyclic collector off, as hitflow's temporary server makes them (SERVER_BOOT in
# flows/core/run/prefect_api.py: collections over a growing heap that find little to free); what they
# made is frozen and the collector is on again before the command runs. CPU until a server answers, on
# a copy of the template: 2.7 -> 2.0 s (two starts each, load ~7); a worker's imports 1.5 -> 1.0 s.
PREFECT_CLI = """\
import gc
gc.disable()
import prefect.cli, {modules}
gc.freeze()
gc.enable()
from prefect.cli import app
app()
"""


def prefect_cli(*args: str) -> list[str]:
    """The command line of ``python -m prefect ARGS`` for ``prefect server start`` or ``prefect worker start``."""
    modules = {"server": "prefect.cli.server, prefect.server.api.server",
               "worker": "prefect.cli.worker, prefect.workers.process"}[args[0]]
    return [sys.executable, "-c", PREFECT_CLI.format(modules=modules), *args]


@contextmanager
def _running(home: Path, settings: dict[str, str],
             groups: list[subprocess.Popen[Any]] | None = None) -> Iterator[dict[str, str]]:
    port = free_port()
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_UI_ENABLED": "false", "PREFECT_LOGGING_LEVEL": "WARNING", **settings}
    with process_group(prefect_cli("server", "start", "--port", str(port)),
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as server:
        if groups is not None:
            groups.append(server)
        deadline = time.time() + 180  # a fresh database's migrations took 77-92 s at load 17-18
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2)
                break
            except OSError:
                assert server.poll() is None and time.time() < deadline, "the Prefect server did not start"
                time.sleep(0.5)
        yield {**env, "PREFECT_API_URL": f"http://127.0.0.1:{port}/api"}


# One real server per test session (tests/conftest.py's ``prefect_worker_server``), shared by every
# Prefect test its xdist workers run: each prefect_test_harness or module server started and migrated a
# database of its own (~10-25 s at load). The scheduler looks every 3 s (a schedule test's
# interval), and a served flow polls every 2 s. The services no test on it needs are off: each
# wakes every few seconds for the whole session (idle, the server spent 1.47 s CPU a minute with
# them, 0.96 s without; load ~10): late runs (marks runs Late), the foreman (work pools' and workers'
# heartbeats), automations (triggers and their actions), the cleanup of cancelled runs and the
# reconciler of its cleanup messages' leases (what that cleanup queues for workers), and the event
# persister (it stores the event feed, which no test reads; the task-run recorder takes the same events
# from the server's message stream itself). Kept: the scheduler (test_schedules), pause expirations
# (test_review_pause), the repossessor (expired concurrency leases, test_many_campaigns'
# one-run-at-a-time deployment), and the task-run recorder (task runs are recorded from events:
# test_prefect_flow counts them). It writes in batches, as on hitflow's temporary server
# (TEMPORARY_SERVER_SETTINGS), instead of each task-run event in a transaction of its own. The
# server's CPU on test_prefect_flow's and test_review_pause's runs: 7.3 s, 4.9 s batched (load 7-8),
# 4.4 s without the persister (load ~10). A test that reads task runs reads until what it asks for
# is there (the recorder writes at least every 2 s).
# The session's workers share it, so it holds every Prefect test's runs: a read without a limit
# (test_review_pause's read_flow_runs(), filtered here by its db_path) gets the server's default limit,
# 200 runs in id order, which are random uuids; all of them instead.
# A schedule keeps 5 runs scheduled ahead rather than 100 (each loop tops them up): three 3-s schedules' first 30 s cost
# the server 2.1 -> 1.4 s of CPU, and every such read, and a deployment's deletion, handled fewer runs.
WORKER_SERVER_SETTINGS = {"PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "3", "PREFECT_RUNNER_POLL_FREQUENCY": "2",
                          "PREFECT_SERVER_SERVICES_SCHEDULER_MAX_RUNS": "5",
                          "PREFECT_SERVER_API_DEFAULT_LIMIT": "100000", **TEMPORARY_SERVER_SETTINGS,
                          **{f"PREFECT_SERVER_SERVICES_{service}_ENABLED": "false" for service in (
                              "LATE_RUNS", "FOREMAN", "TRIGGERS", "CANCELLATION_CLEANUP", "CLEANUP_RECONCILER",
                              "EVENT_PERSISTER")}}


@contextmanager
def in_process_client_of(api_url: str) -> Iterator[None]:
    """Flows and clients of this process talk to ``api_url`` inside the block, as Prefect's own
    ``prefect_test_harness`` points them at its server; their logs and events are sent before it ends."""
    import prefect.context
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings({PREFECT_API_URL: api_url}), \
            prefect.context._temporary_global_settings_context(prefect.context.get_settings_context()):
        try:
            yield
        finally:  # what prefect_test_harness drains before it stops its server
            for worker in (APILogWorker, EventsWorker):
                worker.drain_all(timeout=10, at_exit=False)


class SharedPrefectServer:
    """One ``prefect server`` for every process of a test session that asks (xdist workers), in
    ``folder`` (the session's, shared by its workers), running only while tests use it. A test holds it
    through ``used()``: the first to ask starts it under a file lock and stays its parent (so it is
    waited for, and its CPU counted); the others use it. Each test using it is listed in
    ``folder/active`` while it runs; once none has for ``idle_s`` the starter stops it (a thread), and
    the next test to ask starts one again on a copy of the template. Idle, a server holding a session's
    runs spent 1.2 s of CPU a minute, and a start on the template costs 4.8-5.7 s (``idle_s`` weighs the
    two: docs/testing.md). The files with a test on it are collected first (tests/conftest.py), so in a
    whole suite no test asks after their last one: one minute, not two (a session's last 60 s of idle
    polling, ~0.75-1.2 s of CPU; the gaps between its uses in a whole suite were under 25 s). ``close()``
    (the session's end) stops one still running once no test of another process uses it, and reaps the
    stopped ones."""

    def __init__(self, folder: Path, template: Path | None, settings: dict[str, str], idle_s: float = 60.0,
                 kept: Path | None = None) -> None:
        self.folder, self.template, self.idle_s, self.settings, self.kept = folder, template, idle_s, settings, kept
        (folder / "active").mkdir(parents=True, exist_ok=True)
        self._mine: ExitStack | None = None  # the server this process started and runs now
        self._group: list[subprocess.Popen[Any]] = []  # its process
        self._stopped: list[ExitStack] = []  # withdrawn, closed (reaped, stopped if need be) by close()
        self._owner = threading.Lock()
        self._watch: threading.Thread | None = None
        self._closing = threading.Event()

    def template_made(self) -> Path:
        """The migrated database's template, made by starting the server if no server has made it yet."""
        assert self.template is not None
        if not self.template.is_file():
            with self.used():
                pass
        return self.template

    @contextmanager
    def used(self) -> Iterator[dict[str, str]]:
        """The server's environment for one test; it is not stopped while the block runs."""
        lease = self.folder / "active" / str(os.getpid())
        with _locked(self.folder / "server.lock"):
            lease.touch()
            try:
                env = _running_shared(self.folder / "server.json") or self._start()
            except BaseException:
                lease.unlink(missing_ok=True)
                raise
        try:
            yield env
        finally:
            with _locked(self.folder / "server.lock"):
                lease.unlink(missing_ok=True)
                (self.folder / "last-used").touch()

    def _start(self) -> dict[str, str]:
        """Start a server (under the folder's lock) and advertise it in ``server.json``."""
        with self._owner:
            if self._mine is not None:  # ours, no longer advertised (its health check failed): stopped at close()
                self._stopped.append(self._mine)
            self._mine, self._group = ExitStack(), []
            home = self.folder / f"home-{os.getpid()}-{len(self._stopped)}"
            env = self._mine.enter_context(prefect_server(home, self.template, groups=self._group, kept=self.kept,
                                                          **self.settings))
        ours = {key: value for key, value in env.items() if os.environ.get(key) != value}
        _write_atomically(self.folder / "server.json", json.dumps({"pid": os.getpid(), "env": ours}))
        if self._watch is None:
            self._watch = threading.Thread(target=self._stop_when_idle, name="prefect-idle", daemon=True)
            self._watch.start()
        return env

    def _stop_when_idle(self) -> None:
        while not self._closing.wait(2.0):
            self._stop_mine(self._withdrawn(self.idle_s))

    def _withdrawn(self, idle_s: float) -> tuple[ExitStack, list[subprocess.Popen[Any]]] | None:
        """This process's server, taken back if no test uses it (none listed alive, none for ``idle_s``):
        no longer advertised, so a test that asks later starts another (under the same lock as this)."""
        with _locked(self.folder / "server.lock"):
            if self._mine is None:
                return None
            active = []
            for lease in (self.folder / "active").iterdir():
                if _alive(int(lease.name)):
                    active.append(lease)
                else:  # a process that ended in a test (killed)
                    lease.unlink(missing_ok=True)
            last = self.folder / "last-used"
            if active or (last.exists() and time.time() - last.stat().st_mtime < idle_s):
                return None
            with suppress(OSError, ValueError):  # not one another process started (ours was found unhealthy)
                if json.loads((self.folder / "server.json").read_text())["pid"] == os.getpid():
                    (self.folder / "server.json").unlink()
            with self._owner:
                mine, self._mine = (self._mine, self._group), None
            return mine

    def _stop_mine(self, mine: tuple[ExitStack, list[subprocess.Popen[Any]]] | None) -> None:
        """End the group without reaping its leader (``_quiesce``): the server's CPU is counted when
        ``close()`` reaps it, on the session fixture's line, not on the test running meanwhile."""
        if mine is not None:
            stack, group = mine
            for proc in group:
                _quiesce(proc)
            self._stopped.append(stack)

    def close(self) -> None:
        self._closing.set()
        if self._watch is not None:
            self._watch.join()
        while self._mine is not None:
            self._stop_mine(self._withdrawn(0.0))
            time.sleep(0 if self._mine is None else 1)  # another process's test uses it
        for stack in self._stopped:
            stack.close()


def _quiesce(proc: subprocess.Popen[Any], grace_s: float = 20.0) -> None:
    """SIGTERM to the group, SIGKILL after ``grace_s``, until none of it runs; the leader stays a
    zombie until ``stop_group`` reaps it."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        deadline = time.monotonic() + wait_s
        while group_members(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not group_members(proc.pid):
            return


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        yield


def _running_shared(state: Path) -> dict[str, str] | None:
    """The environment for the session's running server (its starter alive, its API healthy), or None."""
    try:
        shared = json.loads(state.read_text())
        os.kill(shared["pid"], 0)
        urllib.request.urlopen(shared["env"]["PREFECT_API_URL"].removesuffix("/api") + "/api/health", timeout=5)
    except (OSError, ValueError, KeyError):
        state.unlink(missing_ok=True)
        return None
    return {**os.environ, **shared["env"]}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _zombie_state(pid)


def _zombie_state(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _write_atomically(path: Path, data: str | bytes) -> None:
    """``data`` at ``path`` whole or not at all: another process reading it never sees half."""
    partial = path.with_suffix(f".{os.getpid()}.partial")
    partial.write_bytes(data.encode() if isinstance(data, str) else data)
    os.replace(partial, path)
