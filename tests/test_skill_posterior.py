"""postprocess.answers.skill_posterior: the confidence adaptive overlap stops on weighs each worker by a skill
shrunk toward a prior, so agreement between workers nobody has seen yet is not certainty."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bench.snow_sets import majority_vote_ties_half
from postprocess.answers.aggregation import aggregate
from postprocess.answers.skill_posterior import SkillPrior, label_posterior
from tests.crowd_labels import LABELS, crowd_frame


def _regulars(items: int = 30, workers: tuple[str, ...] = ("r1", "r2", "r3")) -> list[dict[str, str]]:
    """Balanced items (a third of each label), every regular worker right on each."""
    return [{"item_id": f"i{k}", "worker_id": w, "label": LABELS[k % 3]} for k in range(items) for w in workers]


def _confidence(frame: pd.DataFrame, item: str) -> float:
    answers = label_posterior(frame).set_index("item_id")
    return float(answers.at[item, "confidence"])


def test_two_agreeing_strangers_are_not_certain() -> None:
    frame = pd.DataFrame([*_regulars(), {"item_id": "x", "worker_id": "new1", "label": "B"},
                          {"item_id": "x", "worker_id": "new2", "label": "B"}])
    # by hand: each stranger counts only the prior (accuracy 0.7 over 4 judgements: right 0.7, each other
    # label 0.15); class shares (10 + 1 + posterior) / 34, about 0.351 for B and 0.325 for A and C
    p_b, p_other = (11 + 0.92) / 34, (11 + 0.04) / 34
    expected = p_b * 0.7 ** 2 / (p_b * 0.7 ** 2 + 2 * p_other * 0.15 ** 2)
    assert _confidence(frame, "x") == pytest.approx(expected, abs=0.005)
    assert _confidence(frame, "x") < 0.95


def test_workers_with_a_record_are_trusted_more() -> None:
    proven = _regulars(workers=("r1", "r2", "r3", "p1", "p2"))  # p1, p2: right on 30 items each
    frame = pd.DataFrame([*proven, {"item_id": "y", "worker_id": "p1", "label": "C"},
                          {"item_id": "y", "worker_id": "p2", "label": "C"},
                          {"item_id": "x", "worker_id": "new1", "label": "C"},
                          {"item_id": "x", "worker_id": "new2", "label": "C"}])
    answers = label_posterior(frame).set_index("item_id")
    assert answers.at["y", "label"] == answers.at["x", "label"] == "C"
    assert answers.at["y", "confidence"] > 0.99 > 0.95 > answers.at["x", "confidence"]


def test_a_worker_who_is_always_wrong_the_same_way_points_to_the_truth() -> None:
    # "adv" always gives the label after the true one (a confusion, not noise): Dawid-Skene reads it back
    wrong = [{"item_id": f"i{k}", "worker_id": "adv", "label": LABELS[(k + 1) % 3]} for k in range(30)]
    frame = pd.DataFrame([*_regulars(), *wrong, {"item_id": "z", "worker_id": "adv", "label": "B"}])
    answers = label_posterior(frame).set_index("item_id")
    assert answers.at["z", "label"] == "A"
    # by hand, its confusion rows are the prior's pseudo-counts plus its 10 items of each label: given B,
    # true A 10.6/14, true B 2.8/14, true C 0.6/14 (the class shares are a third each, near enough)
    assert answers.at["z", "confidence"] == pytest.approx(10.6 / 14, abs=0.02)


def test_a_field_with_one_label_seen_is_not_certain_by_construction() -> None:
    frame = pd.DataFrame({"item_id": ["a", "a", "b", "b", "b"], "worker_id": ["w1", "w2", "w1", "w2", "w3"],
                          "label": "yes"})
    answers = label_posterior(frame).set_index("item_id")
    assert set(answers["label"]) == {"yes"}
    assert answers.at["a", "confidence"] < answers.at["b", "confidence"] < 1.0


def test_fields_are_apart_and_an_empty_frame_is_empty() -> None:
    frame = pd.DataFrame([{**row, "field": "f1"} for row in _regulars()]
                         + [{"item_id": "i0", "worker_id": "q", "label": "no", "field": "f2"}])
    answers = label_posterior(frame)
    assert sorted(set(answers["field"])) == ["f1", "f2"]
    assert answers[answers["field"] == "f2"]["judgements"].tolist() == [1]
    assert answers[answers["field"] == "f1"]["judgements"].eq(3).all()
    empty = label_posterior(pd.DataFrame({"item_id": [], "worker_id": [], "label": []}))
    assert empty.empty and list(empty.columns) == ["item_id", "field", "label", "confidence", "judgements", "margin",
                                                    "vote_weight"]


@pytest.mark.parametrize("prior", [SkillPrior(accuracy=1.0), SkillPrior(accuracy=0.0), SkillPrior(weight=0)])
def test_a_bad_prior_says_what_is_wrong(prior: SkillPrior) -> None:
    with pytest.raises(ValueError, match="skill prior"):
        label_posterior(pd.DataFrame(_regulars(3)), prior)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_its_confidence_is_honest_where_the_aggregations_is_not(seed: int) -> None:
    """Items an adaptive campaign would stop (confidence at least 0.95) after two labels: under the skill
    posterior they are wrong about as rarely as it says; under Dawid-Skene's own confidence, far more often."""
    frame, truth = crowd_frame(seed)

    def error_when_sure(answers: pd.DataFrame, column: str = "confidence") -> tuple[float, int]:
        sure = answers[answers[column] >= 0.95]
        return float((sure["label"].to_numpy() != truth.reindex(sure["item_id"]).to_numpy()).mean()), len(sure)

    skill_error, skill_sure = error_when_sure(label_posterior(frame))
    ds_error, _ = error_when_sure(aggregate(frame, "ds").answers, "posterior")  # Dawid-Skene's own
    assert skill_sure >= 100  # it does stop items, not only hold them all back
    assert skill_error <= 0.05 + 0.02  # 0.95 holds within sampling noise
    assert ds_error > 2 * skill_error, (ds_error, skill_error)


