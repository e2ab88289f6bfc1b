"""Invite links on the embedded simulator (the default target) with real people at a running task
server (``--task-url``): the batch's window runs on the wall clock. It ran on the embedded
simulator's virtual clock, which moves only while a run waits on it: a run that leaves an open
batch waits on nothing, so every return said "1 s left" and the round never closed by its time
(found by hand: "45 s left (closes 16:13 UTC)" at 16:14, on every re-run).

The honest ending then speaks of invite rounds, not of HITs: it said "batch(es) 1, 2 not posted" (a
round posts no HIT) and told the operator to extend HITs with UpdateExpirationForHIT; and it counts an
answer that came after its round closed (late work, reviewed by the next run), which it left out."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import form_fields
from flows.taskserver.task_server_thread import TaskServer
from flows.taskserver.task_site import TaskSite
from tests.small_configs import small_vizwiz

WINDOW_S = 2


def test_an_invite_round_on_the_embedded_simulator_closes_when_its_time_is_up(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = small_vizwiz(tmp_path, items=10, edits={"batches = 5 ": "batches = 2 ",
                                                    "hit_lifetime_s = 604800": f"batch_open_s = {WINDOW_S}"})
    db, out = tmp_path / "h.db", tmp_path / "runs"
    cfg = load_config(config)
    with TaskServer(TaskSite(db, {cfg.name: cfg})) as server:
        run = ["run", str(config), "--platform", "links", "--task-url", server.url, "--invite", "ann",
               "--no-prefect", "--db", str(db), "--out", str(out)]
        assert main(run) == 9  # published; nobody has answered: the run leaves the round open
        assert "batch 1 open: 0/5 in" in capsys.readouterr().out
        ann = httpx.Client(timeout=30)
        page = ann.get(pd.read_csv(out / cfg.name / "invites.csv")["link"][0]).text  # opened, not sent yet
        time.sleep(WINDOW_S + 0.5)
        assert main(run) == 9  # round 1's time is up: it closes with what came in (nothing); round 2 opens
        said = capsys.readouterr().out
        assert "batch 1: 0/5 places filled, 1 in progress; closing now" in said and "batch 2 open" in said, said
        assert ann.post(f"{server.url}/task/{cfg.name}/submit", data=_filled(page)).status_code == 200  # late
        time.sleep(WINDOW_S + 0.5)
        code = main(run)
    said = capsys.readouterr()
    assert code == 8 and "incomplete" in said.err
    ending = said.out[said.out.index("INCOMPLETE: batch 1"):]
    for batch, got in ((1, 1), (2, 0)):
        assert f"batch {batch}: {got} of 5 places filled when the round closed (invite more people" in ending, ending
    assert "not posted" not in ending and "HIT" not in ending and "batch_open_s" in ending, ending


def _filled(page: str) -> dict[str, str]:
    """The page's form as a person sends it: every caption written, every question answered."""
    answers = {"caption": "A late caption written after the round had closed, on a kitchen table.",
               "text_present": "no", "start_ms": "1700000000000", "end_ms": "1700000060000"}
    return {f.name: answers.get(f.name.rsplit("_", 1)[0], f.value or "") for f in form_fields(page)}
