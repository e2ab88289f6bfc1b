"""postprocess.answers.adaptive.replay: judgements taken one at a time, only when the stopping rule asks."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from postprocess.answers.adaptive import Replay, StoppingRule, replay, saving
from postprocess.answers.aggregation import aggregate, aggregate_scored
from postprocess.answers.skill_posterior import SkillPrior, label_posterior
from tests.crowd_labels import crowd_frame

WSD = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "snow2008-wsd" / "wsd.standardized.tsv"


def _random_frame(seed: int, items: int = 60, per_item: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        truth = rng.integers(3)
        for j in rng.permutation(12)[:per_item]:
            label = truth if rng.random() < 0.7 else rng.integers(3)
            rows.append({"item_id": f"i{i}", "worker_id": f"w{j}", "label": f"L{label}"})
    return pd.DataFrame(rows)


def _lead_by_hand(labels: list[str], low: int, high: int, lead: int, settled: bool) -> int:
    """Independent sequential version of the lead rule for one item (``settled``: also stop once the
    judgements left could at best tie the leader)."""
    used = min(low, len(labels))
    last = min(high, len(labels))
    while used < last:
        top = [*Counter(labels[:used]).most_common(2), ("", 0)]
        ahead = top[0][1] - top[1][1]
        if ahead >= lead or (settled and ahead >= last - used):
            break
        used += 1
    return used


@pytest.mark.parametrize(("seed", "settled"), [(1, False), (2, False), (3, False), (1, True), (2, True), (3, True)])
def test_lead_rule_matches_a_sequential_replay_by_hand(seed: int, settled: bool) -> None:
    frame = _random_frame(seed)
    rule = StoppingRule(min_judgements=3, max_judgements=6, lead=2, method="mv", stop_on="method", settled=settled)
    result = replay(frame, rule)
    expected = {item: _lead_by_hand(list(g["label"]), 3, 6, 2, settled)
                for item, g in frame.groupby("item_id", sort=False)}
    got = dict(zip(result.answers["item_id"], result.answers["judgements_used"], strict=True))
    assert got == expected
    assert len(result.used) == sum(expected.values()) < len(frame)
    # the used judgements are each item's first ones in the file's order, never a later one
    first = frame.groupby("item_id", sort=False).head(6).assign(rank=lambda d: d.groupby("item_id").cumcount())
    first = first[first["rank"] < first["item_id"].map(expected)]
    assert sorted(map(tuple, result.used[["item_id", "worker_id"]].to_numpy())) == \
        sorted(map(tuple, first[["item_id", "worker_id"]].to_numpy()))


def test_answers_and_skills_come_from_used_judgements_only() -> None:
    frame = _random_frame(4)
    result = replay(frame, StoppingRule(min_judgements=3, confidence=0.9, method="ds"))
    again = aggregate(result.used, "ds").answers
    pd.testing.assert_series_equal(result.answers["label"], again["label"])
    assert (result.answers["judgements_used"] <= result.answers["available"]).all()
    uncertain = result.answers[result.answers["stop_confidence"] < 0.9]
    assert len(uncertain) and (result.answers["stop_confidence"] >= 0.9).any()  # both kinds occur
    # an item left uncertain (by the confidence the rule stops on) stopped only because the file ran out
    assert (uncertain["judgements_used"] == uncertain["available"]).all()


def test_no_rule_stops_at_min_and_max_caps() -> None:
    frame = _random_frame(5)
    assert replay(frame, StoppingRule(min_judgements=2, method="mv")).answers["judgements_used"].eq(2).all()
    capped = replay(frame, StoppingRule(min_judgements=2, max_judgements=4, lead=5, method="mv",  # 5 ahead of 4: never
                                        settled=False))
    assert capped.answers["judgements_used"].eq(4).all()
    assert saving(capped, frame) == {"judgements_used": 240, "judgements_total": 420, "share_used": 0.5714}


@pytest.mark.parametrize("rule", [StoppingRule(min_judgements=0), StoppingRule(3, max_judgements=2),
                                  StoppingRule(confidence=1.5), StoppingRule(lead=0),
                                  StoppingRule(stop_on="vote"), StoppingRule(skill_prior=SkillPrior(1.0))])
def test_bad_rules_say_what_is_wrong(rule: StoppingRule) -> None:
    with pytest.raises(ValueError, match=r"min_judgements|confidence|lead|stop_on|skill prior"):
        replay(_random_frame(6), rule)


@pytest.mark.skipif(not WSD.exists(), reason=f"needs ../shared/data beside the project ({WSD} is absent)")
def test_wsd_keeps_full_majority_vote_accuracy_with_at_most_half_the_labels() -> None:
    raw = pd.read_csv(WSD, sep="\t")
    frame = pd.DataFrame({"item_id": raw["orig_id"], "worker_id": raw["!amt_worker_ids"],
                          "label": raw["response"].astype(str)})
    gold = raw.drop_duplicates("orig_id").set_index("orig_id")["gold"].astype(str)

    def accuracy(answers: pd.DataFrame) -> float:
        return float((answers["label"].to_numpy() == gold.reindex(answers["item_id"]).to_numpy()).mean())

    full = accuracy(aggregate(frame, "mv").answers)
    # the last: [answers]' defaults with hitflow new's starter min and max (confidence 0.98, at most 6)
    for rule in (StoppingRule(3, lead=2, method="mv"), StoppingRule(3, confidence=0.95, method="ds"),
                 StoppingRule(2, 6, confidence=0.98)):
        result = replay(frame, rule)
        assert accuracy(result.answers) >= full
        assert saving(result, frame)["share_used"] <= 0.5


def test_an_empty_file_gives_empty_answers() -> None:
    result = replay(pd.DataFrame({"item_id": [], "worker_id": [], "label": []}), StoppingRule())
    assert list(result.answers.columns[-3:]) == ["judgements_used", "available", "stop_confidence"]
    assert result.answers.empty


SKILL_RULE = StoppingRule(2, 6, confidence=0.95, method="ds")


@cache
def _skill_replay() -> tuple[pd.DataFrame, pd.Series, Replay]:
    """One replay (300 items, six labels each, [answers]' skill-posterior stop) that two tests below read:
    crowd-kit's Dawid-Skene fits in its rounds are most of this file's CPU. Nothing mutates it."""
    frame, truth = crowd_frame(1, items=300, per_item=6)
    return frame, truth, replay(frame, SKILL_RULE)


def test_the_replay_stops_on_the_skill_posterior_of_the_used_judgements() -> None:
    frame, truth, skill = _skill_replay()
    stopped = skill.answers[skill.answers["judgements_used"] < skill.answers["available"]].set_index("item_id")
    again = label_posterior(skill.used).set_index("item_id")
    # each item stopped early was sure, or settled: the judgements it could still take could at best tie it
    left = (stopped["available"].clip(upper=6) - stopped["judgements_used"]).astype(float)
    tie_at_best = again.loc[stopped.index, "margin"] >= left * again.loc[stopped.index, "vote_weight"] - np.log(1.1)
    sure = stopped["stop_confidence"] >= 0.95
    assert sure.sum() and (~sure).sum() and (sure | tie_at_best).all()
    np.testing.assert_allclose(skill.answers.set_index("item_id")["stop_confidence"], again["confidence"].reindex(
        skill.answers["item_id"]), rtol=1e-9)
    # the aggregation's own confidence (the rule before it) stops two agreeing workers too early
    method = replay(frame, StoppingRule(2, 6, confidence=0.95, method="ds", stop_on="method"))

    def accuracy(answers: pd.DataFrame) -> float:
        return float((answers["label"].to_numpy() == truth.reindex(answers["item_id"]).to_numpy()).mean())

    assert accuracy(skill.answers) >= accuracy(method.answers) + 0.03


# --- work time: fast workers weighed as their own group ([answers] fast_share in a replay) ---

def _rushed_frame(seed: int, items: int = 400, per_item: int = 6) -> tuple[pd.DataFrame, pd.Series]:
    """Strangers (one label each): a quarter rush (20-40 s, a label at random), the rest take 200-400 s
    and are right 90% of the time."""
    rng = np.random.default_rng(seed)
    rows, truth = [], {}
    for i in range(items):
        truth[f"i{i}"] = "abc"[i % 3]
        for k in range(per_item):
            rushed = rng.random() < 0.25
            right = not rushed and rng.random() < 0.9
            label = truth[f"i{i}"] if right else str(rng.choice([x for x in "abc" if rushed or x != truth[f"i{i}"]]))
            rows.append((f"i{i}", f"w{i}-{k}", label, rng.uniform(20, 40) if rushed else rng.uniform(200, 400)))
    return pd.DataFrame(rows, columns=["item_id", "worker_id", "label", "seconds"]), pd.Series(truth)


def test_fast_workers_by_hand() -> None:
    from postprocess.answers.skill_posterior import fast_workers

    times = pd.DataFrame({"worker_id": ["a", "a", "b", "c", "d", "d", "e"],
                          "seconds": [10, 30, 100, 120, 90, "n/a", None]})
    # median of the timed pieces (10, 30, 100, 120, 90) is 90: a's median 20 is under half of it, b's 100 not
    assert fast_workers(times, 0.5) == frozenset({"a"})
    assert fast_workers(times, 0.0) == frozenset() and fast_workers(times.iloc[:0], 0.5) == frozenset()
    assert fast_workers(times, 0.99) == frozenset({"a"})  # 90 is not under 0.99 * 90 = 89.1


@pytest.mark.parametrize("seed", [4, 5, 6, 7])
def test_a_replay_with_work_times_does_not_stop_on_two_rushed_votes(seed: int) -> None:
    frame, truth = _rushed_frame(seed)

    def accuracy(answers: pd.DataFrame) -> float:
        return float((answers["label"].to_numpy() == truth.reindex(answers["item_id"]).to_numpy()).mean())

    rule = StoppingRule(2, 6, confidence=0.93, method="mv", skill_prior=SkillPrior(0.7, 4.0, 20.0))
    plain, timed = replay(frame, rule), replay(frame, replace(rule, fast_share=0.5))
    # the rushed are weighed by what rushing has been worth (next to nothing): items two rushed labels
    # agreed on no longer stop there, a rushed dissenter no longer holds an item back, and so answers are
    # right more often for fewer labels
    rushed = set(frame.loc[frame["seconds"] < 50, "worker_id"])
    two_rushed = [item for item, part in plain.used.groupby("item_id")
                  if len(part) == 2 and part["worker_id"].isin(rushed).all()]
    assert two_rushed
    again = timed.answers.set_index("item_id").loc[two_rushed, "judgements_used"]
    assert (again > 2).all()
    assert accuracy(timed.answers) > accuracy(plain.answers) and len(timed.used) < len(plain.used)
    with pytest.raises(ValueError, match="seconds column"):
        replay(frame.drop(columns="seconds"), replace(rule, fast_share=0.5))
    with pytest.raises(ValueError, match="fast_share"):
        replay(frame, replace(rule, fast_share=1.0))


def test_fast_workers_leave_out_times_below_zero_or_without_end() -> None:
    """No work takes -1 or infinite seconds: such a time is unknown, not fast (or slow)."""
    from postprocess.answers.skill_posterior import fast_workers

    times = pd.DataFrame({"worker_id": ["a", "a", "b", "c", "d", "e"],
                          "seconds": [-1, -1, 100, 120, 90, float("inf")]})
    assert fast_workers(times, 0.5) == frozenset()
    assert fast_workers(times.assign(seconds=[-1, 40, 100, 120, 90, float("-inf")]), 0.5) == frozenset({"a"})


def test_a_labels_work_time_is_its_own_row_not_a_later_blank_ones() -> None:
    """``judgements`` drops a blank label before keeping a worker's last label of an item, so the time
    beside a label must come from the row that gave it, not from a later blank row of the same worker."""
    frame = pd.DataFrame({"item_id": ["i1", "i1", "i1", "i1"], "worker_id": ["w1", "w1", "w2", "w3"],
                          "label": ["a", " ", "a", "a"], "seconds": [300, 1, 280, 310]})
    used = replay(frame, StoppingRule(2, 6, confidence=0.9, method="mv", fast_share=0.5)).used
    assert used.set_index("worker_id")["seconds"].to_dict() == {"w1": 300, "w2": 280}


# --- the rule stops on the confidence answers.csv reports ---

def _sure_crowd(seed: int = 0, items: int = 300) -> pd.DataFrame:
    """Binary items, ten workers right 97% of the time, four labels an item."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        truth = int(rng.integers(2))
        for w in rng.choice(10, 4, replace=False):
            rows.append({"item_id": f"i{i}", "worker_id": f"w{w}",
                         "label": str(truth if rng.random() < 0.97 else 1 - truth)})
    return pd.DataFrame(rows)


def test_two_judgements_never_stop_an_item_above_what_two_can_show() -> None:
    frame, prior = _sure_crowd(), SkillPrior(crowd_weight=20)
    # the skill posterior alone is past 0.998 on most items from their first two (agreeing) judgements ...
    assert (label_posterior(frame.groupby("item_id").head(2), prior)["confidence"] >= 0.998).mean() > 0.5
    # ... but two labels by workers right 95% of the time show at most 0.95^2 / (0.95^2 + 0.05^2) = 0.99724
    result = replay(frame, StoppingRule(2, confidence=0.998, method="mv", skill_prior=prior, settled=False))
    assert (result.answers["judgements_used"] > 2).all()
    lower = replay(frame, StoppingRule(2, confidence=0.997, method="mv", skill_prior=prior, settled=False))
    assert (lower.answers["judgements_used"] == 2).mean() > 0.5


def test_the_stop_confidence_is_the_answers_confidence() -> None:
    _, _, result = _skill_replay()  # items stopped after 2, 3, 4, 5 and 6 judgements
    rule = SKILL_RULE
    # the model's own confidence (no control checks it; answers.csv pulls it toward the vote share besides)
    reported = aggregate_scored(result.used, "ds", prior=rule.skill_prior, controls=pd.DataFrame(
        columns=["item_id", "answer"]))[0].answers.set_index("item_id")
    posterior = label_posterior(result.used, rule.skill_prior).set_index("item_id")
    same = reported.index[reported["label"] == posterior["label"].reindex(reported.index)]
    assert len(same) > 150
    stop = result.answers.set_index("item_id")["stop_confidence"]
    np.testing.assert_allclose(stop.reindex(same), reported.loc[same, "confidence"], rtol=1e-9)
    # by hand: the posterior, never above n unanimous labels of workers right 95% of the time (3 labels)
    n = posterior["judgements"].to_numpy(dtype=float)
    odds = (0.95 / 0.025) ** n
    np.testing.assert_allclose(stop.reindex(posterior.index), np.minimum(posterior["confidence"], odds / (odds + 2)),
                               rtol=1e-9)


def test_control_items_calibrate_the_stop_and_take_no_more_judgements() -> None:
    frame, truth = crowd_frame(4, items=300, per_item=6)  # (seed 3's model the controls' log-loss keeps)
    controls = pd.DataFrame({"item_id": truth.index[:60], "answer": truth.to_numpy()[:60]})
    rule = StoppingRule(2, 6, confidence=0.95, method="ds")
    result = replay(frame, rule, controls=controls)
    used = result.used.groupby("item_id").size()
    assert (used.reindex(controls["item_id"]) == 2).all()  # scored, never answered: no more judgements
    assert not result.answers["item_id"].isin(controls["item_id"]).any()
    assert result.answers["confidence_source"].str.startswith("calibrated on 60 controls").all()
    # the confidence stopped on is the posterior bounded, then calibrated on the controls' rows of the same
    # round (refitted here from the controls' labels and answers, by the rule that chooses the fit)
    from postprocess.answers.calibration import bounded, calibrator_on_controls, shrunk, still_likeliest

    posterior = label_posterior(result.used, rule.skill_prior).set_index("item_id")
    model = pd.Series(bounded(posterior["confidence"].to_numpy(), posterior["judgements"].to_numpy(), 3),
                      index=posterior.index)
    keyed = controls.set_index("item_id")["answer"]
    right = (posterior.loc[keyed.index, "label"] == keyed).to_numpy(dtype=float)
    calibrator, _ = calibrator_on_controls(model[keyed.index].to_numpy(), right, pd.Series(keyed.index),
                                           posterior.loc[keyed.index, "label"].to_numpy())
    assert calibrator.moved
    ordinary = result.answers.set_index("item_id")
    own = model[ordinary.index].to_numpy()  # calibrated, counted 60 / (60 + 50) against the model, kept its likeliest
    calibrated = shrunk(calibrator.apply(own, posterior.loc[ordinary.index, "label"]), own, 60)
    expected = bounded(still_likeliest(calibrated, own), ordinary["judgements_used"].to_numpy(), 2)
    np.testing.assert_allclose(ordinary["stop_confidence"], expected, rtol=1e-9)


# --- the stopping rule on strangers, against an independent computation ---

def _strangers(seed: int, p: float, items: int = 600, per_item: int = 6) -> tuple[pd.DataFrame, pd.Series]:
    """Every label from a worker seen nowhere else, right with chance ``p``, a slip either other label alike;
    the three labels equally often the truth."""
    rng = np.random.default_rng(seed)
    rows, truth = [], {}
    for i in range(items):
        truth[f"i{i}"] = "abc"[i % 3]
        for k in range(per_item):
            slips = [x for x in "abc" if x != truth[f"i{i}"]]
            label = truth[f"i{i}"] if rng.random() < p else slips[int(rng.integers(2))]
            rows.append({"item_id": f"i{i}", "worker_id": f"s{i}-{k}", "label": label})
    return pd.DataFrame(rows), pd.Series(truth)


@cache
def _strangers_once(seed: int, p: float) -> tuple[pd.DataFrame, pd.Series]:
    """``_strangers`` made once for the four rules below, which read it (nothing mutates it)."""
    return _strangers(seed, p)


def _one_coin_by_hand(labels: list[str], p: float, confidence: float, low: int, high: int,
                      settled: bool) -> tuple[int, bool]:
    """(judgements an item takes, whether it stopped only because the rest could at best tie it) when each
    label is a stranger's right with chance ``p``: the leading label's posterior is r^n1 / sum of r^n over the
    labels, r = p / ((1 - p) / 2) (three labels, even slips)."""
    r = p / ((1 - p) / 2)
    used = low
    while used < high:
        counts = sorted([*Counter(labels[:used]).values(), 0, 0], reverse=True)[:3]
        if r ** counts[0] / sum(r ** c for c in counts) >= confidence:
            break
        if settled and counts[0] - counts[1] >= high - used:
            return used, counts[0] - counts[1] == high - used
        used += 1
    return used, False


@pytest.mark.parametrize(("confidence", "settled"), [(0.95, False), (0.95, True), (0.99, False), (0.99, True)])
def test_the_stopping_rule_over_strangers_is_the_one_coin_rule(confidence: float, settled: bool) -> None:
    """Strangers carry no record, so the skill posterior (skill_prior at the crowd's true 0.8) is the one-coin
    posterior of the item's vote counts: the replay must take, item by item, the judgements the count rule
    takes by hand, and its cost and accuracy must be the exact ones of bench.adaptive_frontier (every vote
    sequence enumerated) up to sampling error. 0.95 and 0.99 sit clear of every count pattern's posterior
    (0.9697 for 2-0, 0.9827 for 3-1, 0.9961 for 3-0), so the base rates the model estimates cannot tip one.
    One place they may: a lead equal to the judgements left (3-1 with two to come) could at best tie, and at a
    tie the model's answer is the label its base rates favour, which can be the runner-up's by more than
    SETTLED_ODDS (the estimate is noisy at 600 items: a log ratio of 0.125 against log 1.1); such an item may go
    on, never stop sooner."""
    from bench.adaptive_frontier import threshold_rule

    p = 0.8
    frame, truth = _strangers_once(11, p)
    rule = StoppingRule(2, 6, confidence=confidence, method="mv", skill_prior=SkillPrior(p), settled=settled)
    result = replay(frame, rule).answers.set_index("item_id")
    by_hand = {item: _one_coin_by_hand(list(g["label"]), p, confidence, 2, 6, settled)
               for item, g in frame.groupby("item_id", sort=False)}
    taken = result["judgements_used"]
    expected = pd.Series({item: n for item, (n, _) in by_hand.items()})
    at_a_tie = pd.Series({item: tie for item, (_, tie) in by_hand.items()})
    differ = taken.reindex(expected.index) != expected
    assert not (differ & ~at_a_tie).any()  # every other item takes exactly the count rule's judgements
    assert (taken.reindex(expected.index)[differ] > expected[differ]).all()
    exact_accuracy, exact_mean = threshold_rule(p, confidence, 2, 6, settled=settled)
    error = 3 * taken.std() / np.sqrt(len(taken))
    if not settled:
        assert not differ.any() and abs(taken.mean() - exact_mean) < error
    else:  # at 0.99 about one item in ten is such a tie here (a judgement bought for nothing): never fewer
        assert taken.mean() > exact_mean - error
    right = (result["label"] == truth.reindex(result.index)).to_numpy(dtype=float)
    assert abs(right.mean() - exact_accuracy) < 3 * np.sqrt(exact_accuracy * (1 - exact_accuracy) / len(right))
