"""Safe in an operator's hands, through the CLI as a user runs it: real processes, real signals,
real pipes. One campaign is one identity; Ctrl-C, SIGKILL and a closed pipe leave it resumable and
say so; cancel finishes cleanly; bad ledger paths and empty item files are refused in one line.

A command whose process is not what is tested (a refusal, ``status``, ``cancel``, a resume) runs
through ``main()`` in this process (``hitflow_here``): the same exit code and printed lines, without
a new interpreter's imports (~1.5 s of CPU each). Runs that are signalled, killed, piped
or raced are real processes, forked from the session's fork server (tests/forked_hitflow.py: each its
own process with its own pid, group, pipes and exit code, the project imported once by the server;
Prefect, which the server does not import, by the run itself, as a fresh process does). The run under
Prefect on a temporary server is one too: that server starts in a session of its own
(flows/core/run/prefect_api.py), so what a Ctrl-C to the run's group reaches is the same either way."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from flows.cli.main import main
from tests.forked_hitflow import Forked, ForkServer
from tests.prefect_server import group_gone
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "config" / "vizwiz_captions.toml"
ENV = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PYTHONUNBUFFERED": "1"}


def hitflow_here(*args: str) -> subprocess.CompletedProcess[str]:
    """``hitflow ARGS`` as ``main()`` runs it in this process: its exit code, stdout and stderr."""
    out, err, environ = io.StringIO(), io.StringIO(), dict(os.environ)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:  # the CLI sets Prefect's defaults in its environment, as the command does for itself
        for added in set(os.environ) - set(environ):
            del os.environ[added]
        os.environ.update(environ)
    return subprocess.CompletedProcess(["hitflow", *args], code, out.getvalue(), err.getvalue())


def start(*args: str, forks: ForkServer, env: dict[str, str] = ENV) -> Forked:
    """A run in a process group of its own, as a terminal starts a foreground job, forked from the session's
    fork server (tests/forked_hitflow.py: the same command in a process of its own, its imports made once by
    the server): the signals are about the run, not its interpreter."""
    return forks.popen(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
                       start_new_session=True)


def read_until(proc: Forked, prefix: str, within_s: float = 180) -> list[str]:
    """stdout lines up to the first that starts with ``prefix`` (the run is then at that step). A run that
    prints nothing more is killed (its process group) after ``within_s``, so the wait ends in a failure: the
    deadline was only looked at between lines, and a run silent in a step (a Prefect server that does not
    answer on a loaded host) held readline() until the CI job's own time limit."""
    assert proc.stdout is not None
    lines: list[str] = []
    fired = threading.Event()
    watchdog = threading.Timer(within_s, _kill_group, [proc.pid, fired])
    watchdog.start()
    try:
        while line := proc.stdout.readline():
            lines.append(line)
            if line.startswith(prefix):
                return lines
    finally:
        watchdog.cancel()
    late = f" (nothing within {within_s} s: killed)" if fired.is_set() else ""
    err = proc.stderr.read() if proc.stderr else ""
    raise AssertionError(f"the run ended before {prefix!r}{late}: {lines[-3:]} {err}")


def _kill_group(pid: int, fired: threading.Event) -> None:
    fired.set()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def hits(db: Path) -> int:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM hits").fetchone()[0])


