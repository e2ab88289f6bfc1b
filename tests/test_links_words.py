"""What a person reads about a campaign on invite links (``--platform links``), where nobody is paid
through hitflow: the cost line and the overview say so in words (not "0.00 USD over 0 part(s)" or
"$0.00 spent"); a re-run with more ``--invite`` names is refused with the command that does invite
them (it was silently ignored); the simulator's ground-truth table is left out when no simulated
worker met the campaign; and a flagged worker's alike evidence is said once, with a count."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pandas as pd
import pytest

from flows.campaigns.summary import summarize
from flows.cli.main import main
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.driver.campaign_status import campaign_status
from flows.review.overview_app import OverviewServer, OverviewSite
from flows.taskserver.task_server_thread import TaskServer
from flows.taskserver.task_site import TaskSite
from postprocess.telemetry_report import flagged_workers
from tests.small_configs import small_vizwiz


def test_a_links_campaign_says_nobody_is_paid_and_refuses_invitees_added_on_a_re_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = small_vizwiz(tmp_path, items=10)
    db, out = tmp_path / "h.db", tmp_path / "runs"
    cfg = load_config(config)
    with TaskServer(TaskSite(db, {cfg.name: cfg})) as server:
        route = ["--platform", "links", "--task-url", server.url, "--no-prefect", "--db", str(db), "--out", str(out)]
        # named invitees, nobody has opened a link yet: the batch is left open (exit 9)
        assert main(["run", str(config), *route, "--invite", "ann", "--invite", "bo"]) == 9
        said = capsys.readouterr().out
        assert "nothing is paid through hitflow" in said and "part(s)" not in said and "estimate 0.00" not in said
        invites = out / cfg.name / "invites.csv"
        assert list(pd.read_csv(invites)["name"]) == ["ann", "bo"]
        # more names on a re-run: refused in one line that names the command that invites them
        assert main(["run", str(config), *route, "--invite", "ann", "--invite", "cy", "--invite", "di"]) == 2
        refused = capsys.readouterr().err.strip()
        assert len(refused.splitlines()) == 1 and "does not add people" in refused, refused
        assert f"hitflow serve --campaign {config} --db {db} --invite cy --invite di" in refused
        assert list(pd.read_csv(invites)["name"]) == ["ann", "bo"]  # nothing changed
        # the names it has invited are no news: the re-run collects the open batch as before
        assert main(["run", str(config), *route, "--invite", "bo"]) == 9
    # the overview says in words that the route pays nobody, not "$0.00 spent"
    [status] = campaign_status(Store(db))
    assert status["paid"] is False
    site = OverviewSite(db_path=db, out_root=out, read_status=campaign_status)
    with OverviewServer(site) as overview:
        web = httpx.Client(base_url=overview.url)
        page = web.get(f"/?token={site.login_token}", follow_redirects=True)
    money = page.text.split('<p class="money">')[1].split("</p>")[0]
    assert "nothing is paid through hitflow" in money and "$" not in money


def _outputs(folder: Path, worked: list[str]) -> Path:
    """A run's output files as summarize() reads them: captions by ``worked``, and the simulator's crowd
    (its ground truth) of three workers."""
    folder.mkdir()
    pd.DataFrame({"image_id": ["i1"] * len(worked), "worker_id": worked, "assignment_id": [f"A{i}" for i, _ in
                  enumerate(worked)], "is_rejected": False, "is_precanned": False}).to_csv(folder / "dataset.raw.csv")
    pd.DataFrame({"worker_id": [], "batch": []}).to_csv(folder / "blocked_workers.csv", index=False)
    pd.DataFrame({"rule": [], "assignment_id": []}).to_csv(folder / "flags.csv", index=False)
    profiles = ["diligent", "speeder", "typo_prone"]
    crowd = [{"worker_id": f"SIM{i}", "profile": profile} for i, profile in enumerate(profiles)]
    (folder / "sim_workers.json").write_text(json.dumps(crowd), encoding="utf-8")
    return folder


def test_the_ground_truth_table_only_when_a_simulated_worker_met_the_campaign(tmp_path: Path) -> None:
    invitees = summarize(_outputs(tmp_path / "named", ["ann", "bo"]))  # --invite ann --invite bo: people
    assert invitees.startswith("captions: 2") and "ground truth" not in invitees
    crowd = summarize(_outputs(tmp_path / "crowd", ["SIM0", "SIM1"]))  # the simulator's crowd took part
    assert "blocked vs the simulator's ground truth" in crowd and "speeder" in crowd


def test_alike_evidence_is_said_once_with_its_count() -> None:
    detail = "typed 0 characters, pasted 99 from outside the page, final text 99 characters"
    flags = pd.DataFrame({"worker_id": ["W1"] * 6, "rule": ["paste_external"] * 5 + ["untyped_text"],
                          "detail": [detail] * 5 + ["typed 3 of 80 characters"]})
    [row] = flagged_workers(flags, pd.DataFrame({"worker_id": [], "batch": []})).to_dict("records")
    assert row["flags"] == 6 and row["rules"] == "paste_external x5, untyped_text x1"
    assert row["evidence"] == [f"paste_external: {detail} (5 flags)", "untyped_text: typed 3 of 80 characters"]
