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


def stop_before_batch_3(name: str, fn: Any, run: Any, batch: int) -> dict[str, Any]:
    """A Ctrl-C once batch 2 is done, before batch 3 is posted."""
    if batch == 3:
        raise KeyboardInterrupt
    return fn(run, batch)  # type: ignore[no-any-return]


# a campaign stopped as batch 2 collects, then resumed: the batches after the stop add nothing to what is checked
TWO_BATCHES = {"batches = 5 ": "batches = 2 "}


def interrupted_in(folder: Path, config: Path, ledger: str, out: Path, monkeypatch: pytest.MonkeyPatch,
                   stop: Any = stop_as_batch_2_collects, platform: str = "mturk") -> None:
    folder.mkdir()
    monkeypatch.chdir(folder)
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, db_path=ledger, out_root=out, limit=5, progress=lambda _: None, call=stop,
                     platform=platform)


def test_a_postgresql_campaign_resumed_from_another_folder_uses_its_own_marketplace(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, out = small_vizwiz(tmp_path, edits=TWO_BATCHES, items=5), tmp_path / "out"
    interrupted_in(tmp_path / "first", config, pg_url, out, monkeypatch)
    (tmp_path / "second").mkdir()
    monkeypatch.chdir(tmp_path / "second")
    summary = run_campaign(config, db_path=pg_url, out_root=out, limit=5, progress=lambda _: None)
    assert summary["captions"] == 5 * 5  # every image, five captions each
    assert not (tmp_path / "second" / "runs").exists()  # no second marketplace was made here


def test_a_postgresql_campaign_whose_marketplace_is_not_here_is_refused(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, out = small_vizwiz(tmp_path, items=5), tmp_path / "out"
    interrupted_in(tmp_path / "first", config, pg_url, out, monkeypatch)
    (tmp_path / "first" / "runs" / "sim").rename(tmp_path / "elsewhere")  # another host's disk
    (tmp_path / "second").mkdir()
    monkeypatch.chdir(tmp_path / "second")
    with pytest.raises(ConfigError, match=r"ran on the embedded simulator kept in .*first/runs/sim/.*--sim-state"):
        run_campaign(config, db_path=pg_url, out_root=out, limit=5, progress=lambda _: None)
    assert not (tmp_path / "second" / "runs").exists()


def test_a_campaign_that_ran_on_a_served_simulator_is_not_resumed_on_the_embedded_one(
        sim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, out, ledger = small_vizwiz(tmp_path, edits=TWO_BATCHES, items=5), tmp_path / "out", str(tmp_path / "h.db")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, endpoint_url=sim.url, db_path=ledger, out_root=out, limit=5, progress=lambda _: None,
                     call=stop_as_batch_2_collects)
    with pytest.raises(ConfigError, match=f"ran on {sim.url}, not on the embedded simulator: pass --endpoint-url"):
        run_campaign(config, db_path=ledger, out_root=out, limit=5, progress=lambda _: None)
    assert not (tmp_path / "sim").exists()  # no embedded marketplace was made beside the ledger
    summary = run_campaign(config, endpoint_url=sim.url, db_path=ledger, out_root=out, limit=5,
                           progress=lambda _: None)
    assert summary["captions"] == 5 * 5


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_the_status_hint_of_a_cancelled_campaign_copied_as_printed_resumes_it_on_its_ledger(
        platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, the hint was `hitflow run CONFIG --resume-cancelled` without the ledger: copied in a folder
    whose runs/hitflow.db lacks the campaign, it started the campaign afresh there (found by hand).
    Without the platform, a Prolific campaign's hint was refused, exit 2: "already ran on prolific ...;
    running it on mturk would mix two campaigns" (found by hand)."""
    import re
    import shlex

    from flows.cli.main import main
    from flows.core.ledger.store import Store

    config, ledger = small_vizwiz(tmp_path, edits={"batches = 5 ": "batches = 3 "}, items=5), str(tmp_path / "h.db")
    interrupted_in(tmp_path / "work", config, ledger, tmp_path / "out", monkeypatch, stop_before_batch_3, platform)
    assert main(["cancel", "vizwiz_captions", "--db", ledger]) == 0
    capsys.readouterr()
    assert main(["status", "vizwiz_captions", "--db", ledger]) == 0
    hint = re.search(r"`hitflow (run [^`]*--resume-cancelled)`", capsys.readouterr().out)
    assert hint is not None
    assert main([*shlex.split(hint[1]), "--no-prefect"]) == 0
    assert not (tmp_path / "work" / "runs" / "hitflow.db").exists()  # no second ledger in the working folder
    assert Store(ledger).rows("SELECT status FROM campaigns")[0]["status"] == "done"


def test_resume_cancelled_on_a_ledger_without_the_campaign_posts_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`--resume-cancelled` with the wrong --db (or none) started the campaign afresh (found by hand):
    the operator asked to resume, so it is refused in one line before anything is planned or posted."""
    from flows.cli.main import main
    from flows.core.ledger.store import Store

    monkeypatch.chdir(tmp_path)
    ledger = str(tmp_path / "elsewhere.db")
    code = main(["run", str(small_vizwiz(tmp_path, items=5)), "--no-prefect", "--db", ledger, "--resume-cancelled"])
    said = capsys.readouterr().err
    assert code == 2 and "has no campaign vizwiz_captions to resume" in said and said.count("\n") == 1, said
    assert not Path(ledger).exists() or Store(ledger).rows("SELECT count(*) AS n FROM hits")[0]["n"] == 0


def test_the_status_hint_names_a_served_simulator_or_endpoint_and_not_the_embedded_one() -> None:
    """A campaign on `hitflow sim serve` is refused when resumed without its --endpoint-url (above); the
    embedded simulator records its file (and a port of its own), which a resumed run finds by itself."""
    from flows.driver.campaign_status import route_options

    served = {"target_kind": "sim", "endpoint_url": "http://127.0.0.1:18931", "sim_state": ""}
    assert route_options(served, "mturk") == "--endpoint-url http://127.0.0.1:18931"
    embedded = {**served, "sim_state": "/tmp/x/sim/vizwiz_demo-seed1.db"}
    assert route_options(embedded, "mturk") == ""
    assert route_options(embedded, "links") == "--platform links"
    other = {"target_kind": "mturk", "endpoint_url": "https://mturk.example.org", "sim_state": ""}
    assert route_options(other, "mturk") == "--target mturk --live --endpoint-url https://mturk.example.org"
