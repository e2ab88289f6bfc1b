"""Errors end cleanly: one line and the documented exit code, tracebacks in a log file; Ctrl-C says
where the run stopped; a closed pipe is quiet; cancel survives platform errors and is safe twice."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from flows.campaigns.campaign_plan import Run, plan_items
from flows.campaigns.task_pages import task_page
from flows.core.config.config import load_config
from flows.core.errors import HitflowError, PlatformError
from flows.core.ledger.store import Store
from flows.driver.operations import cancel
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.batch_publish import publish_batch
from flows.platforms.targets import sim_clock
from tests.conftest import advance
from tests.forked_hitflow import ForkServer
from tests.test_budget import config_with

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"
HITFLOW = [sys.executable, "-m", "flows.cli"]
ENV = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}


@pytest.mark.slow
@pytest.mark.prefect
def test_a_domain_error_through_prefect_is_one_line_and_a_log_file(tmp_path: Path,
                                                                 prefect_worker_server: dict[str, str],
                                                                 hitflow_forks: ForkServer) -> None:
    config = config_with(tmp_path, 'budget = "150.00 USD"')
    # the worker's Prefect server (PREFECT_API_URL): what is tested is the run's error, not a temporary server's start
    env = {**ENV, **prefect_worker_server}
    # its own ledger: the checkout's runs/hitflow.db may hold a finished vizwiz_captions (after `make demo`); a
    # process of its own forked from the session's fork server (its stderr and exit code; not an interpreter's start)
    done = hitflow_forks.run(["run", str(config), "--db", str(tmp_path / "h.db"), "--out", str(tmp_path / "runs")],
                             text=True, env=env, timeout=240, cwd=ROOT)
    errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
    assert done.returncode == 6 and "Traceback" not in done.stderr and len(errors) == 1
    log = Path(errors[0].rsplit("(details: ", 1)[1].rstrip(")"))
    assert log.parent == tmp_path / "runs" / "vizwiz_captions" / "logs"
    assert "Traceback" in log.read_text() and "BudgetError" in log.read_text()


def test_ctrl_c_says_where_the_run_stopped_and_how_to_resume(sim, tmp_path: Path, hitflow_forks: ForkServer) -> None:
    from flows.cli.main import main

    db = tmp_path / "h.db"
    args = [*HITFLOW, "run", str(CONFIG), "--no-prefect", "--endpoint-url", sim.url, "--db", str(db),
            "--out", str(tmp_path), "--limit", "50"]
    # a process of its own, forked from the session's fork server (tests/forked_hitflow.py): no imports to wait for
    proc = hitflow_forks.popen(args[len(HITFLOW):], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                               cwd=ROOT)
    deadline = time.time() + 240  # importing alone took ~50 s at load 30 (2 cores, parallel workers)
    while time.time() < deadline and not _hits(db):
        time.sleep(0.05)
    assert _hits(db), "the run posted no HIT within 240 s: a Ctrl-C now would test the import, not the run"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "vizwiz_captions stopped at batch" in err and f"Resume with: hitflow run {CONFIG}" in err
    assert f"--db {db} --out {tmp_path} --limit 50 (" in err  # the command as typed: copied, it resumes this run
    # the resume, the command as printed, through main() in this process: its process is not what is
    # tested (the Ctrl-C above is), and a new interpreter's imports cost ~1.5 s of CPU (docs/testing.md)
    assert main(args[len(HITFLOW):]) == 0
    annotations = [h.fields["RequesterAnnotation"] for h in sim.market.hits.values()]
    assert len(annotations) == len(set(annotations)) == 10  # the resumed run posted nothing twice


def _hits(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=1) as conn:
            return int(conn.execute("SELECT count(*) FROM hits").fetchone()[0])
    except sqlite3.OperationalError:  # the tables are not there yet
        return 0


def test_status_into_a_closed_pipe_is_quiet(sim, tmp_path: Path, hitflow_forks: ForkServer) -> None:
    db = tmp_path / "h.db"
    run = _run(sim, db)
    plan_items(run, limit=20)
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `| head` that has read enough, before any write: every write fails, however fast
    try:
        proc = hitflow_forks.popen(["status", "--json", "--db", str(db)], stdout=write_end, stderr=subprocess.PIPE,
                                   env=ENV, cwd=ROOT)
    finally:
        os.close(write_end)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == ""


def _run(sim, db: Path) -> Run:
    target = mturk.Target("sim", sim.url)
    return Run(load_config(CONFIG), Store(db), mturk.make_client(target), target, lambda _: None,
               lambda s: advance(sim, s), page=task_page, clock=sim_clock(target))


def test_cancel_survives_a_platform_error_and_is_safe_twice(sim, tmp_path: Path) -> None:
    run = _run(sim, tmp_path / "h.db")
    plan_items(run, limit=50)
    publish_batch(run, 1)
    advance(sim, 6 * 3600)  # every HIT's work is in, none of it fetched or reviewed yet
    refused = {"n": 0}

    def refuse_first_delete(**_: object) -> None:
        if not refused["n"]:
            refused["n"] += 1
            raise ClientError({"Error": {"Code": "ServiceUnavailable", "Message": "try later"}}, "DeleteHIT")

    run.client.meta.events.register("before-call.mturk.DeleteHIT", refuse_first_delete)
    try:
        cancel(run)
        raise AssertionError("the refused delete must be reported")
    except PlatformError as exc:
        assert "1 call(s) failed" in str(exc) and "safe to repeat" in str(exc)
    assert sum(h.disposed for h in sim.market.hits.values()) == len(sim.market.hits) - 1  # the rest went on
    second = cancel(run)
    assert second["deleted"] == 1 and second["expired"] == 0
    assert cancel(run) == {"expired": 0, "deleted": 0, "still_working": 0, "closed": 0}  # a third time: no work
    submitted = {a.assignment_id: a.status for a in sim.market.assignments.values() if a.submit_time}
    assert submitted and all(status in ("Approved", "Rejected") for status in submitted.values())
    decided = run.store.rows("SELECT assignment_id, applied FROM decisions")
    assert {d["assignment_id"] for d in decided} == set(submitted) and all(d["applied"] for d in decided)


def test_a_ctrl_c_prefect_masks_is_still_an_interruption(tmp_path: Path) -> None:
    """Ctrl-C landing while Prefect 3.8 creates a task run: its crash handler raises
    ValueError('Task run is not set') with the KeyboardInterrupt as context (seen in the clean-clone
    CI). The run must still say where it stopped and how to resume, exit 130, not 'unexpected'."""
    import argparse

    from flows.cli.run import logged_run
    from flows.core.errors import Interrupted

    a = argparse.Namespace(out=str(tmp_path / "out"), no_prefect=True, config="c.toml", argv=["run", "c.toml"])
    with pytest.raises(Interrupted) as stopped, logged_run(a, "caps", str(tmp_path / "h.db")):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise ValueError("Task run is not set")  # noqa: B904  (as Prefect's handle_crash raises it: context only)
    assert stopped.value.exit_code == 130
    assert "interrupted: caps stopped before planning" in str(stopped.value)
    assert "Resume with: hitflow run c.toml" in str(stopped.value)
    with pytest.raises(HitflowError, match="unexpected ValueError: no signal"), \
            logged_run(a, "caps", str(tmp_path / "h.db")):
        raise ValueError("no signal")


def test_a_library_message_of_several_lines_is_printed_as_one(tmp_path: Path, capsys, monkeypatch) -> None:
    """botocore's parameter check says "Parameter validation failed:" and its reason on the next line
    (found by hand with `--out s3://no_such!bucket/runs`, as with libpq's "server closed the connection"
    when a PostgreSQL ledger's server dies mid-run): the CLI prints one line all the same. Nothing is sent
    anywhere: botocore refuses the bucket name before it opens a connection."""
    pytest.importorskip("s3fs", reason="s3:// needs s3fs: pip install -e '.[dev]'")
    from flows.cli.main import main
    from tests.small_configs import small_vizwiz

    monkeypatch.setenv("HITFLOW_STAGING", str(tmp_path / "staging"))
    code = main(["run", str(small_vizwiz(tmp_path, items=5)), "--no-prefect", "--db", str(tmp_path / "h.db"),
                 "--out", "s3://no_such!bucket/runs"])
    said = capsys.readouterr().err
    assert code == 2 and said.count("\n") == 1 and "Invalid bucket name" in said, said


def test_a_postgresql_ledger_lost_mid_run_says_so_and_how_to_resume(pg_url: str, tmp_path: Path) -> None:
    """The ledger's server going away mid-run (here its backend terminated by an administrator, as a
    restart does) was 'unexpected OperationalError' (found by hand): it now names the ledger, says that
    what was done is kept, and gives the resume command."""
    import argparse

    import psycopg

    from flows.cli.run import logged_run

    store = Store(pg_url)
    store.rows("SELECT 1")
    backend = store.rows("SELECT pg_backend_pid() AS pid")[0]["pid"]
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (backend,))
    a = argparse.Namespace(out=str(tmp_path / "out"), no_prefect=True, config="c.toml",
                           argv=["run", "c.toml", "--db", "postgresql://h@127.0.0.1/x", "--no-prefect"])
    with pytest.raises(HitflowError) as lost, logged_run(a, "caps", pg_url):
        store.rows("SELECT count(*) FROM hits")
    said = str(lost.value)
    assert said.startswith("the ledger postgresql://") and "stopped answering" in said, said
    assert "unexpected" not in said and lost.value.exit_code == 1
    assert "Resume with: hitflow run c.toml --db postgresql://h@127.0.0.1/x --no-prefect" in said, said


def test_a_ledger_that_is_not_sqlite_is_refused_before_the_run(tmp_path: Path, capsys) -> None:
    """``--db notes.txt`` (a file that is not SQLite): one line, exit 2, the file untouched; the run
    died on it as "unexpected DatabaseError: file is not a database" (exit 1), its log in another
    campaign's folder, while `hitflow status --db` refused it in words."""
    from flows.cli.main import main

    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    config = str(Path(__file__).parents[1] / "config" / "vizwiz_captions.toml")
    with pytest.raises(SystemExit) as done:
        main(["run", config, "--no-prefect", "--limit", "5", "--db", str(notes), "--out", str(tmp_path / "out")])
    [said] = capsys.readouterr().err.strip().splitlines()
    assert done.value.code == 2 and "is not a hitflow ledger (not an SQLite file)" in said, said
    assert notes.read_text() == "my notes\n" and not (tmp_path / "out").exists()


