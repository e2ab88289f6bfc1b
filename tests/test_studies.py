"""The five evaluation studies end to end on the simulator, as MTurk HITs and as self-hosted
invite links (and the severity study on simulated Prolific): pages served, answers stored,
checked, decided, analysed and reported; the analysis recovers what the simulated judges knew."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

from flows.cli.main import main
from flows.core.config.config import load_config
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.core.pages.mturk_forms import parse_answer_xml
from flows.driver.campaign_run import run_campaign
from flows.driver.campaign_status import campaign_status
from flows.studies.study_plan import page_spec, study_tasks
from qc.judgement_spec import check_answers
from tests.unseen_figures import figures_seen  # noqa: F401  (autouse: its reports' PNGs are checked)

CONFIG = Path(__file__).resolve().parents[1] / "config"
KINDS = ("expert_rating", "crowd_selection", "error_analysis", "pairwise_grading", "severity_rating")


def run_study(tmp_path: Path, kind: str, platform: str) -> tuple[dict, Store, Path]:
    out = tmp_path / "runs"
    summary = run_campaign(CONFIG / f"{kind}.toml", db_path=tmp_path / "h.db", out_root=out, platform=platform,
                           progress=lambda _: None)
    return summary, Store(tmp_path / "h.db"), out / kind


StudyRun = Callable[[str, str], tuple[dict, Store, Path]]


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> StudyRun:
    """Each (study, route) run once for this module: the end-to-end test and the tests below that read
    the same config on the same route (severity on MTurk, expert rating on MTurk, pairwise on links) share
    it; they only read its ledger and outputs (a run is ~1.5-3 s of CPU)."""
    runs: dict[tuple[str, str], tuple[dict, Store, Path]] = {}

    def run(kind: str, platform: str) -> tuple[dict, Store, Path]:
        if (kind, platform) not in runs:
            runs[kind, platform] = run_study(tmp_path_factory.mktemp(f"{kind}-{platform}"), kind, platform)
        return runs[kind, platform]
    return run


@pytest.mark.parametrize("platform", ["mturk", "links"])
@pytest.mark.parametrize("kind", KINDS)
def test_study_runs_end_to_end(study: StudyRun, kind: str, platform: str) -> None:
    _summary, store, out = study(kind, platform)
    cfg = load_config(CONFIG / f"{kind}.toml")
    units = store.rows("SELECT COUNT(DISTINCT hit_index) AS n FROM items WHERE campaign = ?", [kind])[0]["n"]
    responses = store.rows("SELECT * FROM assignments WHERE campaign = ?", [kind])
    assert len(responses) == units * cfg.assignments_per_image  # every unit got its planned responses
    decisions = {d["assignment_id"]: d for d in store.rows("SELECT * FROM decisions WHERE campaign = ?", [kind])}
    assert set(decisions) == {r["assignment_id"] for r in responses}
    applied = {d["applied"] for d in decisions.values()}
    assert applied == ({"self-hosted"} if platform == "links" else applied - {"", "self-hosted"})
    for name in ("judgements.csv", "analysis.json", "flags.csv", "report.html", "study_summary.txt"):
        assert (out / name).is_file(), name
    assert (out / "study_summary.txt").read_text(encoding="utf-8").endswith("\n")  # its last line ends too
    report = (out / "report.html").read_text()
    assert "data:image/png;base64," in report and "<script" not in report
    # Responses rejected or flagged by QC never reach the analysis.
    flagged = {f["assignment_id"] for f in store.rows("SELECT assignment_id FROM qc_flags WHERE campaign = ?", [kind])}
    rejected = {a for a, d in decisions.items() if d["action"] != "approve"} | flagged
    bad_workers = {r["worker_id"] for r in responses if r["assignment_id"] in rejected}
    kept_workers = {r["worker_id"] for r in responses if r["assignment_id"] not in rejected}
    judged = pd.read_csv(out / "judgements.csv", dtype=str)
    who = "participant_id" if kind == "severity_rating" else "worker_id"
    assert set(judged[who]) <= kept_workers and not (set(judged[who]) & (bad_workers - kept_workers))
    assert_analyze_reproduces(kind, cfg.study.analysis_level if cfg.study else "nominal", out)


ANALYZE_KIND = {"expert_rating": "ratings", "crowd_selection": "ratings", "error_analysis": "errors",
                "pairwise_grading": "pairwise", "severity_rating": "severity"}


def headline_figures(kind: str, a: dict) -> dict:
    """A study's headline figures with their bootstrap intervals."""
    if kind in ("expert_rating", "crowd_selection"):
        return {"mean": a["mean_of_means"], "alpha": a["agreement"]["krippendorff_alpha"], **a["intervals"]}
    if kind == "error_analysis":
        return {"share": a["congruent_share"], **a["intervals"]}
    if kind == "pairwise_grading":
        return {dim: d["bradley_terry"] for dim, d in a["dimensions"].items()}
    return {"F": a["anova"]["F"], "eta2": a["anova"]["eta2"], "participants": a["participants"], **a["intervals"]}