# --- the crowd's own accuracy as the prior of a worker not yet seen (SkillPrior.crowd_weight) ---

def _one_coin(votes: list[list[int]], prior: float, weight: float) -> float:
    """By hand: the one-coin crowd accuracy, EM over items' vote counts (three labels), class shares a third."""
    a = prior
    for _ in range(200):
        right = 0.0
        for counts in votes:
            n = sum(counts)
            like = [a ** c * ((1 - a) / 2) ** (n - c) for c in counts]
            right += sum(c * lk for c, lk in zip(counts, like, strict=True)) / sum(like)
        a = (right + weight * prior) / (sum(map(sum, votes)) + weight)
    return a


def _strangers(a: float, p_label: float, p_other: float) -> float:
    """Two workers with no record agreeing, each assumed right ``a`` of the time."""
    return p_label * a ** 2 / (p_label * a ** 2 + 2 * p_other * ((1 - a) / 2) ** 2)


def test_in_a_good_crowd_two_agreeing_strangers_are_enough() -> None:
    frame = pd.DataFrame([*_regulars(), {"item_id": "x", "worker_id": "new1", "label": "B"},
                          {"item_id": "x", "worker_id": "new2", "label": "B"}])
    a = _one_coin([[3, 0, 0]] * 30 + [[0, 2, 0]], 0.7, 20)  # about 0.946: 90 of 92 right, 0.7 worth 20 more
    assert a == pytest.approx((92 + 14) / 112, abs=0.002)
    expected = _strangers(a, (11 + 1) / 34, 11 / 34)
    crowd = label_posterior(frame, SkillPrior(crowd_weight=20)).set_index("item_id")
    assert crowd.at["x", "confidence"] == pytest.approx(expected, abs=0.002)
    assert crowd.at["x", "confidence"] >= 0.95 > _confidence(frame, "x")  # the fixed prior asks a third


def test_in_a_poor_crowd_they_are_not() -> None:
    # every item 2 against 1 (the dissenter rotates), then two strangers agree on x
    rows = [{"item_id": f"i{k}", "worker_id": w, "label": LABELS[(k + (w == f"r{k % 3 + 1}")) % 3]}
            for k in range(30) for w in ("r1", "r2", "r3")]
    frame = pd.DataFrame([*rows, {"item_id": "x", "worker_id": "new1", "label": "B"},
                          {"item_id": "x", "worker_id": "new2", "label": "B"}])
    a = _one_coin([[2, 1, 0]] * 30 + [[0, 2, 0]], 0.7, 20)
    assert a < 0.7
    crowd = float(label_posterior(frame, SkillPrior(crowd_weight=20)).set_index("item_id").at["x", "confidence"])
    assert crowd == pytest.approx(_strangers(a, (11 + 1) / 34, 11 / 34), abs=0.01)
    assert crowd < _confidence(frame, "x") < 0.95


def test_a_known_adversary_cannot_stop_an_item_with_a_stranger() -> None:
    """A worker always wrong the same way, seen on 30 items, and a stranger give the same wrong label:
    the item is not stopped, although two agreeing strangers in this crowd would be."""
    wrong = [{"item_id": f"i{k}", "worker_id": "adv", "label": LABELS[(k + 1) % 3]} for k in range(30)]
    frame = pd.DataFrame([*_regulars(), *wrong, {"item_id": "z", "worker_id": "adv", "label": "B"},
                          {"item_id": "z", "worker_id": "new1", "label": "B"}])
    answers = label_posterior(frame, SkillPrior(crowd_weight=20)).set_index("item_id")
    assert answers.at["z", "confidence"] < 0.95


