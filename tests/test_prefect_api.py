"""Which Prefect API a run uses (flows/core/run/prefect_api.py): a running one is reused, a temporary one is
started at once and stopped after, a named one that does not answer is refused; and the paths
that need no Prefect never import it."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.errors import ConfigError
from flows.core.run.prefect_api import HITFLOW_API_ENV, PrefectApi, TemporaryServer, healthy, prefect_api
from tests.forked_hitflow import ForkServer
from tests.local_http import QuietHandler, local_http_server
from tests.prefect_server import free_port
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"


class _Health(QuietHandler):
    """What a running Prefect server answers on /api/health (nothing else is asked before the flow)."""

    def do_GET(self) -> None:
        if self.path == "/api/health":
            self.reply(b"true")
        else:
            self.reply(b"", status=404)


@pytest.fixture
def running_api() -> Iterator[str]:
    with local_http_server(_Health) as url:
        yield f"{url}/api"


@pytest.fixture
def no_api(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv(HITFLOW_API_ENV, raising=False)


@pytest.fixture
def prefect_home(tmp_path: Path, prefect_database_template: Path) -> Path:
    """A Prefect home as a user's is after the first run: its database migrated and empty (a copy of
    the session's template, made by the session's server). On a fresh home the temporary server first
    runs every Alembic migration (~3-7 s of CPU), which only a user's very first run pays."""
    (tmp_path / "prefect").mkdir()
    shutil.copyfile(prefect_database_template, tmp_path / "prefect" / "prefect.db")
    return tmp_path / "prefect"


def test_a_running_server_named_by_hitflow_is_reused_and_nothing_is_started(no_api, running_api, monkeypatch) -> None:
    monkeypatch.setenv(HITFLOW_API_ENV, running_api)
    with prefect_api() as api:
        assert api is not None and api.server is None  # no temporary server
        assert os.environ["PREFECT_API_URL"] == running_api == api.ready()
    assert "PREFECT_API_URL" not in os.environ  # as it was


def test_prefects_own_setting_wins_and_is_left_as_it_is(no_api, running_api, monkeypatch) -> None:
    monkeypatch.setenv("PREFECT_API_URL", running_api)
    monkeypatch.setenv(HITFLOW_API_ENV, "http://127.0.0.1:9/api")  # would be refused if it were looked at
    with prefect_api() as api:
        assert api is not None and api.server is None and api.ready() == running_api
    assert os.environ["PREFECT_API_URL"] == running_api


