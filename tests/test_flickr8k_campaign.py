"""The Flickr8k description campaign on the simulator: qualification first, gated captioning
after, in both test modes; the scores in the dataset's lineage and in the report."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Iterator
from pathlib import Path

import boto3
import pandas as pd
import pytest

from flows.core.config.config import load_config
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.sim.service.server import SimServer
from qc.submit_rules import violations

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "flickr8k_captions.toml"
CROWD = ROOT / "config" / "crowds" / "flickr8k_demo.toml"
NAME = "flickr8k_captions"


def quiet(_: str) -> None:
    pass


@pytest.fixture(scope="module")
def flickr_sim() -> Iterator[SimServer]:
    # the crowd's caption bank is ../shared/data, outside the config folder: allowed explicitly
    with pytest.MonkeyPatch.context() as env:
        env.setenv("HITFLOW_ALLOW_OUTSIDE_PATHS", "1")
        with SimServer(seed=5, crowd_file=CROWD) as server:
            yield server


@pytest.fixture(scope="module")
def finished(flickr_sim: SimServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("flickr")
    run_campaign(CONFIG, endpoint_url=flickr_sim.url, db_path=root / "h.db", out_root=root, progress=quiet)
    return root / "h.db", root / NAME


def boto(sim: SimServer):
    return boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1",
                        aws_access_key_id="dummy", aws_secret_access_key="dummy")


def test_only_workers_who_passed_did_captioning(finished: tuple[Path, Path]) -> None:
    db, _out = finished
    store = Store(db)
    scores = {r["worker_id"]: r for r in store.rows("SELECT * FROM qualification_scores WHERE campaign = ?", [NAME])}
    captioners = {r["worker_id"] for r in store.rows(
        "SELECT DISTINCT worker_id FROM assignments WHERE campaign = ? AND batch > 0", [NAME])}
    assert len(scores) == 45 and captioners
    assert all(scores[w]["passed"] and scores[w]["score"] >= 80 for w in captioners)
    failed = {w for w, r in scores.items() if not r["passed"]}
    assert failed and not failed & captioners


def test_scores_are_granted_as_the_qualification_value(flickr_sim: SimServer, finished: tuple[Path, Path]) -> None:
    db, _ = finished
    store = Store(db)
    qual_id = store.rows("SELECT qualification_type_id FROM qualifications WHERE campaign = ? AND purpose = ?",
                         [NAME, "test score"])[0]["qualification_type_id"]
    granted = {q["WorkerId"]: q["IntegerValue"] for q in boto(flickr_sim).list_workers_with_qualification_type(
        QualificationTypeId=qual_id, MaxResults=100)["Qualifications"]}
    scores = {r["worker_id"]: r["score"] for r in store.rows(
        "SELECT worker_id, score FROM qualification_scores WHERE campaign = ?", [NAME])}
    assert granted == {w: math.floor(s) for w, s in scores.items()}
    caption_type = store.rows("SELECT params_json FROM hit_types WHERE campaign = ? AND batch > 0", [NAME])[0]
    reqs = json.loads(caption_type["params_json"])["QualificationRequirements"]
    assert {"QualificationTypeId": qual_id, "Comparator": "GreaterThanOrEqualTo", "IntegerValues": [80],
            "ActionsGuarded": "Accept"} in reqs


def test_the_test_is_paid_pass_or_fail(flickr_sim: SimServer, finished: tuple[Path, Path]) -> None:
    db, _ = finished
    store = Store(db)
    test_hit = store.rows("SELECT hit_id FROM hits WHERE campaign = ? AND batch = 0", [NAME])
    assert len(test_hit) == 1
    statuses = [a["AssignmentStatus"] for a in boto(flickr_sim).list_assignments_for_hit(
        HITId=test_hit[0]["hit_id"], MaxResults=100)["Assignments"]]
    assert len(statuses) == 45 and set(statuses) == {"Approved"}


def test_dataset_carries_the_score_and_the_seed_rules(finished: tuple[Path, Path]) -> None:
    _, out = finished
    cfg = load_config(CONFIG)
    flat = pd.read_csv(out / "dataset.csv", keep_default_na=False)
    assert len(flat) == 250 and flat["image_id"].nunique() == 50
    assert (flat["qualification_score"].astype(float) >= 80).all()
    accepted = flat[flat["is_rejected"] == 0]
    assert all(not violations(c, cfg.submit_rules) for c in accepted["caption_original"])
    data = json.loads((out / "dataset.json").read_text())
    assert all(a["qualification_score"] >= 80 for a in data["annotations"])
    scores = pd.read_csv(out / "qualification_scores.csv")
    assert {"spelling_score", "grammar_score", "judging_score"} <= set(scores.columns)
    report = (out / "report.html").read_text()
    assert "Qualification test" in report and "QC flags by qualification score" in report


def test_a_resumed_run_posts_no_second_test(flickr_sim: SimServer, finished: tuple[Path, Path],
                                            tmp_path: Path) -> None:
    db, _ = finished
    before = len(flickr_sim.market.hits)
    run_campaign(CONFIG, endpoint_url=flickr_sim.url, db_path=db, out_root=tmp_path, progress=quiet)
    assert len(flickr_sim.market.hits) == before


def config_copy(tmp_path: Path, text: str) -> Path:
    """The config written elsewhere with copies of the folders it names (a config's files stay
    in its folder)."""
    for folder in ("items", "qualification", "crowds"):
        shutil.copytree(ROOT / "config" / folder, tmp_path / folder, dirs_exist_ok=True)
    path = tmp_path / "campaign.toml"
    path.write_text(text)
    return path


def test_mturk_scored_test_mode_gates_and_records_scores(tmp_path: Path) -> None:
    text = CONFIG.read_text().replace('qualification_mode = "html_hit"', 'qualification_mode = "mturk_test"')
    cfg_path = config_copy(tmp_path, text)
    with SimServer(seed=6, crowd_file=CROWD) as sim:
        run_campaign(cfg_path, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path, limit=20,
                     progress=quiet)
    store = Store(tmp_path / "h.db")
    assert not store.rows("SELECT * FROM hits WHERE campaign = ? AND batch = 0", [NAME])
    scores = {r["worker_id"]: r for r in store.rows("SELECT * FROM qualification_scores WHERE campaign = ?", [NAME])}
    captioners = {r["worker_id"] for r in store.rows("SELECT DISTINCT worker_id FROM assignments", [])}
    assert scores and captioners <= set(scores)
    assert all(scores[w]["score"] >= 80 and scores[w]["mode"] == "mturk_test" for w in captioners)
    assert all(r["spelling_score"] is None for r in scores.values())  # MTurk reports the total only


@pytest.mark.parametrize("field, value, message", [
    ("qualification_mode", '"paper"', "must be \"mturk_test\" or \"html_hit\""),
    ("qualification_takers", "0", "must be a positive integer"),
    ("qualification_reward_usd", '"abc"', "must be an amount such as"),
])
def test_bad_qualification_settings_are_named(tmp_path: Path, field: str, value: str, message: str) -> None:
    lines = [ln for ln in CONFIG.read_text().splitlines() if not ln.startswith(field)]
    at = lines.index("[gating]") + 1
    lines.insert(at, f"{field} = {value}")
    with pytest.raises(ConfigError, match=f"\\[gating\\].{field} {message}"):
        load_config(config_copy(tmp_path, "\n".join(lines)))


def test_flickr_crowd_writes_from_flickr8k_captions(shared_data: Path) -> None:
    from flows.sim.people.crowd import load_crowd

    workers, bank = load_crowd(CROWD)
    assert len(bank) >= 8000 and len(workers) == 53
    first = pd.read_csv(ROOT / "config" / "items" / "flickr8k_demo_items.csv")["image_id"].iloc[0]
    assert len(bank[first].captions) == 5 and not bank[first].captions[0].endswith(" .")


def test_config_follows_the_seed() -> None:
    cfg = load_config(CONFIG)
    rules = cfg.submit_rules
    assert cfg.images_per_hit == 5 and rules.max_chars == 100 and rules.required and rules.one_sentence
    assert cfg.gating.qualification_key is not None and cfg.gating.qualification_mode == "html_hit"
    assert violations("x" * 101, rules) and not violations("A dog runs on the beach.", rules)


def test_dry_run_lists_the_test_and_counts_its_cost() -> None:
    from flows.campaigns.dry_run import plan_calls
    from flows.platforms.mturk.qualifications import cost_per_assignment, qualification_test_cost

    cfg = load_config(CONFIG)
    plan = plan_calls(cfg)
    assert any(c.startswith("CreateHITWithHITType batch=0 MaxAssignments=45") for c in plan["calls"])
    assert any("QualificationRequirements=4" in c for c in plan["calls"])
    expected = cost_per_assignment(cfg) * 50 + qualification_test_cost(cfg)  # 10 HITs x 5
    assert plan["cost"] == f"{expected:.2f}" and qualification_test_cost(cfg) > 0 and not plan["problems"]


def test_status_and_report_count_the_qualification_test(finished: tuple[Path, Path]) -> None:
    from decimal import Decimal

    from flows.driver.campaign_status import campaign_status, format_status
    from flows.platforms.mturk.qualifications import qualification_test_cost

    db, out = finished
    cfg = load_config(CONFIG)
    planned = qualification_test_cost(cfg)
    status = campaign_status(Store(db), NAME)[0]
    assert planned > 0 and Decimal(status["qualification"]["committed"]) == planned
    assert Decimal(status["committed"]) == sum(Decimal(b["committed"]) for b in status["batches"]) + planned
    paid = Store(db).table("ledger").count_where("batch = 0 AND operation = 'ApproveAssignment' AND status = 'ok'")
    per_taker = planned / cfg.gating.qualification_takers
    assert paid and Decimal(status["qualification"]["spent"]) == (per_taker * paid).quantize(Decimal("0.01"))
    assert f"qualification test: committed ${planned:.2f}" in format_status([status])
    assert f"plus ${status['qualification']['spent']} for the paid qualification test" in \
        (out / "report.html").read_text()


def test_a_blank_caption_posted_around_the_page_is_rejected() -> None:
    """min_words = 0 here, so only the required rule can catch a blank caption; the server runs it
    as batch QC does (the config's rules and parameters) and the config's policy rejects the work."""
    from flows.campaigns.page_text import qc_params
    from qc.decisions import decide
    from qc.runner import prepare, run_rules

    cfg = load_config(CONFIG)
    honest = ["A dog runs on the beach.", "Two girls sit on a bench.", "A man rides a red bike.",
              "A cat sleeps on a sofa.", "Children play in a fountain."]
    rows = [("HONEST", "W1", f"img{k}", text, 60.0) for k, text in enumerate(honest)]
    rows += [("AROUND", "W2", f"img{k}", text, 60.0)
             for k, text in enumerate(["A dog runs on the beach.", "", "   ", "\ufeff", "\u200b\u00a0"])]
    frame = prepare(pd.DataFrame(rows, columns=["assignment_id", "worker_id", "image_id", "caption", "work_time_s"]))
    flags = run_rules(frame, qc_params(cfg, cfg.seed), cfg.qc_rules)
    required = flags[flags["rule"] == "required"]
    assert sorted(required["image_id"]) == ["img1", "img2", "img3", "img4"] and set(required["worker_id"]) == {"W2"}
    decisions = decide(flags, frame, cfg.policy).set_index("assignment_id")
    assert decisions.loc["AROUND", "action"] == "reject" and "required" in decisions.loc["AROUND", "reasons"]
    assert decisions.loc["HONEST", "action"] == "approve"