@pytest.mark.parametrize("seed", [1, 2])
def test_strangers_only_the_crowds_accuracy_is_honest_and_stops(seed: int) -> None:
    """Shaped like Prolific: every worker gives at most three labels, two labels an item, so no worker's
    record forms. The fixed prior (0.7) never reaches 0.95; the crowd's own accuracy (about 0.79 here) does
    on the items two agree on, and those are wrong about as rarely as it says."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, 900)
    skill, habit = rng.uniform(0.55, 0.95, (2, 300)), rng.integers(1, 3, (2, 300))
    rows = []
    for i in range(900):
        for k in range(2):  # slot k of item i: worker k-(i // 3), their three labels on three items
            w = i // 3
            label = truth[i] if rng.random() < skill[k, w] else (
                truth[i] + (habit[k, w] if rng.random() < 0.5 else rng.integers(0, 3))) % 3
            rows.append({"item_id": f"i{i}", "worker_id": f"{k}-{w}", "label": LABELS[label]})
    frame, answer = pd.DataFrame(rows), pd.Series([LABELS[t] for t in truth], index=[f"i{i}" for i in range(900)])
    assert (label_posterior(frame)["confidence"] < 0.95).all()
    crowd = label_posterior(frame, SkillPrior(crowd_weight=20))
    sure = crowd[crowd["confidence"] >= 0.95]
    error = float((sure["label"].to_numpy() != answer.reindex(sure["item_id"]).to_numpy()).mean())
    assert len(sure) >= 300
    assert error <= 0.05 + 0.02, error


def test_a_bad_crowd_weight_says_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="crowd weight"):
        label_posterior(pd.DataFrame(_regulars(3)), SkillPrior(crowd_weight=-1))


# --- fast workers: their own crowd accuracy (label_posterior's fast_workers, [answers] fast_share) ---

def _with_fast_workers() -> pd.DataFrame:
    """30 items three regulars get right, each with one fast worker seen once (right on a third of them:
    k % 3 == 0); x: two fast strangers agree on B; y: two other strangers agree on C."""
    fast = [{"item_id": f"i{k}", "worker_id": f"f{k}", "label": LABELS[k % 3 if k % 3 == 0 else (k + 1) % 3]}
            for k in range(30)]
    pairs = [{"item_id": "x", "worker_id": "fx1", "label": "B"}, {"item_id": "x", "worker_id": "fx2", "label": "B"},
             {"item_id": "y", "worker_id": "n1", "label": "C"}, {"item_id": "y", "worker_id": "n2", "label": "C"}]
    return pd.DataFrame([*_regulars(), *fast, *pairs])


def test_two_agreeing_fast_strangers_are_weighed_by_the_fast_workers_record() -> None:
    frame = _with_fast_workers()
    fast = frozenset(["fx1", "fx2", *(f"f{k}" for k in range(30))])
    one_crowd = label_posterior(frame, SkillPrior(crowd_weight=20)).set_index("item_id")["confidence"]
    grouped = label_posterior(frame, SkillPrior(crowd_weight=20), fast).set_index("item_id")["confidence"]
    # by hand, the fast group's coin: on the regulars' items the truth is all but certain, so 10 of their 30
    # judgements there are right; x's two are right as likely as B is; 0.7 worth 20 more (a fixed point)
    a_fast, p_x = 0.7, 0.5
    for _ in range(200):
        a_fast = (10 + 2 * p_x + 20 * 0.7) / (32 + 20)
        p_x = _strangers(a_fast, (10 + 1 + p_x) / 35, (10 + 1 + (1 - p_x) / 2) / 35)
    assert a_fast < 0.6
    assert grouped["x"] == pytest.approx(p_x, abs=0.02)
    assert grouped["x"] < 0.95 <= one_crowd["x"]  # the whole crowd's record would stop x
    assert grouped["y"] >= 0.95  # strangers of the other group stop on the others' record
    assert grouped["i4"] >= 0.95  # three regulars outweigh a fast worker's slip


def test_no_fast_workers_is_the_one_crowd_rule() -> None:
    frame = _with_fast_workers()
    before = label_posterior(frame, SkillPrior(crowd_weight=20))
    pd.testing.assert_frame_equal(label_posterior(frame, SkillPrior(crowd_weight=20), frozenset()), before)
    unseen = label_posterior(frame, SkillPrior(crowd_weight=20), frozenset(["nobody"]))
    pd.testing.assert_frame_equal(unseen, before)


# --- how far an answer is from changing: margin and vote_weight (adaptive overlap's settled items) ---

def test_margin_of_strangers_is_their_vote_lead_times_a_strangers_weight() -> None:
    """Strangers (one judgement each) on a design symmetric in the labels: the class prior is uniform, so an
    item's log odds of its answer over the runner-up is its vote lead times log(a (k-1) / (1-a))."""
    votes = {"x": "AAB", "y": "BBC", "z": "CCA", "u": "AAAB", "v": "BBBC", "w": "CCCA"}
    rows = [{"item_id": item, "worker_id": f"{item}{n}", "label": label}
            for item, labels in votes.items() for n, label in enumerate(labels)]
    answers = label_posterior(pd.DataFrame(rows), SkillPrior(accuracy=0.7)).set_index("item_id")
    weight = math.log(0.7 * 2 / 0.3)
    np.testing.assert_allclose(answers["vote_weight"], weight, rtol=1e-12)
    lead = {item: (labels.count(labels[0]) - (len(labels) - labels.count(labels[0]))) for item, labels in
            votes.items()}
    np.testing.assert_allclose(answers["margin"], [lead[i] * weight for i in answers.index], rtol=1e-6)
    assert set(answers.loc[["u", "v", "w"], "label"]) == {"A", "B", "C"} and lead["u"] == 2