def test_a_named_server_that_does_not_answer_is_one_line_and_exit_2(no_api, monkeypatch, capsys, tmp_path) -> None:
    dead = f"http://127.0.0.1:{free_port()}/api"
    monkeypatch.setenv(HITFLOW_API_ENV, dead)
    with pytest.raises(ConfigError, match="does not answer"), prefect_api():
        pass
    code = main(["run", str(CONFIG), "--db", str(tmp_path / "h.db"), "--out", str(tmp_path), "--limit", "5"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and dead in err and "prefect server start" in err
    assert not (tmp_path / "h.db").exists()  # refused before anything was written


@pytest.mark.slow
@pytest.mark.prefect
def test_the_temporary_server_starts_without_blocking_answers_and_is_stopped(no_api, prefect_home, monkeypatch,
                                                                             tmp_path: Path) -> None:
    """Its start is ~2,000 imports; collections during them found little to free and cost ~0.5 s of ~2 s: the
    server counts the collector's own (young generations: Prefect's gc.collect() after building its final
    app is a full one) until its app is built (a process of its own importing them cost ~2 s of CPU more)."""
    from flows.core.run import prefect_api as module

    counted = tmp_path / "collections.txt"
    assert "\napp = create_app()\n" in module.SERVER_BOOT
    monkeypatch.setattr(module, "SERVER_BOOT", (
        "import gc\ncollections = []\n"
        "gc.callbacks.append(lambda phase, info: info['generation'] < 2 and collections.append(phase))\n"
        + module.SERVER_BOOT.replace("\napp = create_app()\n", "\napp = create_app()\nopen(" + repr(str(counted))
                                     + ", 'w').write(f\"COLLECTIONS {collections.count('start')} "
                                     "{[r.path for r in app.routes if r.path == '/api']}\")\n")))
    monkeypatch.setenv("PREFECT_HOME", str(prefect_home))
    with prefect_api() as api:
        assert api is not None and api.server is not None
        assert os.environ["PREFECT_API_URL"] == api.url  # set before Prefect is imported: it reads it then
        url = api.ready()
        assert healthy(url)
        process = api.server.process
    assert process.poll() is not None and not healthy(url)  # stopped with the block
    assert "PREFECT_API_URL" not in os.environ
    assert counted.read_text().split() == ["COLLECTIONS", "0", "['/api']"]  # its API built, not one collection


def test_help_and_no_prefect_runs_never_import_prefect(tmp_path: Path, hitflow_forks: ForkServer) -> None:
    """``hitflow --help``, then a ``--no-prefect`` run, in a process forked from the session's fork server: it
    imported the project (what ``flows.cli.main`` and the run import at their top) but not Prefect, so a
    Prefect import by either shows in the child's modules as in a fresh process (which spent ~1.5 s of CPU
    on those imports first)."""
    help_then_report = ("import atexit, contextlib, io, sys\nfrom flows.cli.main import main\n"
                        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
                        "    main(['--help'])\n"
                        "atexit.register(lambda: print('PREFECT', sorted({m.split('.')[0] for m in sys.modules"
                        " if m.split('.')[0] == 'prefect'})))\n")
    done = hitflow_forks.run(["run", str(CONFIG), "--no-prefect", "--limit", "1", "--db", str(tmp_path / "h.db"),
                              "--out", str(tmp_path)], timeout=120, text=True, cwd=ROOT,
                             env={**os.environ, "PREFECT_API_URL": ""}, preamble=help_then_report)
    assert done.returncode == 0 and done.stdout.strip().splitlines()[-1] == "PREFECT []", done.stderr[-500:]


HEAVY = ("pandas", "numpy", "pyarrow", "prefect", "sqlite_utils")
LAUNCH_PROBE = ("import sys\nfrom flows.core.run import prefect_api\nclass Launched(Exception): pass\n"
                "def launch(self):\n"
                f"    print('LOADED', sorted(m for m in {HEAVY!r} if m in sys.modules), flush=True)\n"
                "    raise Launched\n"
                "prefect_api.TemporaryServer.__init__ = launch\n"
                "from flows.cli.main import main\n"
                "try:\n    main(sys.argv[1:])\nexcept Launched:\n    pass\n")


def test_the_temporary_server_is_launched_before_the_run_imports_pandas_or_prefect(tmp_path: Path) -> None:
    """Its start (~2.6 s of its own imports on the 2-core host) overlaps the run's imports, config and
    set-up only if it is launched first: the check of --db once imported the ledger's module (pandas,
    0.5 s) for a 16-byte constant before the server was launched."""
    ledger = tmp_path / "h.db"
    ledger.write_bytes(b"")  # an existing file: its first bytes are checked (flows/cli/args.py)
    argv = ["run", str(CONFIG), "--db", str(ledger), "--out", str(tmp_path / "out")]
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", HITFLOW_API_ENV)}
    done = subprocess.run([sys.executable, "-c", LAUNCH_PROBE, *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.stdout.strip().splitlines()[-1:] == ["LOADED []"], done.stdout + done.stderr[-500:]


def _health_process(delay_s: float) -> tuple[subprocess.Popen[bytes], str]:
    """A real process that answers /api/health only after ``delay_s`` (a temporary server starting)."""
    port = free_port()
    script = ("import time, http.server\n"
              f"time.sleep({delay_s})\n"
              "class H(http.server.BaseHTTPRequestHandler):\n"
              "    def do_GET(self):\n"
              "        self.send_response(200); self.send_header('Content-Length', '4'); self.end_headers()\n"
              "        self.wfile.write(b'true')\n"
              "    def log_message(self, *a): pass\n"
              f"http.server.HTTPServer(('127.0.0.1', {port}), H).serve_forever()\n")
    return subprocess.Popen([sys.executable, "-c", script]), f"http://127.0.0.1:{port}/api"


def _starting_server(delay_s: float) -> TemporaryServer:
    server = TemporaryServer.__new__(TemporaryServer)  # its uvicorn start is what the slow test above covers
    server.process, server.api_url = _health_process(delay_s)
    server.log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop)
    return server


def test_the_run_imports_its_steps_modules_while_the_temporary_server_starts(tmp_path, monkeypatch) -> None:
    names = [f"steps_ahead_{tmp_path.name.replace('-', '_')}_{i}" for i in range(3)]
    for name in names:
        (tmp_path / f"{name}.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PREFECT_API_URL", "")  # PrefectApi sets it: as it was after the test
    starting, answering = _starting_server(delay_s=3.0), _starting_server(delay_s=0.0)
    try:
        assert PrefectApi(starting.api_url, starting).ready(meanwhile=names[:2]) == starting.api_url
        assert {names[0], names[1]} <= set(sys.modules)  # imported while it was not answering yet
        answering.wait_ready(30)
        PrefectApi(answering.api_url, answering).ready(meanwhile=names[2:])
        assert names[2] not in sys.modules  # it answers: the flow goes first, the step imports it when it needs it
    finally:
        for server in (starting, answering):
            server.stop()
        for name in names:
            sys.modules.pop(name, None)


def test_a_flow_on_the_temporary_server_sends_no_heartbeats_and_on_a_kept_one_it_does(monkeypatch) -> None:
    """Prefect joins a flow run's heartbeat thread at its end, and that thread sleeps in 1 s steps: up to
    1 s after the run's last step, for a crash detection a server that ends with the run never uses."""
    from prefect.settings import get_current_settings

    monkeypatch.setenv("PREFECT_API_URL", "")  # PrefectApi sets it: as it was after the test
    temporary = _starting_server(delay_s=0.0)
    try:
        with PrefectApi(temporary.api_url, temporary).flow_settings():
            assert get_current_settings().flows.heartbeat_frequency is None
        with PrefectApi("http://127.0.0.1:4200/api").flow_settings():  # a server the user keeps
            assert get_current_settings().flows.heartbeat_frequency == 180
    finally:
        temporary.stop()


def test_what_the_run_imports_while_its_server_starts_exists() -> None:
    """A name that is not a module would stop every run under Prefect at its start."""
    import importlib.util

    from flows.driver.campaign_run import FLOW_MODULES

    assert [m for m in FLOW_MODULES if importlib.util.find_spec(m) is None] == []


def test_a_finished_run_leaves_without_teardown_but_runs_every_exit_handler(tmp_path: Path) -> None:
    for thread in ("", "threading.Thread(target=lambda: (time.sleep(0.5), mark('thread'))).start()\n"):
        marks = tmp_path / "marks.txt"
        script = ("import atexit, sys, threading, time\nfrom flows.cli.process_life import finish_without_teardown\n"
                  f"def mark(what):\n    open({str(marks)!r}, 'a').write(what + '\\n')\n"
                  "atexit.register(mark, 'atexit')\n" + thread +
                  "sys.stdout.write('the run\\'s last line')  # buffered: it must still come out\n"
                  "finish_without_teardown(3)\n")
        done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False)
        assert done.returncode == 3 and done.stdout == "the run's last line", done.stderr[-500:]
        # a thread still working is waited for (the usual exit), and exit handlers run after it
        assert marks.read_text().split() == (["thread", "atexit"] if thread else ["atexit"])
        marks.unlink()


@pytest.mark.slow
@pytest.mark.prefect
def test_a_run_on_the_temporary_server_keeps_what_a_prefect_user_sees(tmp_path: Path, prefect_home: Path,
                                                                      hitflow_forks: ForkServer) -> None:
    """The temporary server's lighter settings (TEMPORARY_SERVER_SETTINGS) keep the flow run, its task
    runs (recorded from the run's events: 12 batch steps and the caption top-ups'), the progress lines
    and the artifacts in Prefect's database, where ``prefect server start`` on the same home shows them
    after the run. The demo on 10 images in 2 batches, its top-ups kept: what is kept is the same for each
    batch, so 2 show it as 5 did (each batch more cost its steps' tasks, events and logs again)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", HITFLOW_API_ENV)}
    env |= {"PREFECT_HOME": str(prefect_home), "PREFECT_LOGGING_LEVEL": "WARNING"}
    config = small_vizwiz(tmp_path, items=10, top_ups=True, edits={"batches = 5 ": "batches = 2 "})
    # a process of its own forked from the session's fork server (which imported the project, not Prefect): what
    # is tested is what the server keeps, not the interpreter's start (~1.5 s of CPU importing the project)
    done = hitflow_forks.run(["run", str(config), "--limit", "10", "--db", str(tmp_path / "h.db"),
                              "--out", str(tmp_path / "out")], cwd=ROOT, env=env, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-800:]
    with contextlib.closing(sqlite3.connect(prefect_home / "prefect.db")) as db:
        (run_id, state), = db.execute("SELECT id, state_type FROM flow_run").fetchall()
        tasks = dict(db.execute("SELECT state_type, count(*) FROM task_run WHERE flow_run_id = ? GROUP BY 1",
                                [run_id]).fetchall())
        names = [n.rsplit("-", 1)[0] for (n,) in db.execute("SELECT name FROM task_run WHERE flow_run_id = ?",
                                                            [run_id])]
        logs = [m for (m,) in db.execute("SELECT message FROM log WHERE flow_run_id = ?", [run_id])]
        artifacts = dict(db.execute("SELECT key, type FROM artifact WHERE flow_run_id = ?", [run_id]).fetchall())
    # the 12 batch steps (6 a batch), then the demo's caption top-ups: one task a round, the last finding
    # nothing short; a round that extended HITs sends its new work through 4 late-work steps
    steps = [n for n in names if not n.startswith(("top-up", "late work: "))]
    top_ups = [n for n in names if n.startswith("top-up")]
    late = [n for n in names if n.startswith("late work: ")]
    assert state == "COMPLETED" and set(tasks) == {"COMPLETED"} and tasks["COMPLETED"] == len(names)
    assert len(steps) == len(set(steps)) == 12, sorted(steps)
    assert {n.rsplit(" ", 1)[1] for n in top_ups} == {"1", "2"}
    assert len(late) == 4 * (len(top_ups) - 2), (top_ups, late)
    assert any(line.startswith("batch 2: ") for line in logs) and all(line in logs for line in done.stdout.splitlines()
                                                                       if line.startswith("batch 1: "))
    assert len(artifacts) == 4 and artifacts["vizwiz-captions-batch-2-flags"] == "table"
