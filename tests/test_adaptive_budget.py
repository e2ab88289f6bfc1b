"""postprocess.answers.adaptive_budget: a replay within a share of the judgements, the least sure served first."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import pytest

from postprocess.answers import adaptive_budget
from postprocess.answers.adaptive import DEFAULT_RULE, Replay, StoppingRule, replay, saving


def _frame(seed: int, items: int = 50, per_item: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        truth = rng.integers(2)
        for j in rng.permutation(16)[:per_item]:
            label = truth if rng.random() < 0.55 + 0.025 * j else 1 - truth  # workers of 0.55 to 0.93
            rows.append({"item_id": f"i{i:02d}", "worker_id": f"w{j}", "label": f"L{label}"})
    return pd.DataFrame(rows)


def test_within_keeps_the_least_sure_or_the_nearest() -> None:
    asks = np.array([True, False, True, True, True])
    confidence = np.array([0.9, 0.1, 0.5, 0.97, 0.5])
    assert adaptive_budget.within(asks, confidence, 9).tolist() == asks.tolist()
    assert adaptive_budget.within(asks, confidence, 2).tolist() == [False, False, True, False, True]
    assert adaptive_budget.within(asks, confidence, 2, nearest_first=True).tolist() == [True, False, False, True,
                                                                                      False]
    assert not adaptive_budget.within(asks, confidence, 0).any()


def test_the_minimum_is_paid_whatever_the_budget_and_the_raise_is_said() -> None:
    assert adaptive_budget.paid(150, 2, np.full(100, 3)) == 200  # raised to pay two judgements an item
    assert adaptive_budget.paid(400, 2, np.full(100, 3)) == 400
    assert adaptive_budget.paid(10, 2, np.array([1, 5])) == 10  # an item with one label costs one
    assert adaptive_budget.paid(None, 2, np.array([1])) is None
    assert adaptive_budget.limit(0.5, np.array([10, 10, 3])) == 11
    assert adaptive_budget.limit(None, np.array([1])) is None
    frame = _frame(3, items=40, per_item=3)  # half of 3 labels an item cannot pay 2 an item
    replayed = replay(frame, StoppingRule(2, None, 0.99, budget=0.5))
    assert (replayed.answers["judgements_used"] >= 2).all()
    said = saving(replayed, frame)["budget"]
    assert said["raised_to_pay_min_judgements"] is True
    assert said["judgements_allowed"] == 80 and said["share"] == 0.5
    assert 0 <= said["items_cut_while_uncertain"] <= 40
    roomy = saving(replay(_frame(3), StoppingRule(2, None, 0.99, budget=0.5)), _frame(3))["budget"]
    assert roomy["raised_to_pay_min_judgements"] is False and roomy["judgements_spent"] <= roomy["judgements_allowed"]


def test_a_whole_budget_without_a_second_target_is_the_rule_without_budget() -> None:
    frame = _frame(1)
    plain = replay(frame, StoppingRule(2, None, 0.99))
    whole = replay(frame, StoppingRule(2, None, 0.99, budget=1.0))
    pd.testing.assert_frame_equal(plain.used, whole.used)


@cache
def _unbudgeted() -> tuple[pd.DataFrame, Replay]:
    """The crowd the budget shares below are tried on, and its replay without a budget: the same for each share,
    so made once (nothing mutates them)."""
    frame = _frame(2)
    return frame, replay(frame, StoppingRule(2, None, 0.999))


@pytest.mark.parametrize("share", [0.2, 0.35, 0.5])
def test_the_replay_stays_within_its_budget(share: float) -> None:
    frame, plain = _unbudgeted()
    assert saving(plain, frame)["share_used"] > 0.5  # the rule alone would spend more than any budget here
    result = replay(frame, StoppingRule(2, None, 0.999, budget=share))
    used = result.answers.set_index("item_id")["judgements_used"]
    allowed = max(int(share * len(frame)), 2 * 50)  # a budget below two an item is raised to pay them
    assert allowed - 1 <= used.sum() <= allowed  # spent to the last judgement or so
    assert (used >= 2).all() and len(result.used) == used.sum()


def test_what_the_first_target_leaves_serves_the_second() -> None:
    """The rounds up to the first target are the same with or without a second: the second only adds."""
    frame = _frame(3)
    first = replay(frame, StoppingRule(2, None, 0.9, budget=0.6))
    both = replay(frame, StoppingRule(2, None, 0.9, budget=0.6, budget_confidence=0.999))
    keys = ["item_id", "worker_id"]
    assert set(map(tuple, first.used[keys].to_numpy())) < set(map(tuple, both.used[keys].to_numpy()))
    assert len(first.used) < len(both.used) <= int(0.6 * len(frame))
    assert DEFAULT_RULE.budget == 0.5 and DEFAULT_RULE.budget_confidence == 0.999


def test_a_budget_outside_0_1_is_refused() -> None:
    with pytest.raises(ValueError, match=r"budget 1\.5"):
        replay(_frame(1), StoppingRule(2, budget=1.5))
    with pytest.raises(ValueError, match="budget confidence 0"):
        replay(_frame(1), StoppingRule(2, budget=0.5, budget_confidence=0.0))


def test_a_budgeted_round_asks_a_twentieth_of_the_items_and_the_budget_is_still_spent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Small rounds, each read again before the next: a quarter of the items a round lost RTE 18 items over five
    orders at 40% of its labels (bench/adaptive_forty.py)."""
    rounds: list[int] = []
    by_gain = adaptive_budget.by_gain

    def counted(asks: np.ndarray, gain: np.ndarray, left: int) -> np.ndarray:
        out = by_gain(asks, gain, left)
        rounds.append(int(out.sum()))
        return out

    monkeypatch.setattr(adaptive_budget, "by_gain", counted)
    frame = _frame(2)  # 50 items: at most 2 a round (a quarter: 12)
    result = replay(frame, replace(DEFAULT_RULE, budget=0.4))
    assert rounds and max(rounds) == 2
    assert len(result.used) == int(0.4 * len(frame))  # the budget is spent to the last judgement


def test_a_budgeted_round_fits_the_skill_posterior_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The gain reads the stop confidence's own fit (it once fitted the same judgements again, each round)."""
    from postprocess.answers import adaptive, skill_posterior

    calls = {"fit": 0, "round": 0}
    fit, stop = skill_posterior._fit, adaptive.stop_confidence

    def fitted(*args: Any) -> Any:
        calls["fit"] += 1
        return fit(*args)

    def round_(*args: Any) -> Any:
        calls["round"] += 1
        return stop(*args)

    monkeypatch.setattr(skill_posterior, "_fit", fitted)
    monkeypatch.setattr(adaptive, "stop_confidence", round_)
    replay(_frame(2, items=20), StoppingRule(2, None, 0.99, method="mv", budget=0.4))
    assert calls["round"] > 2 and calls["fit"] == calls["round"]
