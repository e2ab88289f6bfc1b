"""A run on the embedded simulator writes its outputs after the simulator stopped (its marketplace
no longer resident at the run's peak), having asked the platform first for what the outputs need."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flows.core.ledger.store import Store
from flows.driver import campaign_run
from flows.platforms import targets
from tests.test_flickr8k_campaign import CONFIG, CROWD, NAME, config_copy, quiet


def test_outputs_are_written_once_the_embedded_simulator_stopped(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    text = CONFIG.read_text().replace('qualification_mode = "html_hit"', 'qualification_mode = "mturk_test"')
    cfg_path = config_copy(tmp_path, text)
    open_simulators: list[int] = []
    write = campaign_run.write_campaign_outputs

    def noting(*args: Any, **kwargs: Any) -> dict[str, Any]:
        open_simulators.append(len(targets._SHARED))  # the in-process simulators still running
        return write(*args, **kwargs)

    monkeypatch.setattr(campaign_run, "write_campaign_outputs", noting)
    monkeypatch.setenv("HITFLOW_ALLOW_OUTSIDE_PATHS", "1")  # the demo crowd's caption bank is in shared/data
    summary = campaign_run.run_campaign(cfg_path, db_path=tmp_path / "h.db", out_root=tmp_path, limit=20, seed=6,
                                        crowd=CROWD, progress=quiet)
    assert open_simulators == [0]
    assert summary["target"].startswith("simulator (embedded") and summary["captions"] > 0
    assert (tmp_path / NAME / "sim_workers.json").stat().st_size > 2  # the truth, taken before it stopped
    store = Store(tmp_path / "h.db")
    scores = store.rows("SELECT worker_id FROM qualification_scores WHERE campaign = ? AND mode = 'mturk_test'",
                        [NAME])
    captioners = {r["worker_id"] for r in store.rows("SELECT DISTINCT worker_id FROM assignments WHERE batch > 0")}
    assert captioners and captioners <= {r["worker_id"] for r in scores}  # asked while the simulator ran