def thirty_in_three(folder: Path) -> Path:
    """The demo's first 30 images in 3 batches of 2 HITs (its 5 batches only repeated what batch 3 does)."""
    return small_vizwiz(folder, items=30, edits={"batches = 5 ": "batches = 3 "})


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, str]:
    """One uninterrupted run of the small demo (config, ledger, output root, its stdout), shared:
    the tests below only add to its ledger under other names and check its outputs stay as they are.
    30 images in 3 batches of 2 HITs: a run is stopped inside batch 2 and a batch follows."""
    tmp = tmp_path_factory.mktemp("finished")
    config, db, out = thirty_in_three(tmp), tmp / "a.db", tmp / "out"
    first = hitflow_here("run", str(config), "--no-prefect", "--db", str(db), "--out", str(out))
    assert first.returncode == 0, first.stderr
    return config, db, out, first.stdout


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_a_campaign_is_one_identity(finished: tuple[Path, Path, Path, str], tmp_path: Path) -> None:
    config, db, out, stdout = finished
    assert "decisions: 10 approved" in stdout and "{'" not in stdout  # words, from the ledger
    truth = next(line.split() for line in stdout.splitlines() if line.strip().startswith("diligent"))
    assert truth[3] == "0"  # no diligent worker "gated out" (the old table counted every idle one)
    folder = out / "vizwiz_captions"
    made = json.loads((folder / "hitflow-manifest.json").read_text())
    assert made == {"campaign": "vizwiz_captions", "ledger": str(db.resolve()), "platform": "mturk"}
    before = files(folder)

    switch = hitflow_here("run", str(config), "--no-prefect", "--platform", "prolific", "--db", str(db), "--out",
                          str(out))
    other_ledger = hitflow_here("run", str(config), "--no-prefect", "--db", str(tmp_path / "b.db"), "--out", str(out))
    assert switch.returncode == 2 and switch.stderr.count("\n") == 1 and "--new-attempt" in switch.stderr
    assert other_ledger.returncode == 2 and "--replace-outputs" in other_ledger.stderr
    assert other_ledger.stderr.count("\n") == 1 and not (tmp_path / "b.db").exists()
    assert files(folder) == before  # outputs untouched

    # the same switch on purpose: a new attempt with its own name and outputs (10 items keep it short)
    attempt = hitflow_here("run", str(config), "--no-prefect", "--platform", "prolific", "--new-attempt", "--limit",
                           "10", "--db", str(db), "--out", str(out))
    assert attempt.returncode == 0, attempt.stderr
    second = out / "vizwiz_captions-attempt-2"
    assert f"dataset: {second / 'dataset.json'}" in attempt.stdout
    assert json.loads((second / "hitflow-manifest.json").read_text()) == {
        "campaign": "vizwiz_captions-attempt-2", "ledger": str(db.resolve()), "platform": "prolific"}
    captions = json.loads((second / "dataset.json").read_text())["annotations"]
    assert captions and all(c["assignment_id"] not in before["dataset.json"].decode() for c in captions)
    assert files(folder) == before  # the first campaign's outputs, byte for byte
    status = {row["campaign"]: row["status"] for row in json.loads(hitflow_here("status", "--db", str(db),
                                                                                   "--json").stdout)}
    assert status == {"vizwiz_captions": "done", "vizwiz_captions-attempt-2": "done"}


