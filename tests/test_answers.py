"""postprocess.answers.aggregation: aggregation against a hand-checked case and crowd-kit computed directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bench.snow_sets import majority_vote_ties_half
from postprocess.answers.aggregation import ANSWER_COLUMNS, WORKER_COLUMNS, aggregate, model_answers
from postprocess.answers.judgements import judgements
from postprocess.answers.skill_posterior import label_probabilities
from postprocess.answers.unchecked import UNCHECKED, shrunk, vote_shares


def _frame(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item_id", "worker_id", "label"])


SMALL = _frame([("a", "w1", "x"), ("a", "w2", "x"), ("a", "w3", "y"),
                ("b", "w1", "y"), ("b", "w2", "y"), ("b", "w3", "y"),
                ("c", "w1", "x"), ("c", "w2", "y")])


def test_majority_vote_by_hand() -> None:
    answers, workers = aggregate(SMALL, "mv")
    assert list(answers.columns) == ANSWER_COLUMNS and list(workers.columns) == WORKER_COLUMNS
    got = answers.set_index("item_id")
    assert got["label"].to_dict() == {"a": "x", "b": "y", "c": "y"}  # c ties 1-1: to y, see the tie test
    assert got["posterior"].to_dict() == pytest.approx({"a": 2 / 3, "b": 1.0, "c": 0.5})
    assert got["note"].to_dict() == {"a": "", "b": "", "c": "tie"}
    # a tie's confidence is the skill posterior's probability of the label it chose, not the tied share, then
    # moved toward the field's mean vote share (no control checks it)
    skill, own = label_probabilities(SMALL), model_answers(SMALL, "mv")
    assert own.set_index("item_id").loc["c", "confidence"] == pytest.approx(skill.loc["c", "y"], rel=1e-12)
    moved = shrunk(own["confidence"].to_numpy(), vote_shares(own, judgements(SMALL)), own["judgements"].to_numpy())
    assert got["confidence"].to_numpy() == pytest.approx(moved, rel=1e-12)
    assert skill.loc["c", "y"] > 0.5 and (got["confidence_source"] == UNCHECKED).all()
    assert got.loc["b", "confidence"] < 1.0  # three judgements never make it certain
    assert got["judgements"].to_dict() == {"a": 3, "b": 3, "c": 2}
    assert set(got["method"]) == {"mv"}
    w = workers.set_index("worker_id")
    assert w.loc["w1", "agreement"] == pytest.approx(2 / 3)  # x on c against the answer y
    assert w.loc["w1", "skill"] == pytest.approx((2 / 3 + 1 + 0.5) / 3)
    assert w.loc["w3", "skill"] == pytest.approx((1 / 3 + 1) / 2)
    assert w["items"].to_dict() == {"w1": 3, "w2": 3, "w3": 2}
    assert w["control_accuracy"].isna().all()


def test_tie_does_not_depend_on_row_order() -> None:
    first = aggregate(SMALL, "mv").answers
    again = aggregate(SMALL.iloc[::-1], "mv").answers
    pd.testing.assert_frame_equal(first, again)


def test_fields_are_aggregated_apart_and_blank_labels_are_no_judgement() -> None:
    flipped = SMALL["label"].map({"x": "y", "y": "x"})
    two = pd.concat([SMALL.assign(field="q1"), SMALL.assign(field="q2", label=flipped)])
    two.loc[len(two)] = ["a", "w4", "  ", "q1"]
    answers = aggregate(two, "mv").answers.set_index(["field", "item_id"])
    assert answers.loc[("q1", "a"), "label"] == "x" and answers.loc[("q2", "a"), "label"] == "y"
    assert answers.loc[("q1", "a"), "judgements"] == 3


def test_missing_column_is_named() -> None:
    with pytest.raises(ValueError, match=r"missing column.*label"):
        judgements(SMALL.drop(columns="label"))


def test_auto_rule() -> None:
    answers = aggregate(SMALL).answers
    assert set(answers["method"]) == {"mv"}  # 8 labels by 3 workers: under 3 a worker, no test
    assert set(aggregate(SMALL.assign(label="x"), min_per_worker=1.0).answers["method"]) == {"mv"}  # one value
    assert answers.attrs["method_choice"]["label"].startswith("2.7 labels a worker on average, under min_per_worker 3")
    with pytest.raises(ValueError, match="unknown method"):
        aggregate(SMALL, "vote")


def _strangers(seed: int = 3, items: int = 300) -> tuple[pd.DataFrame, pd.Series]:
    """Three labels an item from 300 workers (about three labels each), accuracy 0.5-0.95, slips at random."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(3, size=items)
    skill = rng.uniform(0.5, 0.95, 300)
    rows = [(f"i{i}", f"w{w}", "ABC"[truth[i] if rng.random() < skill[w] else rng.integers(3)])
            for i in range(items) for w in rng.choice(300, 3, replace=False)]
    return _frame(rows), pd.Series(["ABC"[t] for t in truth], index=[f"i{i}" for i in range(items)])