@pytest.mark.parametrize(("target", "code", "words"), [
    (["--target", "mturk", "--live"], 2, "target mturk needs --endpoint-url (MTurk itself closed"),
    (["--target", "mturk", "--endpoint-url", "https://mturk-requester.us-east-1.amazonaws.com"], 5,
     "its production endpoint is gone"),
    (["--platform", "prolific", "--target", "mturk"], 2, "the target is sim (default) or prolific"),
])
def test_a_dry_run_refuses_a_target_no_run_can_use(tmp_path: Path, capsys, target: list[str], code: int,
                                                    words: str) -> None:
    """The dry run said "no problems found" for MTurk's closed endpoint, which the real run refuses
    (found by hand: `--dry-run --target mturk --live`); it needs no --live, since it spends nothing."""
    from flows.cli.main import main

    config = str(Path(__file__).parents[1] / "config" / "vizwiz_captions.toml")
    dry = ["run", config, "--dry-run", "--limit", "5", "--db", str(tmp_path / "h.db"), "--out", str(tmp_path / "out")]
    assert main([*dry, *target]) == code
    said = capsys.readouterr()
    assert words in said.err and len(said.err.strip().splitlines()) == 1 and "no problems found" not in said.out
    assert main([*dry, "--platform", "prolific", "--target", "prolific"]) == 0  # live Prolific: checked, no --live
    assert not (tmp_path / "h.db").exists()


