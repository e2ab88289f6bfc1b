"""Regressions from code that branched on the platform's name sent Prolific and links
campaigns down MTurk's path. A resumed Prolific campaign crashed in MTurk's reconcile
(``'ProlificClient' object has no attribute 'list_hits'``), ``--dry-run --platform prolific``
planned HITs, and the scheduled next-batch flow had to carry the platform itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.errors import ConfigError
from flows.core.ledger.store import SETTLED, Store
from flows.core.run.run_context import Run
from flows.driver.campaign import StepFn, call_directly
from flows.driver.campaign_run import run_campaign
from flows.platforms.prolific import adapter as prolific_adapter
from flows.sim.service.server import SimServer
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"
NAME = "vizwiz_captions"
COLUMNS = ["image_id", "worker_id", "caption", "is_precanned", "is_rejected", "batch"]


def quiet(_: str) -> None:
    pass


def _dataset(out: Path) -> pd.DataFrame:
    frame = pd.read_csv(out / NAME / "dataset.csv", keep_default_na=False)
    return frame[COLUMNS].sort_values(COLUMNS).reset_index(drop=True)


def _prolific(sim: SimServer, config: Path, db: Path, out: Path, **kwargs: Any) -> dict[str, Any]:
    return run_campaign(config, endpoint_url=sim.url, db_path=db, out_root=out, progress=quiet,
                        platform="prolific", **kwargs)


@pytest.fixture(scope="module")
def three_batches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo (its top-ups kept) on its first 15 images: three batches of one study's worth each (the stops
    below are after batch 1 and in batch 3, with a batch after each; more batches or images only cost CPU)."""
    return small_vizwiz(tmp_path_factory.mktemp("config"), items=15, top_ups=True,
                        edits={"batches = 5 ": "batches = 3 "})


