"""A stopped campaign resumed on the marketplace it posted to, not on a fresh embedded simulator.

With a ledger file, the embedded simulator's marketplace is a file beside it; with a PostgreSQL ledger
it is ``runs/sim`` in the working folder, which differs from folder to folder. The ledger records the
file the campaign ran on, and a resumed run uses it: a fresh, empty marketplace would know none of
the campaign's HITs (found by hand: resumed from another folder, the run's QC went ahead and its
first approval failed with AssignmentDoesNotExist, exit 4). Where that file is not on this host the
run is refused in one line before it touches the platform; so is a campaign that ran on a simulator
(or endpoint) of its own, resumed without ``--endpoint-url``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flows.core.errors import ConfigError
from flows.driver.campaign_run import run_campaign
from tests.small_configs import small_vizwiz


def stop_as_batch_2_collects(name: str, fn: Any, run: Any, batch: int) -> dict[str, Any]:
    """The steps as the driver calls them, with a Ctrl-C once batch 2 is posted and not yet collected."""
    if name.startswith("collect") and batch == 2:
        raise KeyboardInterrupt
    return fn(run, batch)  # type: ignore[no-any-return]


def interrupted_in(folder: Path, config: Path, ledger: str, out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder.mkdir()
    monkeypatch.chdir(folder)
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, db_path=ledger, out_root=out, limit=10, progress=lambda _: None,
                     call=stop_as_batch_2_collects)


def test_a_postgresql_campaign_resumed_from_another_folder_uses_its_own_marketplace(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, out = small_vizwiz(tmp_path, items=10), tmp_path / "out"
    interrupted_in(tmp_path / "first", config, pg_url, out, monkeypatch)
    (tmp_path / "second").mkdir()
    monkeypatch.chdir(tmp_path / "second")
    summary = run_campaign(config, db_path=pg_url, out_root=out, limit=10, progress=lambda _: None)
    assert summary["captions"] == 10 * 5  # every image of both batches, five captions each
    assert not (tmp_path / "second" / "runs").exists()  # no second marketplace was made here


def test_a_postgresql_campaign_whose_marketplace_is_not_here_is_refused(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, out = small_vizwiz(tmp_path, items=10), tmp_path / "out"
    interrupted_in(tmp_path / "first", config, pg_url, out, monkeypatch)
    (tmp_path / "first" / "runs" / "sim").rename(tmp_path / "elsewhere")  # another host's disk
    (tmp_path / "second").mkdir()
    monkeypatch.chdir(tmp_path / "second")
    with pytest.raises(ConfigError, match=r"ran on the embedded simulator kept in .*first/runs/sim/.*--sim-state"):
        run_campaign(config, db_path=pg_url, out_root=out, limit=10, progress=lambda _: None)
    assert not (tmp_path / "second" / "runs").exists()


def test_a_campaign_that_ran_on_a_served_simulator_is_not_resumed_on_the_embedded_one(
        sim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, out, ledger = small_vizwiz(tmp_path, items=10), tmp_path / "out", str(tmp_path / "h.db")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, endpoint_url=sim.url, db_path=ledger, out_root=out, limit=10, progress=lambda _: None,
                     call=stop_as_batch_2_collects)
    with pytest.raises(ConfigError, match=f"ran on {sim.url}, not on the embedded simulator: pass --endpoint-url"):
        run_campaign(config, db_path=ledger, out_root=out, limit=10, progress=lambda _: None)
    assert not (tmp_path / "sim").exists()  # no embedded marketplace was made beside the ledger
    summary = run_campaign(config, endpoint_url=sim.url, db_path=ledger, out_root=out, limit=10,
                           progress=lambda _: None)
    assert summary["captions"] == 10 * 5
