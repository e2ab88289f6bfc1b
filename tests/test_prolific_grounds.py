"""On Prolific, a rejection only on Prolific's valid grounds, with its category and the evidence; everything
else a rule finds goes to a person. MTurk keeps its policy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from flows.campaigns.route_policy import route_policy, states_word_counts
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.platforms.prolific.grounds import PROLIFIC_GROUNDS, ground_message
from flows.platforms.prolific.platform import REVIEW_CATEGORIES
from flows.sim.service.server import SimServer
from qc.decisions import DecisionPolicy, decide
from qc.exceptional_speed import exceptionally_fast
from qc.flags import flag_frame
from qc.skipped_required import blank_fields
from qc.study_rules import invalid_answer
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"
NAME = "vizwiz_captions"
# a policy that would reject on a speeder against the median and on disagreeing with the crowd
HARSH = DecisionPolicy(reject_rules=("time_outlier", "consensus", "mark_agreement", "min_words", "required"))


def _flags(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return flag_frame([{"worker_id": w, "rule": rule, "value": 1, "threshold": 0, "assignment_id": a,
                        "detail": f"{rule} on {a}"} for a, w, rule in rows])


def _work(n: int) -> pd.DataFrame:
    return pd.DataFrame({"assignment_id": [f"a{i}" for i in range(n)], "worker_id": [f"w{i}" for i in range(n)]})


def test_faster_than_the_median_and_disagreement_reject_nobody_on_prolific() -> None:
    flags = _flags([("a0", "w0", "time_outlier"), ("a1", "w1", "consensus"), ("a2", "w2", "mark_agreement")])
    on_prolific = decide(flags, _work(4), route_policy(None, "prolific", HARSH))
    assert (on_prolific["action"] == "approve").all()
    assert on_prolific["review"].tolist() == [True, True, True, False]  # each to a person, the clean one not
    on_mturk = decide(flags, _work(4), route_policy(None, "mturk", HARSH))  # MTurk: today's policy
    assert on_mturk["action"].tolist() == ["reject", "reject", "reject", "approve"]


def test_a_ground_rejects_with_its_category_and_a_page_stated_minimum_only_where_stated() -> None:
    flags = _flags([("a0", "w0", "required"), ("a1", "w1", "min_words"), ("a2", "w2", "exceptionally_fast")])
    policy = route_policy(None, "prolific", DecisionPolicy(reject_rules=("required", "min_words",
                                                                         "exceptionally_fast")))
    decided = decide(flags, _work(3), policy).set_index("assignment_id")
    # without a config, no page is known to state its minimum: min_words goes to a person
    assert decided.loc["a0", "action"] == "reject" and decided.loc["a2", "action"] == "reject"
    assert decided.loc["a1", "action"] == "approve" and bool(decided.loc["a1", "review"])
    assert {policy.reject_grounds[r] for r in ("required", "exceptionally_fast")} <= set(REVIEW_CATEGORIES)
    captions = load_config(CONFIG)  # the caption page says "Include at least 8 words"
    assert route_policy(captions, "prolific").reject_grounds["min_words"] == "LOW_EFFORT"


def test_word_minimums_are_read_as_the_page_states_them() -> None:
    assert states_word_counts("Include at least 8 words.", {8})
    assert states_word_counts("Write a 100-word summary in your own words.", {100})
    assert not states_word_counts("Write a summary in your own words.", {100})
    assert not states_word_counts("Include at least 5 words.", {8})
    assert states_word_counts("Include at least 18 words.", {8})  # under 8 is under the 18 it asks for
    # the text shown is no limit stated on the answer
    assert not states_word_counts("Read a short text (around 400 words) and summarise it.", {200, 400})
    # a count written out is as stated as one in digits; a compound is not read as its last part
    assert states_word_counts("Describe the photo in at least eight words.", {8})
    assert states_word_counts("Write an Eight-word title.", {8})
    assert not states_word_counts("Write twenty-one words.", {1})


def test_every_ground_has_a_category_prolific_takes() -> None:
    assert set(PROLIFIC_GROUNDS.values()) <= set(REVIEW_CATEGORIES)
    assert len(ground_message("left a required question unanswered")) >= 100


def _times(seconds: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"assignment_id": [f"a{i}" for i in range(len(seconds))],
                         "worker_id": [f"w{i}" for i in range(len(seconds))], "work_time_s": seconds})


def test_exceptionally_fast_is_three_standard_deviations_below_the_mean() -> None:
    honest = [300.0 + 10 * (i % 7) for i in range(29)]
    flags = exceptionally_fast(_times([*honest, 20.0]), {})
    assert flags["assignment_id"].tolist() == ["a29"]
    mean, sd = pd.Series([*honest, 20.0]).mean(), pd.Series([*honest, 20.0]).std()
    assert float(flags["threshold"].iloc[0]) == pytest.approx(mean - 3 * sd, abs=0.1)
    assert "standard deviations below the mean" in flags["detail"].iloc[0]
    # under half the median is fast to a researcher's eye; among times that vary as people's do, no outlier
    varied = [200.0 + 15 * i for i in range(29)]
    assert exceptionally_fast(_times([*varied, 150.0]), {}).empty
    # ten submissions: none can lie 3 SD from their own mean ((n - 1) / sqrt(n) < 3)
    assert exceptionally_fast(_times([300.0] * 9 + [1.0]), {}).empty


@pytest.fixture(scope="module")
def prolific_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SimServer, Store]]:
    root = tmp_path_factory.mktemp("grounds")
    with SimServer(seed=2) as sim:  # three of the demo's five batches: the same three rejections as all five
        run_campaign(CONFIG, endpoint_url=sim.url, db_path=root / "h.db", out_root=root, limit=36,
                     progress=lambda _: None, platform="prolific")
        yield sim, Store(root / "h.db")


def test_every_prolific_rejection_carries_a_valid_category_and_its_evidence(prolific_run) -> None:
    sim, store = prolific_run
    rejected = [s for s in sim.prolific.submissions.values() if s["status"] == "REJECTED"]
    by_rules = {r["assignment_id"]: r["reasons"] for r in store.rows(
        "SELECT assignment_id, reasons FROM decisions WHERE campaign = ? AND action = 'reject'", [NAME])}
    grounds = set(PROLIFIC_GROUNDS) | {"NO_DATA"}
    assert {s["rejection"]["category"] for s in rejected} >= {"LOW_EFFORT"}, "rule breakers write too few words"
    for sub in rejected:
        assert sub["rejection"]["category"] in set(PROLIFIC_GROUNDS.values())
        reasons = by_rules.get(sub["id"], "")
        assert reasons and set(reasons.split(",")) <= grounds
        assert sub["rejection"]["message"].startswith("This submission was rejected because it")
        if sub["rejection"]["category"] == "LOW_EFFORT":  # the count against the page's stated minimum
            assert "words where the page asks for at least 8" in sub["rejection"]["message"]
    flagged_elsewhere = store.rows("SELECT DISTINCT f.assignment_id FROM qc_flags f JOIN decisions d ON "
                                   "d.assignment_id = f.assignment_id WHERE f.campaign = ? AND f.rule IN "
                                   "('one_sentence', 'banned_prefix', 'max_chars') AND d.action = 'reject' AND NOT "
                                   "(d.reasons LIKE '%min_words%' OR d.reasons LIKE '%required%')", [NAME])
    assert not flagged_elsewhere  # a rule that is no ground never rejected


def test_a_required_question_left_blank_is_the_part_of_invalid_answer_that_rejects_on_prolific() -> None:
    assert blank_fields("setting_1: required, left blank; people_2: step; score_0: unanswered") == \
        ["setting_1", "score_0"]
    assert blank_fields("rating_0: not_moved; problems_0: not_an_option") == ["rating_0"]
    responses = pd.DataFrame({"assignment_id": ["a0", "a1"], "worker_id": ["w0", "w1"],
                              "problems": ["setting_1: required, left blank", "problems_0: not_an_option"]})
    flags = invalid_answer(responses, {})  # its own flag on both, skipped_required beside it on the blank one
    assert sorted(flags["rule"]) == ["invalid_answer", "invalid_answer", "skipped_required"]
    assert flags[flags["rule"] == "skipped_required"]["detail"].tolist() == ["required, left blank: setting_1"]
    own_page = DecisionPolicy(reject_rules=("invalid_answer", "empty_answer", "sentinel_answer"))
    decided = decide(flags, _work(2).assign(assignment_id=["a0", "a1"]), route_policy(None, "prolific", own_page))
    assert decided[["action", "reasons", "review"]].values.tolist() == [["reject", "skipped_required", False],
                                                                         ["approve", "", True]]
    assert PROLIFIC_GROUNDS["skipped_required"] == "NO_DATA"
    on_mturk = decide(flags, _work(2).assign(assignment_id=["a0", "a1"]), route_policy(None, "mturk", own_page))
    assert on_mturk["reasons"].tolist() == ["invalid_answer", "invalid_answer"]  # MTurk: as configured


QC_RULES = '''rules = ["time_outlier", "caps_lock", "canned_overuse", "canned_lone_use", "canned_lone_nonuse",
         "quality_words_rate", "random_sample", "duplicate_text", "required", "min_words", "one_sentence",
         "banned_prefix", "max_chars", "consensus", "consensus_rate", "shared_template", "near_template",
         "instruction_echo", "quality_talk", "paste_external", "untyped_text", "switch_then_paste", "typing_cadence"]'''
ONLY_SPEED_AND_DISAGREEMENT = {
    QC_RULES: 'rules = ["time_outlier", "consensus"]',
    'reject_rules = ["required", "min_words", "one_sentence", "banned_prefix", "max_chars"]':
        'reject_rules = ["time_outlier", "consensus"]',
    'review_rules = ["random_sample", "consensus", "shared_template", "near_template", "instruction_echo",\n'
    '                "quality_talk", "time_outlier_slow"]': 'review_rules = ["time_outlier_slow"]',
    "consensus_threshold = 0.01": "consensus_threshold = 0.1"}  # disagreement found on honest work too


@pytest.mark.parametrize("platform", ["prolific", "mturk"])
def test_a_run_finding_only_speed_against_the_batch_and_disagreement_rejects_nobody_on_prolific(
        tmp_path: Path, platform: str) -> None:
    # 50 images on Prolific, where a worker fast against the batch's band (time_outlier) is among the findings
    # (not with 30); MTurk's only assertion, that the config rejects, holds on 20
    path = small_vizwiz(tmp_path, items=50 if platform == "prolific" else 20, edits=ONLY_SPEED_AND_DISAGREEMENT)
    with SimServer(seed=2) as sim:
        run_campaign(path, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path, limit=60,
                     progress=lambda _: None, platform=platform)
    store = Store(tmp_path / "h.db")
    found = {r["rule"] for r in store.rows("SELECT DISTINCT rule FROM qc_flags WHERE rule NOT IN "
                                                            "('time_outlier_slow', 'rule_info')")}
    assert "consensus" in found and found <= {"time_outlier", "consensus"}  # the run's only findings
    rejected = store.rows("SELECT assignment_id FROM decisions WHERE action = 'reject'")
    disagreeing = {r["assignment_id"] for r in store.rows("SELECT assignment_id FROM qc_flags WHERE rule = "
                                                          "'consensus'")}
    if platform == "mturk":  # the same config rejects on MTurk, as configured: the test can fail
        assert rejected
        return
    assert "time_outlier" in found  # a worker fast against this batch's band: no statistical outlier
    assert not rejected and not [s for s in sim.prolific.submissions.values() if s["status"] == "REJECTED"]
    looked_at = {r["assignment_id"] for r in store.rows("SELECT assignment_id FROM decisions WHERE review = 1")}
    assert disagreeing <= looked_at  # each goes to a person instead