def test_two_ledgers_racing_for_one_output_folder_one_is_refused(tmp_path: Path, hitflow_forks: ForkServer) -> None:
    """Both pass the manifest check before either has written it; the O_EXCL claim decides. Two
    processes, forked from the session's fork server (no Python to start for each)."""
    config, out = small_vizwiz(tmp_path), tmp_path / "out"
    racers = [hitflow_forks.popen(["run", str(config), "--no-prefect", "--limit", "10", "--db",
                                   str(tmp_path / f"{n}.db"), "--out", str(out)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT) for n in ("one", "two")]
    ended = [(proc.wait(240), proc.stderr.read() if proc.stderr else "") for proc in racers]
    for proc in racers:
        proc.communicate()
    assert sorted(code for code, _ in ended) == [0, 2], ended
    refused = next(err for code, err in ended if code == 2)
    assert refused.count("\n") == 1 and "--replace-outputs" in refused and "Traceback" not in refused
    winner = "one" if ended[0][0] == 0 else "two"
    made = json.loads((out / "vizwiz_captions" / "hitflow-manifest.json").read_text())
    assert made["ledger"] == str((tmp_path / f"{winner}.db").resolve())


def dataset(folder: Path) -> dict[str, object]:
    """dataset.json without the platform's assignment ids (the simulator draws new ones each run)."""
    data = json.loads((folder / "dataset.json").read_text())
    for caption in data["annotations"]:
        caption.pop("assignment_id")
    return data


def test_an_interrupted_run_resumed_makes_the_same_dataset(finished: tuple[Path, Path, Path, str],
                                                            tmp_path: Path, hitflow_forks: ForkServer) -> None:
    """Ctrl-C mid-batch, then the resume command: the same images, captions, annotation ids and
    rejections as the uninterrupted run of the same seed (the review sample, too)."""
    config, db, out = thirty_in_three(tmp_path), tmp_path / "h.db", tmp_path / "out"  # as ``finished``
    run = start("run", str(config), "--no-prefect", "--db", str(db), "--out", str(out), forks=hitflow_forks)
    try:
        read_until(run, "batch 2: 2 HITs")
        os.killpg(run.pid, signal.SIGINT)
        _, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 130 and "Resume with: hitflow run" in err
    resumed = hitflow_here("run", str(config), "--no-prefect", "--db", str(db), "--out", str(out))
    assert resumed.returncode == 0, resumed.stderr
    whole = finished[2] / "vizwiz_captions"
    assert dataset(out / "vizwiz_captions") == dataset(whole)
    picked = [line.split(",")[0] for line in (whole / "flags.csv").read_text().splitlines() if "random_sample" in line]
    again = (out / "vizwiz_captions" / "flags.csv").read_text().splitlines()
    assert picked and picked == [line.split(",")[0] for line in again if "random_sample" in line]


@pytest.mark.slow
def test_ctrl_c_then_cancel_then_run_posts_nothing(tmp_path: Path, hitflow_forks: ForkServer) -> None:
    # time to act mid-run: 13 batches still to go once batch 2 is posted, in small batches (cheap to reach)
    config = small_vizwiz(tmp_path, items=150, edits={"batches = 5 ": "batches = 15 "})
    db, out = tmp_path / "h.db", tmp_path / "out"
    run = start("run", str(config), "--no-prefect", "--db", str(db), "--out", str(out), forks=hitflow_forks)
    try:
        read_until(run, "batch 2: 2 HITs")
        busy = hitflow_here("cancel", "vizwiz_captions", "--db", str(db), "--out", str(out))
        assert busy.returncode == 7 and "stop that run first" in busy.stderr and busy.stderr.count("\n") == 1
        os.killpg(run.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
        _, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 130 and "Resume with: hitflow run" in err and "Traceback" not in err
    stopped = hitflow_here("status", "--db", str(db)).stdout
    assert "(stopped)" in stopped and "next: batch " in stopped  # where it stopped, with the step

    cancel = hitflow_here("cancel", "vizwiz_captions", "--db", str(db), "--out", str(out))
    assert cancel.returncode == 0 and "vizwiz_captions cancelled:" in cancel.stdout and "{'" not in cancel.stdout
    assert (out / "vizwiz_captions" / "dataset.csv").is_file()  # the partial dataset
    status = hitflow_here("status", "--db", str(db)).stdout
    assert "(cancelled)" in status and "--resume-cancelled" in status and "next: batch" not in status

    posted = hits(db)
    again = hitflow_here("run", str(config), "--no-prefect", "--db", str(db), "--out", str(out))
    assert again.returncode == 2 and "--resume-cancelled" in again.stderr and hits(db) == posted


def test_a_killed_run_shows_as_stopped_with_its_step(tmp_path: Path, hitflow_forks: ForkServer) -> None:
    db = tmp_path / "h.db"
    run = start("run", str(DEMO), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "out"), forks=hitflow_forks)
    try:
        read_until(run, "batch 1: 20 HITs")
        os.killpg(run.pid, signal.SIGKILL)
        run.wait(30)
    finally:
        run.kill()
    after = hitflow_here("status", "--db", str(db)).stdout
    assert after.startswith("vizwiz_captions (stopped)") and "next: batch " in after, after


def test_paths_that_are_not_a_ledger_and_empty_item_files_are_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "binary.db").write_bytes(bytes(range(256)))
    missing, folder, binary = tmp_path / "missing.db", tmp_path / "folder", tmp_path / "binary.db"
    for command, path in ((["status"], missing), (["status"], folder), (["status"], binary),
                          (["cancel", "vizwiz_captions"], missing), (["reconcile", "vizwiz_captions"], binary)):
        done = hitflow_here(*command, "--db", str(path))
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--db" in done.stderr, done.stderr
    assert not (tmp_path / "missing.db").exists() and (tmp_path / "binary.db").read_bytes() == bytes(range(256))
    bad_out = hitflow_here("run", str(small_vizwiz(tmp_path)), "--no-prefect", "--db", str(tmp_path / "h.db"),
                           "--out", "/proc/nope")
    assert bad_out.returncode == 2 and bad_out.stderr.count("\n") == 1, bad_out.stderr
    (tmp_path / "items.csv").write_text("image_id,file_name,url\n")  # a header, no items
    empty = hitflow_here("run", str(tmp_path / "vizwiz_captions.toml"), "--no-prefect", "--db",
                         str(tmp_path / "e.db"), "--out", str(tmp_path / "out"))
    assert empty.returncode == 3 and "no rows" in empty.stderr and empty.stderr.count("\n") == 1, empty.stderr