def assert_analyze_reproduces(kind: str, level: str, out: Path) -> None:
    """`hitflow analyze` on the exported judgements gives the report's figures and intervals exactly."""
    from flows.studies.analysis import analyze

    reported = json.loads((out / "analysis.json").read_text())
    figures = headline_figures(kind, reported)
    intervals = [v for v in figures.values() if isinstance(v, dict) and "low" in v] or \
        [v for dim in figures.values() for v in dim.values() if kind == "pairwise_grading"]
    assert intervals and all(v.get("low", v.get("boot_low")) is not None for v in intervals)
    if kind != "pairwise_grading":  # an interval with width, around its estimate's side of the data
        assert all(v["resamples"] == 1000 and v["low"] < v["high"] for v in intervals), figures
    again = analyze(ANALYZE_KIND[kind], out / "judgements.csv", level=level if kind == "expert_rating" else "nominal")
    assert headline_figures(kind, json.loads(json.dumps(again, default=str))) == figures


def test_server_side_check_rejects_a_bypassed_page(study: StudyRun) -> None:
    """Rule-breaking judges leave questions blank as if the page's script were bypassed: the
    server applies the same spec, rejects the response and records why."""
    _, store, _ = study("severity_rating", "mturk")
    problems = store.rows("SELECT * FROM response_problems WHERE campaign = 'severity_rating'")
    assert problems, "the crowd's rule-breakers should have left answers blank"
    rejected = {d["assignment_id"] for d in store.rows("SELECT assignment_id FROM decisions WHERE action = 'reject'")}
    assert {p["assignment_id"] for p in problems} == rejected
    for a in store.rows("SELECT * FROM assignments WHERE assignment_id IN (SELECT assignment_id FROM decisions "
                        "WHERE action = 'approve')"):
        fields = parse_answer_xml(a["answer_xml"])
        assert fields["age"] and fields["colour_blind"] in ("yes", "no")


def truth(kind: str) -> dict[str, str]:
    with (CONFIG / "items" / f"{kind}_items.csv").open(newline="", encoding="utf-8") as fh:
        return {r.get("item_id") or f"{r['image_id']}#{r.get('sentence_id') or r.get('system')}": r["sim_truth"]
                for r in csv.DictReader(fh)}


def test_expert_scores_follow_the_judges_truth(study: StudyRun) -> None:
    summary, _, _ = study("expert_rating", "mturk")
    per_pair = summary["analysis"]["per_pair"]
    known = truth("expert_rating")
    rho = stats.spearmanr([per_pair[i] for i in per_pair], [int(known[i]) for i in per_pair]).statistic
    assert rho > 0.7
    assert summary["analysis"]["agreement"]["krippendorff_alpha"] > 0.5


def test_expert_rating_study_answers_beat_a_single_judge(study: StudyRun) -> None:
    """The simulated judges rate around each item's sim_truth: the aggregated answer matches it more
    often than one judgement does (an independent check: the truth comes from the item file). On this
    module's expert rating run (tests/test_answers_campaign.py ran the same config and route again)."""
    _, _, out = study("expert_rating", "mturk")
    known = truth("expert_rating")
    judged = pd.read_csv(out / "judgements.csv", dtype=str)
    answers = pd.read_csv(out / "answers.csv", dtype=str)
    assert set(answers["item_id"]) == set(judged["item_id"]) and set(answers["field"]) == {"label"}
    single = (judged["label"] == judged["item_id"].map(known)).mean()
    aggregated = (answers["label"] == answers["item_id"].map(known)).mean()
    assert aggregated >= single and aggregated > 0.5
    assert "Answers and worker skill" in (out / "report.html").read_text()


@pytest.fixture
def pairwise_on_links(study: StudyRun) -> tuple[dict, Store, Path]:
    """The pairwise study on invite links (the end-to-end test's), read by the two tests below."""
    return study("pairwise_grading", "links")