@pytest.mark.parametrize(("crowd", "better"), [("adversaries", "worker-coin"), ("strangers", "mv")])
def test_auto_chooses_the_model_whose_answers_are_better(crowd: str, better: str) -> None:
    """Judged on the labels alone, auto picks the method that the hidden truth shows is more accurate:
    where nine workers of one accuracy each (0.9 down to 0.3, two adversaries) label 44 items each, worker-coin
    (one accuracy a worker: the crowd's own model; Dawid-Skene was chosen before, and answers worse);
    majority vote where 300 workers give about three labels each (where the old threshold, 3 a worker, chose
    Dawid-Skene)."""
    frame, truth = _simulated(items=400) if crowd == "adversaries" else _strangers()
    answers = aggregate(frame).answers
    right = {m: (aggregate(frame, m).answers.set_index("item_id")["label"].reindex(truth.index) == truth).mean()
             for m in ("mv", "ds")}
    right["auto"] = (answers.set_index("item_id")["label"].reindex(truth.index) == truth).mean()
    assert right["auto"] == max(right.values()) and right["auto"] > min(right.values())
    assert (answers["method"] == better).all()
    reason = answers.attrs["method_choice"]["label"]
    assert reason.startswith("predicts held-out labels better") and "labels held out in 5 folds" in reason


def _simulated(seed: int = 7, items: int = 80, workers: int = 9) -> tuple[pd.DataFrame, pd.Series]:
    """A fixed frame: workers of accuracy 0.9 down to 0.3 (the last two adversarial), 5 labels an item."""
    rng = np.random.default_rng(seed)
    truth = pd.Series(rng.choice(["neg", "neu", "pos"], size=items), index=[f"i{k:03d}" for k in range(items)])
    accuracy = np.linspace(0.9, 0.3, workers)
    rows = []
    for item, true in truth.items():
        for w in rng.choice(workers, size=5, replace=False):
            wrong = [lab for lab in ("neg", "neu", "pos") if lab != true]
            rows.append((item, f"w{w}", true if rng.random() < accuracy[w] else wrong[int(rng.integers(2))]))
    return _frame(rows), truth


def _crowd_kit_probas(name: str, by_task: pd.DataFrame, options: dict[str, Any]) -> pd.DataFrame:
    """crowd-kit's model ``name`` fitted on ``by_task``: its ``probas_``, recorded but for majority vote's (cheap;
    tests/crowd_kit_parity.py), loaded in the test, not at collection (where every xdist worker paid it)."""
    from tests.crowd_kit_parity import crowd_kit_class, crowd_kit_fit, crowd_kit_probas

    module = {"MajorityVote": "majority_vote", "GLAD": "glad"}.get(name, "dawid_skene")
    if name == "MajorityVote":
        return crowd_kit_probas(crowd_kit_class(module, name)(**options), by_task)
    return crowd_kit_fit(module, name, by_task, **options)


# crowd-kit's models by name, made in the test
@pytest.mark.parametrize(("method", "model"), [("mv", ("MajorityVote", {})), ("ds", ("DawidSkene", {"n_iter": 100})),
                                               ("one-coin", ("OneCoinDawidSkene", {"n_iter": 100})),
                                               ("glad", ("GLAD", {"n_iter": 100}))])
