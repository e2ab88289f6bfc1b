"""Invite links on the embedded simulator (the default target) with real people at a running task
server (``--task-url``): the batch's window runs on the wall clock. It ran on the embedded
simulator's virtual clock, which moves only while a run waits on it: a run that leaves an open
batch waits on nothing, so every return said "1 s left" and the round never closed by its time
(found by hand: "45 s left (closes 16:13 UTC)" at 16:14, on every re-run)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.config import load_config
from flows.taskserver.task_server_thread import TaskServer
from flows.taskserver.task_site import TaskSite
from tests.small_configs import small_vizwiz

WINDOW_S = 2


def test_an_invite_round_on_the_embedded_simulator_closes_when_its_time_is_up(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = small_vizwiz(tmp_path, items=5, edits={"batches = 5 ": "batches = 1 ",
                                                    "hit_lifetime_s = 604800": f"batch_open_s = {WINDOW_S}"})
    db, out = tmp_path / "h.db", tmp_path / "runs"
    cfg = load_config(config)
    with TaskServer(TaskSite(db, {cfg.name: cfg})) as server:
        run = ["run", str(config), "--platform", "links", "--task-url", server.url, "--invite", "ann",
               "--no-prefect", "--db", str(db), "--out", str(out)]
        assert main(run) == 9  # published; nobody has answered: the run leaves the round open
        assert "batch 1 open: 0/5 in" in capsys.readouterr().out
        time.sleep(WINDOW_S + 0.5)
        code = main(run)  # the round's time is up: it closes with what came in (nothing), honestly
    said = capsys.readouterr()
    assert "batch 1 open" not in said.out, said.out
    assert "closing now" in said.out and "0 of 5 places filled when it closed" in said.out
    assert code == 8 and "incomplete" in said.err