def test_a_crowd_fitted_as_poor_does_not_make_a_judgement_weigh_less_than_the_prior_says() -> None:
    """vote_weight (how far one more judgement moves an answer, for settled items) uses the crowd's accuracy,
    but never below skill_prior: strangers who agree no better than chance would otherwise make every item
    look settled."""
    rng = np.random.default_rng(4)
    rows = [{"item_id": f"i{i}", "worker_id": f"w{i}-{k}", "label": str(rng.integers(3))}
            for i in range(300) for k in range(3)]
    answers = label_posterior(pd.DataFrame(rows), SkillPrior(accuracy=0.7, crowd_weight=20))
    np.testing.assert_allclose(answers["vote_weight"], math.log(0.7 * 2 / 0.3), rtol=1e-12)


# --- method "skill": the answer is the posterior the rounds stop on ---

def test_method_skill_answers_with_the_stopping_posterior() -> None:
    """aggregate(..., "skill") ships label_posterior's label and confidence for every item, with the prior given;
    each row of its probabilities is a distribution over the labels seen."""
    from postprocess.answers.skill_posterior import label_probabilities

    frame, _ = crowd_frame(2, items=300, per_item=3)
    prior = SkillPrior(accuracy=0.7, weight=4.0, crowd_weight=20)
    shipped = aggregate(frame, "skill", prior=prior).answers.set_index("item_id")
    stopped = label_posterior(frame, prior).set_index("item_id")
    assert set(shipped["method"]) == {"skill"} and len(shipped) == 300
    assert (shipped["label"] == stopped.loc[shipped.index, "label"]).all()
    np.testing.assert_allclose(shipped["posterior"], stopped.loc[shipped.index, "confidence"], rtol=1e-9)
    table = label_probabilities(frame.assign(label=frame["label"].astype(str)), prior)
    np.testing.assert_allclose(table.sum(axis=1), 1.0, rtol=1e-9)
    assert sorted(table.columns) == sorted(set(frame["label"]))


def test_method_skill_beats_majority_vote_where_workers_give_few_labels() -> None:
    """Three labels a worker (as on Prolific), five an item, each label right 55-95% of the time or, one in
    six, the same answer whatever the item: the skill posterior's answers are right more often than majority
    vote's (on Prolific-sim's campaigns, 95.6-96.3% against 93.4-94.8%: docs/reference/outputs.md)."""
    rng = np.random.default_rng(11)
    rows, truth = [], {}
    for i in range(900):
        truth[f"i{i}"] = LABELS[i % 3]
        for k in range(5):
            worker = f"w{i // 3}-{k}"
            if rng.random() < 1 / 6:
                label = LABELS[0]  # a contrarian: one answer to everything
            else:
                label = truth[f"i{i}"] if rng.random() < rng.uniform(0.55, 0.95) else str(rng.choice(LABELS))
            rows.append({"item_id": f"i{i}", "worker_id": worker, "label": label})
    frame = pd.DataFrame(rows)

    def accuracy(method: str) -> float:
        answers = aggregate(frame, method).answers
        return float((answers["label"] == answers["item_id"].map(truth)).mean())

    # majority vote with its ties counted at random: its own ties now go by worker skill
    assert accuracy("skill") >= majority_vote_ties_half(frame.assign(gold=frame["item_id"].map(truth))) + 0.005