@pytest.fixture(scope="module")
def uninterrupted(three_batches: Path, tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("whole")
    with SimServer(seed=5) as sim:
        _prolific(sim, three_batches, out / "h.db", out)
    return _dataset(out)


def _studies(sim: SimServer) -> list[str]:
    return sorted(s["internal_name"] for s in sim.prolific.studies.values())


def stop_after_batch_1(name: str, fn: StepFn, run: Run, batch: int) -> dict[str, Any]:
    if batch == 2:
        raise KeyboardInterrupt("stopped after batch 1")
    return call_directly(name, fn, run, batch)


def test_a_prolific_campaign_stopped_after_batch_1_resumes_to_the_same_dataset(uninterrupted: pd.DataFrame,
                                                                               three_batches: Path,
                                                                               tmp_path: Path) -> None:
    with SimServer(seed=5) as sim:
        with pytest.raises(KeyboardInterrupt):
            _prolific(sim, three_batches, tmp_path / "h.db", tmp_path, call=stop_after_batch_1)
        assert _studies(sim) == [f"{NAME} batch 1"]
        _prolific(sim, three_batches, tmp_path / "h.db", tmp_path)  # reconciles on Prolific (no MTurk call), goes on
        assert _studies(sim) == [f"{NAME} batch {b}" for b in range(1, 4)] and not sim.market.hits
    pd.testing.assert_frame_equal(_dataset(tmp_path), uninterrupted)


def test_a_run_killed_after_creating_a_study_adopts_it_on_resume(uninterrupted: pd.DataFrame, three_batches: Path,
                                                                 tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    real_create = prolific_adapter.create_study

    def killed_after_the_call(client: Any, body: dict[str, Any]) -> str:
        study = real_create(client, body)
        if body["internal_name"].endswith("batch 3"):
            raise KeyboardInterrupt("killed before the study's id was written down")
        return study

    with SimServer(seed=5) as sim:
        monkeypatch.setattr(prolific_adapter, "create_study", killed_after_the_call)
        with pytest.raises(KeyboardInterrupt):
            _prolific(sim, three_batches, tmp_path / "h.db", tmp_path)
        monkeypatch.setattr(prolific_adapter, "create_study", real_create)
        store = Store(tmp_path / "h.db")
        assert [e["status"] for e in store.rows("SELECT status FROM ledger WHERE idem_key = ?",
                                                [f"{NAME}:b3:study"])] == ["intended"]
        _prolific(sim, three_batches, tmp_path / "h.db", tmp_path)
        assert _studies(sim) == [f"{NAME} batch {b}" for b in range(1, 4)]  # batch 3's study adopted, not doubled
    assert store.rows("SELECT status FROM ledger WHERE idem_key = ?", [f"{NAME}:b3:study"])[0]["status"] in SETTLED
    pd.testing.assert_frame_equal(_dataset(tmp_path), uninterrupted)


@pytest.mark.parametrize(("platform", "plans", "never"), [
    ("prolific", ["dry run (Prolific): 5 studies", "POST studies/", "PUBLISH (batch 5)"], "CreateHIT"),
    ("links", ["dry run (invite links): 5 invite rounds", "batch 5:", "invites.csv"], "CreateHIT"),
    ("mturk", ["dry run: 10 HITs", "CreateHITWithHITType batch=5", "CreateQualificationType Name=hitflow-"],
     "studies/"),
])
def test_a_dry_run_plans_what_its_platform_makes(platform: str, plans: list[str], never: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    invitees = ["--invite", "ann", "--invite", "bob"] if platform == "links" else []  # elsewhere refused (exit 2)
    main(["run", str(CONFIG), "--dry-run", "--limit", "50", "--platform", platform, *invitees])
    out = capsys.readouterr().out
    assert all(p in out for p in plans), out
    assert never not in out


@pytest.mark.parametrize("platform", ["prolific", "links"])
def test_a_campaign_gated_on_a_paid_test_is_refused_where_no_test_runs(platform: str, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The driver once ran MTurk's paid test HIT whatever the platform: on the links route it posted one on
    the simulator's MTurk, on Prolific it crashed in MTurk's code. Each platform says what it runs (none
    here): the run is one line, as the dry run lists it, before anything is planned or posted."""
    gated = ROOT / "config" / "flickr8k_captions.toml"  # qualification_mode = "html_hit": a paid test HIT
    with SimServer(seed=5) as sim:
        with pytest.raises(ConfigError, match=r"\[gating\] qualification_key: the qualification test runs as an MTurk"):
            run_campaign(gated, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path, limit=10,
                         progress=quiet, platform=platform)
        assert not sim.market.hits and not sim.market.qual_types and not sim.prolific.studies
    assert Store(tmp_path / "h.db").table("items").count == 0  # nothing planned either
    assert main(["run", str(gated), "--dry-run", "--limit", "10", "--platform", platform]) == 1  # a problem there
    assert "PROBLEM" in (out := capsys.readouterr().out) and "the qualification test runs as an MTurk HIT" in out


def test_the_dry_run_names_the_block_qualification_the_run_creates(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HITFLOW_ALLOW_OUTSIDE_PATHS", "1")  # the copy names the repo's files by absolute path
    text = CONFIG.read_text(encoding="utf-8").replace('items = "items/', f'items = "{CONFIG.parent.as_posix()}/items/')
    config = tmp_path / "default_block_name.toml"  # no soft_block_qualification: the name hitflow gives it
    config.write_text("\n".join(line for line in text.splitlines()
                                if not line.startswith("soft_block_qualification")), encoding="utf-8")
    with SimServer(seed=3) as sim:
        with pytest.raises(KeyboardInterrupt):  # batch 1's HITs carry the qualification: the rest only cost CPU
            run_campaign(config, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path, limit=10,
                         progress=quiet, call=stop_after_batch_1)
        created = {q.get("Name") for q in sim.market.qual_types.values()}
    made = {r["name"] for r in Store(tmp_path / "h.db").rows("SELECT name FROM qualifications WHERE purpose = ?",
                                                             ["soft block"])}
    main(["run", str(config), "--dry-run", "--limit", "10"])
    out = capsys.readouterr().out
    assert made and made <= created
    assert all(f"CreateQualificationType Name={name}" in out for name in made), out


@pytest.mark.slow
@pytest.mark.prefect
def test_the_scheduled_next_batch_flow_posts_a_study_on_prolific(tmp_path: Path, on_prefect_server: str,
                                                                three_batches: Path) -> None:
    """On the demo's first 15 images (its whole 500 made batch 1 a study of 100 places: the same path, ~1 s more)."""
    from flows.driver.campaign_flow import next_batch

    with SimServer(seed=5) as sim:
        result = next_batch(config_path=str(three_batches), endpoint_url=sim.url, db_path=str(tmp_path / "h.db"),
                                    out_root=str(tmp_path), platform="prolific")
        assert result["advanced_batch"] == 1
        assert _studies(sim) == [f"{NAME} batch 1"] and not sim.market.hits  # a study, not HITs
    store = Store(tmp_path / "h.db")
    stored = store.rows("SELECT config_json FROM campaigns WHERE name = ?", [NAME])[0]["config_json"]
    assert json.loads(stored)["platform"] == "prolific"
    assert store.batch_status(NAME, 1) == "blocked" and store.batch_status(NAME, 2) == "planned"