@pytest.mark.slow
@pytest.mark.prefect
def test_under_prefect_ctrl_c_leaves_at_once_and_a_closed_pipe_exits_141(
        tmp_path: Path, prefect_worker_server: dict[str, str], prefect_database_template: Path,
        hitflow_forks: ForkServer) -> None:
    """Prefect's ephemeral server used to die with the terminal's SIGINT first: 70 s of retries,
    EventsWorker tracebacks, exit 1. A reader that left (`| head -3`) stopped the campaign mid-step."""
    config, db, out = thirty_in_three(tmp_path), tmp_path / "h.db", tmp_path / "out"
    env = {**ENV, "PREFECT_HOME": str(tmp_path / "prefect")}
    (tmp_path / "prefect").mkdir()  # the session's migrated database (its server made it): no migrations (~6 s CPU)
    shutil.copyfile(prefect_database_template, tmp_path / "prefect" / "prefect.db")
    run = start("run", str(config), "--db", str(db), "--out", str(out), env=env, forks=hitflow_forks)
    try:
        read_until(run, "batch 2: 2 HITs", within_s=300)
        signalled = time.monotonic()
        os.killpg(run.pid, signal.SIGINT)
        _, err = run.communicate(timeout=120)
        took = time.monotonic() - signalled
    finally:
        run.kill()
    assert run.returncode == 130 and "Resume with: hitflow run" in err, err[-2000:]
    assert "EventsWorker" not in err and "Traceback" not in err and err.count("\n") == 1, err[-2000:]
    assert took < 10, took  # 5.8-15.8 s before the server was left to stop on its own, ~1-2 s since
    assert group_gone(run, 10)  # the ephemeral server went with it

    # the pipe's run on the session's kept server: what a closed pipe does to a run is the same on any
    # Prefect server, and a temporary one costs ~5 s of CPU to start (the Ctrl-C above is about that one);
    # forked (its own process, pipe and exit code; the project imported once by the server, Prefect by the run)
    piped = start("run", str(config), "--db", str(db), "--out", str(out),
                  env={**env, "PREFECT_API_URL": prefect_worker_server["PREFECT_API_URL"]}, forks=hitflow_forks)
    try:
        assert piped.stdout is not None
        head = [piped.stdout.readline() for _ in range(3)]  # `| head -3`
        piped.stdout.close()
        piped.wait(300)
    finally:
        piped.kill()
    assert head[0].startswith("target:") and piped.returncode == 141
    status = json.loads(hitflow_here("status", "--db", str(db), "--json").stdout)
    assert status[0]["status"] == "done" and (out / "vizwiz_captions" / "dataset.json").is_file()