@pytest.mark.parametrize("platform", [[], ["--platform", "prolific"]])
def test_an_invitee_without_invite_links_is_refused(tmp_path: Path, capsys, platform: list[str]) -> None:
    """`run ... --invite bob` without `--platform links` ran an MTurk campaign to its end, exit 0, and
    invited nobody (found by hand): refused in one line, exit 2, nothing made."""
    from flows.cli.main import main

    config = str(Path(__file__).parents[1] / "config" / "vizwiz_captions.toml")
    ledger, out = tmp_path / "h.db", tmp_path / "out"
    argv = ["run", config, "--no-prefect", "--limit", "5", "--db", str(ledger), "--out", str(out), "--invite", "bob"]
    assert main([*argv, *platform]) == 2
    [said] = capsys.readouterr().err.strip().splitlines()
    assert "--invite is for invite links (--platform links)" in said and "add --platform links" in said, said
    assert not ledger.exists() and not out.exists()


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    """`hitflow serve --port P` on a port in use printed its "task pages ... Ctrl-C stops the server" lines,
    then uvicorn's two ERROR lines and exit 3 ("an input file could not be read"); `hitflow ui` and
    `hitflow review` died with a RuntimeError traceback (found by hand)."""
    import socket

    from flows.cli.main import main
    from flows.core.ledger.store_sqlite import SqliteStore

    ledger = tmp_path / "h.db"
    SqliteStore(ledger).db.close()
    config = str(Path(__file__).parents[1] / "config" / "vizwiz_captions.toml")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = str(holder.getsockname()[1])
        for argv in (["serve", "--campaign", config, "--db", str(ledger), "--port", port],
                     ["ui", "--db", str(ledger), "--port", port]):
            assert main(argv) == 2, argv
            out, err = capsys.readouterr()
            [said] = err.strip().splitlines()
            assert "cannot listen there: Address already in use; pass another --port" in said, said
            assert "Ctrl-C stops the server" not in out, argv  # it never said it serves


