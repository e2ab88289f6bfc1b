"""The docs' examples that need a real Prefect server, run as a reader runs them: every block of
docs/ whose marker says ``not run: ... `make test-docs-prefect` ...`` (how-to/scheduled-batches.md,
how-to/work-pool.md), its commands in order in a fresh folder holding a copy of config/, with this
venv's ``hitflow`` and ``prefect`` on the PATH.

Minutes of CPU (a Prefect server, a flow-run process per batch, the demo's 500 images), so not part
of ``make test``: ``make test-docs-prefect`` runs this file (HITFLOW_DOCS_PREFECT=1); without it the
tests skip saying so, as the blocks' own markers do in tests/test_docs_examples.py.

As a reader's shell: ``export`` lines carry over to later commands, ``cmd &`` starts a process that
stays up until the page ends (the test waits for its port), and a command that serves until it is
stopped (``hitflow serve-schedules``, ``prefect worker start``) runs until what the page promises has
happened, then gets SIGTERM. The reader's defaults are moved out of the way only: fixed ports become
free ones (``prefect server start`` listens on PREFECT_SERVER_API_PORT, Prefect's own default 4200
made that free port), Prefect's home is a folder of the test's (a reader's ~/.prefect), and its UI is
off (nothing here looks at it).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from flows.core.ledger.store import Store
from flows.core.run.prefect_api import free_port
from flows.driver.campaign_status import campaign_status
from tests.doc_blocks import ROOT, Block, commands, fixed_ports, marked_blocks, with_free_ports, without_comment
from tests.prefect_server import process_group, stop_group

TARGET = "make test-docs-prefect"
PAGES = {page: [b for b in blocks if TARGET in b.why] for page, blocks in marked_blocks().items()
         if any(TARGET in b.why for b in blocks)}
pytestmark = [pytest.mark.prefect, pytest.mark.skipif(
    not os.environ.get("HITFLOW_DOCS_PREFECT"),
    reason=f"a real Prefect server and a flow-run process per batch, minutes of CPU: `{TARGET}` runs these")]
SERVES_UNTIL_STOPPED = re.compile(r"^(hitflow serve-schedules|prefect worker start)\b")
EXPORT = re.compile(r"^export (\w+)=(.*)$")
NOT_A_NAME = re.compile(r"\W+")
LEFT_OUT = ("HITFLOW_DB", "PREFECT_API_URL", "HITFLOW_PREFECT_API_URL", "HITFLOW_TASK_SECRET", "PROLIFIC_TOKEN",
            "HITFLOW_OUT")


class ReaderShell:
    """One reader's terminal on one page: its folder, its environment, what it left running."""

    def __init__(self, folder: Path, blocks: list[Block], stack: ExitStack):
        self.folder, self.stack = folder, stack
        self.free = {port: str(free_port()) for port in fixed_ports([b.script for b in blocks])}
        self.env = {k: v for k, v in os.environ.items() if k not in LEFT_OUT}
        self.env.update({"PATH": f"{Path(sys.executable).parent}{os.pathsep}{self.env.get('PATH', '')}",
                         "PREFECT_HOME": str(folder / "prefect-home"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                         "PREFECT_UI_ENABLED": "false", "PREFECT_LOGGING_LEVEL": "INFO",
                         "PREFECT_SERVER_API_PORT": self.free.get("4200", str(free_port()))})
        self.logs: list[Path] = []

    def commands(self, block: Block) -> list[str]:
        [script] = with_free_ports([block.script], self.free)
        return [without_comment(c) for c in commands(script)]

    def run_block(self, block: Block) -> None:
        for command in self.commands(block):
            self.run(command, f"{block.page}:{block.line}")

    def run(self, command: str, where: str) -> str:
        """A plain command (its output), an ``export``, or a ``cmd &`` left running."""
        if m := EXPORT.match(command):
            self.env[m[1]] = shlex.split(m[2])[0]
            return ""
        if command.endswith("&"):
            self.background(command.removesuffix("&").strip(), where)
            return ""
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command], cwd=self.folder, env=self.env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{where}: `{command}` exited {done.returncode}\n{done.stdout[-3000:]}" \
                                     f"\n{done.stderr[-3000:]}"
        return done.stdout

    def background(self, command: str, where: str) -> subprocess.Popen[str]:
        """``command`` in a process group of its own, up until the page ends; once its port answers."""
        log = self.folder / f"{NOT_A_NAME.sub('-', command)[:60]}-{len(self.logs)}.log"
        self.logs.append(log)
        out = self.stack.enter_context(log.open("w"))
        proc = self.stack.enter_context(process_group(["bash", "-c", f"exec {command}"], grace_s=15, cwd=self.folder,
                                                      env=dict(self.env), stdout=out, stderr=subprocess.STDOUT,
                                                      text=True))
        port = next((p for p in re.findall(r"\b\d{4,5}\b", command) if p in self.free.values()), "")
        if command.startswith("prefect server start"):
            port = self.env["PREFECT_SERVER_API_PORT"]
        ready = (lambda: _answers(f"http://127.0.0.1:{port}/")) if port else (lambda: proc.poll() is None)
        until(f"{where}: `{command}` to answer", lambda: ready() or proc.poll() is not None, 120)
        assert proc.poll() is None, f"{where}: `{command}` exited {proc.poll()}:\n{log.read_text()[-3000:]}"
        return proc

    def api(self, method: str, path: str, body: object = None) -> Any:
        """The reader's Prefect server (PREFECT_API_URL as the page exported it)."""
        request = urllib.request.Request(f"{self.env['PREFECT_API_URL']}/{path}", method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.loads(reply.read() or b"null")


def _answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=2)
    except urllib.error.HTTPError:
        return True  # it answered (a 404 is an answer)
    except OSError:
        return False
    return True


