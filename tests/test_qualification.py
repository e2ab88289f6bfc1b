"""Qualification scoring: every key item, edge cases, and the CLI's problem report."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.errors import InputFormatError
from flows.core.inputs.answer_key import DEFAULT_KEY, load_key
from qc.qualification import score_answers

KEY = load_key()
FLIP = {"correct": "incorrect", "incorrect": "correct", "1": "2", "2": "1"}


def perfect(worker: str = "W") -> pd.DataFrame:
    return KEY.assign(worker_id=worker)[["worker_id", "item_id", "answer"]]


def test_the_key_has_the_seed_sections() -> None:
    assert KEY["section"].value_counts().to_dict() == {"spelling": 15, "grammar": 15, "judging": 10}
    assert KEY["item_id"].tolist()[:2] == ["spelling-01", "spelling-02"]
    assert KEY.set_index("item_id").loc["spelling-01", "answer"] == "incorrect"  # "thier"


@pytest.mark.parametrize("item_id", KEY["item_id"].tolist())
def test_every_key_item_counts_once_and_in_its_section(item_id: str) -> None:
    answers = perfect()
    answers.loc[answers["item_id"] == item_id, "answer"] = FLIP[KEY.set_index("item_id").loc[item_id, "answer"]]
    scores, problems = score_answers(answers, KEY)
    row = scores.iloc[0]
    section = KEY.set_index("item_id").loc[item_id, "section"]
    size = {"spelling": 15, "grammar": 15, "judging": 10}[section]
    assert problems.empty and row["correct"] == 39 and row["score"] == 97.5
    assert row[f"{section}_score"] == round(100 * (size - 1) / size, 2)
    assert all(row[f"{s}_score"] == 100 for s in ("spelling", "grammar", "judging") if s != section)


def test_unanswered_counts_as_wrong_and_threshold_applies() -> None:
    answers = perfect().iloc[:30]  # judging left out entirely
    scores, _ = score_answers(answers, KEY, threshold=75)
    row = scores.iloc[0]
    assert (row["answered"], row["correct"], row["score"], row["judging_score"]) == (30, 30, 75.0, 0.0)
    assert bool(row["passed"]) is True
    assert bool(score_answers(answers, KEY, threshold=75.01)[0].iloc[0]["passed"]) is False


def test_case_and_spaces_in_answers_are_tolerated() -> None:
    answers = perfect()
    answers["answer"] = answers["answer"].map(lambda a: f"  {a.upper()} ")
    assert score_answers(answers, KEY)[0].iloc[0]["score"] == 100.0


def test_unknown_malformed_and_repeated_answers_are_reported() -> None:
    extra = pd.DataFrame({"worker_id": ["W", "W", "W", "V"], "item_id": ["bogus-01", "judging-01", "spelling-02", "x"],
                          "answer": ["correct", "maybe", "incorrect", ""]})
    answers = pd.concat([perfect(), extra], ignore_index=True)
    scores, problems = score_answers(answers, KEY)
    assert problems["problem"].str.split(";").str[0].tolist() == ["unknown item id", "malformed answer",
                                                                 "answered twice", "unknown item id"]
    by_worker = scores.set_index("worker_id")
    assert by_worker.loc["W", "score"] == 100.0  # the first answer counted
    assert by_worker.loc["V", "answered"] == 0 and by_worker.loc["V", "score"] == 0.0  # scored, not dropped


def test_cli_writes_scores_and_problems(tmp_path: Path, capsys) -> None:
    wrong = perfect("A2")
    wrong["answer"] = wrong["answer"].map(FLIP)
    answers = pd.concat([perfect("A1"), wrong,
                         pd.DataFrame({"worker_id": ["A2"], "item_id": ["nope"], "answer": ["1"]})])
    src = tmp_path / "answers.csv"
    answers.to_csv(src, index=False)
    assert main(["qualify", "score", str(src), "--out", str(tmp_path / "scores.csv")]) == 0
    scores = pd.read_csv(tmp_path / "scores.csv").set_index("worker_id")
    assert list(scores.columns) == ["answered", "correct", "score", "spelling_score", "grammar_score",
                                    "judging_score", "passed"]
    assert bool(scores.loc["A1", "passed"]) and not bool(scores.loc["A2", "passed"])
    assert "1 answer(s) could not be scored" in capsys.readouterr().err
    assert pd.read_csv(tmp_path / "scores.problems.csv")["item_id"].tolist() == ["nope"]


def test_bad_key_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "key.csv"
    original = "spelling-02,spelling,He accepts the crowd's praise graciously.,,correct"
    bad.write_text(DEFAULT_KEY.read_text().replace(original, "spelling-02,spelling,He accepts.,,maybe"))
    with pytest.raises(InputFormatError, match=r"key.csv:3: section 'spelling' with answer 'maybe'"):
        load_key(bad)


def test_flags_by_score_bands_and_rank_correlation() -> None:
    from postprocess.qualification_report import flags_by_score, score_summary

    scores = pd.DataFrame({"worker_id": list("abcdef"), "score": [80.0, 82.5, 87.5, 92.5, 97.5, 60.0],
                           "spelling_score": [80, 80, 90, 90, 100, 50], "grammar_score": [80] * 6,
                           "judging_score": [80] * 6, "passed": [True] * 5 + [False]})
    captions = pd.DataFrame({"worker_id": list("aaaabbbbccccddddeeee"), "assignment_id": range(20)})
    flags = pd.DataFrame({"worker_id": ["a", "a", "a", "b", "b", "c", "e"],
                          "rule": ["time_outlier", "caps_lock", "one_sentence", "caps_lock", "max_chars",
                                   "time_outlier", "random_sample"]})
    blocked = pd.DataFrame({"worker_id": ["a"]})
    table, corr = flags_by_score(scores, captions, flags, blocked)
    assert table["band"].astype(str).tolist() == ["80-84", "85-89", "90-94", "95-100"]
    assert table["flags"].tolist() == [5, 1, 0, 0]  # the review sample is not a fault
    assert table["flags_per_100_captions"].tolist() == [62.5, 25.0, 0.0, 0.0]
    assert table["blocked"].tolist() == [1, 0, 0, 0]
    per_worker = pd.DataFrame({"score": [80.0, 82.5, 87.5, 92.5, 97.5], "rate": [3 / 4, 2 / 4, 1 / 4, 0, 0]})
    assert corr["rho"] == pytest.approx(per_worker.corr(method="spearman").iloc[0, 1], abs=1e-3)
    summary = score_summary(scores)
    assert summary["takers"] == 6 and summary["passed"] == 5 and summary["pass_rate"] == pytest.approx(0.833)
    spelling = next(p for p in summary["parts"] if p["part"] == "spelling")
    assert spelling["mean"] == pytest.approx(sum([80, 80, 90, 90, 100, 50]) / 6, abs=0.05)


def test_html_test_scores_spread_by_language_skill() -> None:
    import random

    from flows.sim.people.crowd import Worker
    from flows.sim.people.qual_tests import answer_item

    key = load_key()
    options = {"spelling": ["correct", "incorrect"], "grammar": ["correct", "incorrect"], "judging": ["1", "2"]}

    def score(profile: str, skill: float, seed: int) -> float:
        worker = Worker("W", profile, {}, 1000, 99, skill=skill)
        rng = random.Random(seed)
        rows = [{"worker_id": "W", "item_id": r.item_id,
                 "answer": answer_item(worker, r.item_id, options[r.section], rng)} for r in key.itertuples()]
        return float(score_answers(pd.DataFrame(rows), key)[0].loc[0, "score"])

    skilled = [score("diligent", 0.95, s) for s in range(30)]
    careless = [score("speeder", 0.95, s) for s in range(30)]
    weak = [score("typo_prone", 0.5, s) for s in range(30)]
    assert sum(skilled) / 30 > 90 and sum(careless) / 30 < 65 and 70 < sum(weak) / 30 < 80
    assert sum(s >= 80 for s in careless) == 0
