"""``hitflow cancel``, ``status`` and ``reconcile`` on a campaign that ran on a crowd of its own.

Found by hand: ``hitflow cancel vizwiz_full_scale --db L`` on a campaign run on the embedded simulator
with its own crowd file stopped with "simulator state ... belongs to seed 1 and crowd ...; pass those"
(cancel has no --crowd), so the next run posted the remaining batches. The commands reopen the
campaign from its ledger alone: the embedded simulator's file says which crowd built it; a served
simulator is reached at its recorded address. One case per route and simulator kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.sim.service.server import SimServer
from tests.small_configs import ROOT, small_vizwiz
from tests.test_cancel_resume import NAME, hitflow, stop_as_batch_2_collects

CROWD = ROOT / "config" / "crowds" / "vizwiz_full_scale.toml"  # not the default crowd (vizwiz_demo.toml)


def stopped_at_batch_2(tmp_path: Path, platform: str, endpoint_url: str = "") -> tuple[str, Path]:
    """5 images in 5 batches on ``CROWD``, stopped (Ctrl-C) once batch 2 was posted."""
    config, ledger, out = small_vizwiz(tmp_path, items=5), str(tmp_path / "h.db"), tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, db_path=ledger, out_root=out, limit=5, progress=lambda _: None,
                     call=stop_as_batch_2_collects, platform=platform, crowd=CROWD, endpoint_url=endpoint_url)
    return ledger, out


def check_commands(ledger: str, out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert hitflow("status", NAME, "--db", ledger, "--json") == 0
    batches = {b["batch"]: b["status"] for b in json.loads(capsys.readouterr().out)[0]["batches"]}
    assert batches.get(2) not in (None, "cancelled"), batches  # posted, not yet collected
    assert hitflow("reconcile", NAME, "--db", ledger) == 0
    assert hitflow("cancel", NAME, "--db", ledger, "--out", str(out)) == 0
    assert "cancelled" in capsys.readouterr().out
    assert Store(ledger).rows("SELECT status FROM campaigns WHERE name = ?", [NAME])[0]["status"] == "cancelled"


@pytest.mark.parametrize("platform", ["mturk", "prolific", "links"])
def test_cancel_on_the_embedded_simulator_with_a_crowd_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], platform: str) -> None:
    monkeypatch.chdir(tmp_path)
    ledger, out = stopped_at_batch_2(tmp_path, platform)
    check_commands(ledger, out, capsys)


@pytest.mark.parametrize("platform", ["mturk", "prolific", "links"])
def test_cancel_on_a_served_simulator_with_a_crowd_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], platform: str) -> None:
    monkeypatch.chdir(tmp_path)
    with SimServer(crowd_file=CROWD, state=tmp_path / "served.sqlite") as sim:
        ledger, out = stopped_at_batch_2(tmp_path, platform, sim.url)
        check_commands(ledger, out, capsys)