def until(what: str, done: Callable[[], Any], within_s: float) -> Any:
    deadline = time.monotonic() + within_s
    while not (found := done()):
        assert time.monotonic() < deadline, f"timed out after {within_s:.0f} s waiting for {what}"
        time.sleep(1)
    return found


@contextmanager
def reader(tmp_path: Path, page: str) -> Iterator[tuple[ReaderShell, list[Block]]]:
    import shutil

    shutil.copytree(ROOT / "config", tmp_path / "config")
    with ExitStack() as stack:
        yield ReaderShell(tmp_path, PAGES[page], stack), PAGES[page]


def finished_batches(db: Path, campaign: str) -> list[bool]:
    """Per batch of the campaign: finished (decided and blocked) or not, as `hitflow status` reads the ledger."""
    report = campaign_status(Store(db), campaign) if db.exists() else []
    return [b["status"] == "blocked" for b in report[0]["batches"]] if report else []


def serve_until(shell: ReaderShell, command: str, where: str, done: Callable[[], Any], within_s: float) -> str:
    """A command that serves until stopped: started, left until ``done()``, then SIGTERM (as `kill`,
    systemd or Docker send it) to it alone; it must leave within a minute, with exit 0. Its output."""
    assert SERVES_UNTIL_STOPPED.match(command), command
    proc = shell.background(command, where)
    log = shell.logs[-1]
    until(f"{where}: what `{command}` is for", lambda: done() or proc.poll() is not None, within_s)
    assert proc.poll() is None, f"{where}: `{command}` exited {proc.poll()}:\n{log.read_text()[-3000:]}"
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=60)
    finally:
        stop_group(proc, grace_s=5)  # the flow-run processes it started, if it left them
    said = log.read_text()
    assert code == 0, f"{where}: `{command}` exited {code} on SIGTERM:\n{said[-3000:]}"
    assert "Traceback" not in said, said[-3000:]
    return said


PAGE_SCHEDULES = "docs/how-to/scheduled-batches.md"
PAGE_POOL = "docs/how-to/work-pool.md"