def test_an_output_root_from_the_environment_is_checked_as_out_is(tmp_path: Path, capsys, monkeypatch) -> None:
    """`HITFLOW_OUT=a_file hitflow run ...` said "cannot use a_file/vizwiz_captions/logs: Not a directory;
    choose another path" (found by hand): the environment's value gets --out's check and says where it came from."""
    from flows.cli.main import main

    a_file = tmp_path / "notes.txt"
    a_file.write_text("my notes\n")
    monkeypatch.setenv("HITFLOW_OUT", str(a_file))
    config = str(Path(__file__).parents[1] / "config" / "vizwiz_captions.toml")
    assert main(["run", config, "--no-prefect", "--limit", "5", "--db", str(tmp_path / "h.db")]) == 2
    [said] = capsys.readouterr().err.strip().splitlines()
    assert said.startswith("hitflow: error: $HITFLOW_OUT: ") and "is a file, not a folder" in said, said
    assert a_file.read_text() == "my notes\n" and not (tmp_path / "h.db").exists()


def test_ctrl_c_after_the_last_batch_says_the_run_was_finishing(tmp_path: Path) -> None:
    """A Ctrl-C while outputs are written came out as "stopped at nothing: all batches done"."""
    from flows.cli.main import main
    from flows.cli.run import where_stopped
    from tests.small_configs import small_vizwiz

    config, db = small_vizwiz(tmp_path, items=10), tmp_path / "h.db"
    assert main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "runs")]) == 0
    said = where_stopped(str(db), "vizwiz_captions")
    assert said.startswith("vizwiz_captions stopped after its batches, while finishing") and "nothing" not in said