def test_pairwise_strengths_rank_the_systems_and_order_was_randomised(pairwise_on_links: tuple) -> None:
    summary, store, _ = pairwise_on_links
    bt = summary["analysis"]["dimensions"]["overall"]["bradley_terry"]
    assert bt["captioner-large"]["strength"] > bt["captioner-base"]["strength"] > bt["captioner-tiny"]["strength"]
    payloads = [json.loads(r["payload"]) for r in store.rows("SELECT payload FROM items WHERE campaign = ? "
                                                              "ORDER BY rowid", ["pairwise_grading"])]
    assert {p["flipped"] for p in payloads} == {0, 1}
    images = [p["image"] for p in payloads]
    assert all(images[k] == images[k + 1] for k in range(0, len(images), 2))  # each image twice in a row
    assert all(payloads[k]["system_a"] + payloads[k]["system_b"] != payloads[k + 1]["system_a"]
               + payloads[k + 1]["system_b"] for k in range(0, len(payloads), 2))


def test_a_links_study_status_says_nobody_is_paid(pairwise_on_links: tuple,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Invitees are not paid through a platform: ``hitflow status`` used to price their approved
    responses at the MTurk reward plus fee ("spent $4.32")."""
    _, store, _ = pairwise_on_links
    assert main(["status", "--db", str(store.location)]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("pairwise_grading (done) on ") and "nothing is paid through a platform" in line
    assert "$" not in line
    status = campaign_status(store, "pairwise_grading")[0]
    assert (status["committed"], status["spent"], status["paid"]) == ("0.00", "0.00", False)


def test_severity_study_on_prolific_screens_and_recovers_the_error_ranking(tmp_path: Path, capsys) -> None:
    summary, store, out = run_study(tmp_path, "severity_rating", "prolific")
    a = summary["analysis"]
    means = {c: v["mean"] for c, v in a["conditions"].items()}
    assert max(means, key=means.get) == "age"  # the judges' truth: age 54, type 47, colour 42, gender 41
    age_gender = next(p for p in a["pairs"] if {p["a"], p["b"]} == {"age", "gender"})
    assert age_gender["p_bonferroni"] < 0.05  # seed 004's Hypothesis 2 holds in the simulated crowd
    assert a["anova"]["p_gg"] < 0.05 and 0 < a["anova"]["gg_epsilon"] <= 1
    screened = pd.read_csv(out / "excluded_participants.csv")
    people = pd.read_csv(out / "participants.csv", dtype=str)
    bad = people[(people["colour_blind"] == "yes") | (people["proficiency"] == "beginner")]
    # the screen must bite: the demo crowd's planted beginners/colour-blind are out (a
    # security fix dropped page-level answers, the screen saw nobody and both sets were empty)
    assert len(bad) > 0 and set(bad["participant_id"]) <= set(screened["participant_id"])
    assert a["participants"] == people["participant_id"].nunique() - len(screened) > 0
    assert not set(screened["participant_id"]) & set(pd.read_csv(out / "judgements.csv", dtype=str)
                                                     ["participant_id"]) - set(screened["participant_id"])
    calibration = pd.read_csv(out / "calibration.csv")
    assert set(calibration["role"]) == {"calibration"} and len(calibration) > 0
    positions = pd.read_csv(out / "judgements.csv").groupby("participant_id")["position"].apply(tuple)
    assert positions.nunique() > 1  # a fresh order per participant
    subs = store.rows("SELECT status FROM platform_submissions WHERE campaign = 'severity_rating'")
    assert len(subs) >= 30 and {s["status"] for s in subs} <= {"APPROVED", "REJECTED", "RETURNED", "TIMED-OUT"}
    assert sum(s["status"] == "APPROVED" for s in subs) == sum(summary["decisions"].get(k, 0) for k in ("approve",))
    # the exported table marks the screened-out people, so the CLI's analysis of it is the report's
    marked = pd.read_csv(out / "judgements.csv", dtype=str)
    assert set(marked[marked["excluded"] == "1"]["participant_id"]) == set(screened["participant_id"])
    # answers.csv: each stimulus' median score over the kept participants, as pandas computes it from the file
    kept = marked[(marked["excluded"] == "0") & ~marked["participant_id"].isin(
        set(pd.read_csv(out / "blocked_workers.csv", dtype=str)["worker_id"]))]
    medians = kept.assign(score=kept["score"].astype(float)).groupby("item_id")["score"].median()
    answers = pd.read_csv(out / "answers.csv", dtype={"item_id": str}).set_index("item_id")
    assert set(answers["field"]) == {"score"} and set(answers["method"]) == {"median"}
    assert answers["label"].astype(float).round(6).to_dict() == medians.round(6).to_dict()
    assert (answers["low"] <= answers["label"]).all() and (answers["label"] <= answers["high"]).all()
    workers = pd.read_csv(out / "workers.csv", dtype={"worker_id": str})
    assert set(workers["worker_id"]) == set(kept["participant_id"])
    # `hitflow analyze` on the file alone, through the CLI's main() in this process (a Python started for it
    # spent ~2.3 s of CPU, 1.6 s of it importing what this process has loaded): it reads only the CSV
    capsys.readouterr()
    assert main(["analyze", "severity", str(out / "judgements.csv")]) == 0
    redone = json.loads(capsys.readouterr().out)
    assert redone["participants"] == a["participants"] and redone["anova"]["F"] == a["anova"]["F"]


def test_study_plans_and_specs() -> None:
    rows = [{"image_id": "im", "image_url": "https://x.org/a.jpg", "reference": "r", "system": s,
             "description": f"d{s}"} for s in ("a", "b", "c")]
    tasks = study_tasks("pairwise_grading", rows, 2, seed=1)
    assert len(tasks) == 2 and tasks[0]["payload"]["image"] == tasks[1]["payload"]["image"] == "im"
    with pytest.raises(Exception, match="too few"):
        study_tasks("pairwise_grading", rows[:2], 2, seed=1)
    spec = page_spec("error_analysis", [{"payload": {}}])
    assert check_answers(spec, {"congruent_0": "incongruent", "categories_0": ""})[0]["rule"] == "categories_missing"
    assert check_answers(spec, {"congruent_0": "congruent", "categories_0": "age"})[0]["rule"] == \
        "categories_with_congruent"
    assert check_answers(spec, {"congruent_0": "congruent", "categories_0": ""}) == []


def test_bad_study_configs_are_refused_with_the_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HITFLOW_ALLOW_OUTSIDE_PATHS", "1")  # the copy names the repo's items by absolute path
    text = (CONFIG / "pairwise_grading.toml").read_text().replace(
        '"items/pairwise_grading_items.csv"', f'"{CONFIG / "items" / "pairwise_grading_items.csv"}"')
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('kind = "pairwise_grading"', 'kind = "expert_rating"'))
    with pytest.raises(ConfigError, match=r"\[study\]\.kind must match"):
        load_config(bad)
    items = tmp_path / "items.csv"
    items.write_text("image_id,image_url,reference,system\nx,javascript:alert(1),r,s\n")
    bad.write_text(text.replace(str(CONFIG / "items" / "pairwise_grading_items.csv"), str(items)))
    with pytest.raises(Exception, match="missing column"):
        load_config(bad)


def test_a_study_s_history_rules_read_its_answers_in_the_same_order_however_they_arrived(
        study: StudyRun, tmp_path: Path) -> None:
    """item_blind over a study's history reads the answers in order (a split item's other answer stands): the
    same answers stored in another order (threads submit as they finish) must give the same frame, or the same
    seed flags a worker with another value from run to run."""
    import sqlite3

    from flows.core.run.run_context import Run
    from flows.studies.study_review import batch_answers

    _summary, store, _out = study("pairwise_grading", "links")
    cfg = load_config(CONFIG / "pairwise_grading.toml")
    batches = [r["batch"] for r in store.rows("SELECT DISTINCT batch FROM assignments WHERE campaign = ? AND "
                                              "batch > 0 ORDER BY batch", [cfg.name])]
    copy = tmp_path / "reversed.db"
    with sqlite3.connect(store.rows("PRAGMA database_list")[0]["file"]) as source, sqlite3.connect(copy) as into:
        source.backup(into)  # the write-ahead log's rows too
    reversed_store = Store(copy)
    rows = reversed_store.rows("SELECT * FROM assignments ORDER BY rowid DESC")
    assert len(rows) > 0
    with reversed_store.transaction():
        reversed_store.execute("DELETE FROM assignments")
        reversed_store.table("assignments").insert_all(rows)
    stored = reversed_store.rows("SELECT assignment_id FROM assignments ORDER BY rowid")
    assert [r["assignment_id"] for r in stored] == [r["assignment_id"] for r in rows]  # in the other order
    for batch in batches:
        kept = batch_answers(Run(cfg, store, None, None), batch)  # type: ignore[arg-type]
        again = batch_answers(Run(cfg, reversed_store, None, None), batch)  # type: ignore[arg-type]
        assert len(kept) > 0
        pd.testing.assert_frame_equal(kept, again)