@pytest.mark.slow
def test_scheduled_batches_page(tmp_path: Path) -> None:
    """Step 1 with a 10-s interval (the page's hour would keep a reader, and this test, waiting); then the
    page's blocks: two batches on `serve-schedules`, SIGTERM pauses the schedule; `deploy` and a worker
    carry the campaign on to its end, when the schedule pauses itself; outputs and logs as promised."""
    with reader(tmp_path, PAGE_SCHEDULES) as (shell, blocks):
        assert len(blocks) == 4
        config = tmp_path / "config" / "vizwiz_captions.toml"
        text = config.read_text(encoding="utf-8")
        assert "interval_s = 3600" in text
        config.write_text(text.replace("interval_s = 3600", "interval_s = 10"), encoding="utf-8")
        db, campaign = tmp_path / "runs" / "hitflow.db", "vizwiz_captions"
        shell.run_block(blocks[0])  # prefect server start &; export PREFECT_API_URL
        shell.run_block(blocks[1])  # hitflow sim serve ... &
        [served] = shell.commands(blocks[2])
        seen: list[int] = []

        def two_batches() -> bool:
            finished = finished_batches(db, campaign)
            assert finished == sorted(finished, reverse=True), finished  # batches finish in order
            seen.append(sum(finished))
            return sum(finished) >= 2

        said = serve_until(shell, served, f"{PAGE_SCHEDULES}:{blocks[2].line}", two_batches, 900)
        assert "stopped serving" in said
        name = f"deployments/name/hitflow-next-batch/{campaign}"
        assert shell.api("GET", name)["paused"] is True  # SIGTERM paused the schedule
        by_schedule = sum(finished_batches(db, campaign))
        assert 2 <= by_schedule < 5 and len(set(seen)) >= 2  # one batch per scheduled run, seen step by step

        deploy, worker = shell.commands(blocks[3])
        assert "registered" in shell.run(deploy, f"{PAGE_SCHEDULES}:{blocks[3].line}")
        serve_until(shell, worker, f"{PAGE_SCHEDULES}:{blocks[3].line}",
                    lambda: campaign_status(Store(db), campaign)[0]["status"] == "done", 1200)
        assert finished_batches(db, campaign) == [True] * 5
        out = tmp_path / "runs" / campaign
        assert (out / "dataset.json").is_file() and (out / "report.html").is_file()
        deployment = until("the done campaign's schedule to pause itself",
                           lambda: (d := shell.api("GET", name))["paused"] and d, 120)
        runs = shell.api("POST", "flow_runs/filter", {"deployments": {"id": {"any_": [deployment["id"]]}},
                                                      "flow_runs": {"state": {"type": {"any_": ["COMPLETED"]}}}})
        logs = shell.api("POST", "logs/filter", {"logs": {"flow_run_id": {"any_": [r["id"] for r in runs]}},
                                                 "limit": 200})
        assert any(log["message"].startswith("batch 1: QC over") for log in logs)  # hitflow's lines, in Prefect
        assert any(log["message"].startswith("batch 5: QC over") for log in logs)
        artifacts = shell.api("POST", "artifacts/filter", {"artifacts": {"flow_run_id": {
            "any_": [r["id"] for r in runs]}}})
        assert {a["type"] for a in artifacts} >= {"markdown", "table"}  # each batch's summary and flag table


@pytest.mark.slow
def test_work_pool_page(tmp_path: Path) -> None:
    """The page's one block: two campaigns deployed on one pool, two workers, one run each; both
    campaigns end done in the one ledger, each worker ran one of them."""
    with reader(tmp_path, PAGE_POOL) as (shell, blocks):
        [block] = blocks
        where = f"{PAGE_POOL}:{block.line}"
        said = [shell.run(command, where) for command in shell.commands(block)]
        assert sum("registered" in s for s in said) == 2
        db = tmp_path / "runs" / "hitflow.db"
        names = ("vizwiz_captions", "flickr8k_captions")

        def statuses() -> dict[str, str]:
            return {c["campaign"]: c["status"] for c in campaign_status(Store(db))} if db.exists() else {}

        until("both campaigns to be done", lambda: statuses() == dict.fromkeys(names, "done"), 1500)
        for name in names:
            assert (tmp_path / "runs" / name / "dataset.json").is_file()
            assert (tmp_path / "runs" / name / "report.html").is_file()
        workers = [log.read_text() for log in shell.logs if "prefect-worker-start" in log.name]
        assert [text.count("submitting flow run") for text in workers] == [1, 1], \
            [text[-2000:] for text in workers]  # one campaign on each worker
        runs = shell.api("POST", "flow_runs/filter", {})  # the reader's own server: this page's runs only
        assert sorted(r["state_type"] for r in runs) == ["COMPLETED", "COMPLETED"]