def test_same_as_crowd_kit_directly(method: str, model: tuple[str, dict[str, int]]) -> None:
    name, options = model
    frame, _ = _simulated()
    answers = aggregate(frame, method).answers.set_index("item_id")
    probas = _crowd_kit_probas(name, frame.rename(columns={"item_id": "task", "worker_id": "worker"}), options)
    clear = probas.apply(lambda row: (row.max() - row.nlargest(2).iloc[-1]) > 1e-9, axis=1)  # no tie to resolve
    assert clear.sum() > 40
    # crowd-kit's labels_ are its probas_' most probable label, one a clear item
    assert (answers.loc[clear[clear].index, "label"] == probas[clear].idxmax(axis=1)).all()
    assert answers["posterior"].to_numpy() == pytest.approx(probas.max(axis=1).reindex(answers.index).to_numpy())


def test_dawid_skene_beats_majority_vote_with_adversaries() -> None:
    frame, truth = _simulated(items=300)
    ds = (aggregate(frame, "ds").answers.set_index("item_id")["label"] == truth).mean()
    assert ds > majority_vote_ties_half(frame.assign(gold=frame["item_id"].map(truth)))  # the vote, ties at random


def test_subset_and_empty() -> None:
    frame, _ = _simulated()
    part = aggregate(frame.iloc[:100], "ds")
    assert len(part.answers) == frame.iloc[:100]["item_id"].nunique()
    empty = aggregate(frame.iloc[:0])
    assert empty.answers.empty and list(empty.answers.columns) == ANSWER_COLUMNS


def test_real_labels_with_gold(shared_data: Path) -> None:
    """Snow et al. 2008's word-sense set (10 labels an item): every method as accurate as DS run directly."""
    raw = pd.read_csv(shared_data / "snow2008-wsd" / "wsd.standardized.tsv", sep="\t", dtype=str)
    frame = pd.DataFrame({"item_id": raw["orig_id"], "worker_id": raw["!amt_worker_ids"], "label": raw["response"]})
    gold = raw.drop_duplicates("orig_id").set_index("orig_id")["gold"]
    by_task = frame.rename(columns={"item_id": "task", "worker_id": "worker"})
    direct = _crowd_kit_probas("DawidSkene", by_task, {"n_iter": 100}).idxmax(axis=1)  # its fit_predict's labels
    direct_acc = (direct.astype(str) == gold.reindex(direct.index)).mean()
    for method in ("auto", "mv", "ds", "one-coin", "skill"):
        ours = aggregate(frame, method).answers.set_index("item_id")["label"]
        assert (ours == gold.reindex(ours.index)).mean() >= direct_acc - 1e-12


def test_control_items_are_scored_not_answered() -> None:
    frame = pd.concat([SMALL, _frame([("g1", "w1", "x"), ("g1", "w2", "y"), ("g2", "w1", "y"), ("g2", "w4", "y")])])
    controls = pd.DataFrame({"item_id": ["g1", "g2"], "answer": ["x", "y"]})
    answers, workers = aggregate(frame, "mv", controls=controls)
    assert set(answers["item_id"]) == {"a", "b", "c"}
    alone = aggregate(SMALL, "mv").answers
    assert answers["label"].tolist() == alone["label"].tolist()  # majority vote: controls change no label
    # two controls: each fold's calibration is fitted on one control at most, which cross-validation never
    # finds better than the model's own: kept, and the rows say so
    assert answers.attrs["calibration_fit"]["moved"] is False
    assert set(answers["confidence_source"]) == {"model (calibrated on 2 controls did no better in cross-validation)"}
    w = workers.set_index("worker_id")
    assert w.loc["w1", "control_accuracy"] == 1.0 and w.loc["w1", "controls"] == 2
    assert w.loc["w2", "control_accuracy"] == 0.0 and w.loc["w2", "controls"] == 1
    assert w.loc["w3", "controls"] == 0 and np.isnan(w.loc["w3", "control_accuracy"])
    assert w.loc["w4", "items"] == 0 and w.loc["w4", "control_accuracy"] == 1.0  # seen only on a control
    with pytest.raises(ValueError, match="control items lack"):
        aggregate(frame, "mv", controls=controls.drop(columns="answer"))
