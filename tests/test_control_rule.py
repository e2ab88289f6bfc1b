"""The rule that blocks on control answers (postprocess/answers/control_items.py): where its line falls, computed
beside an independent integration of the posterior; what it costs an honest worker of the
simulator's skill; and the batch hold over it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from postprocess.answers.control_items import ControlPolicy, accuracy_above, control_blocks, control_scores

KEY = pd.DataFrame({"item_id": ["g1", "g2", "g3"], "field": "f", "answer": ["a", "b", "a"]})


def _posterior_above(right: int, seen: int, level: float, steps: int = 200_000) -> float:
    """P(accuracy >= level) under Beta(right + 1/2, seen - right + 1/2), integrated by the midpoint rule
    (beside scipy's, which postprocess.answers.control_items uses)."""
    a, b = right + 0.5, seen - right + 0.5
    norm = math.gamma(a) * math.gamma(b) / math.gamma(a + b)
    width = (1 - level) / steps
    xs = [level + (k + 0.5) * width for k in range(steps)]
    return sum(x ** (a - 1) * (1 - x) ** (b - 1) for x in xs) * width / norm


@pytest.mark.parametrize(("right", "seen", "blocked"), [(0, 2, False), (0, 3, True), (1, 5, False), (1, 6, True),
                                                        (2, 8, False), (2, 9, True), (3, 5, False)])
def test_the_posterior_rule_by_hand(right: int, seen: int, blocked: bool) -> None:
    """Where the default rule (Jeffreys prior, P(accuracy >= 0.5) < 0.05, 3 seen) draws its line, with
    the posterior computed independently: 0 of 2 is 0.076, 0 of 3 0.033, 1 of 5 0.088, 1 of 6 0.047."""
    assert accuracy_above(right, seen, 0.5) == pytest.approx(_posterior_above(right, seen, 0.5), abs=1e-3)
    assert (accuracy_above(right, seen, 0.5) < 0.05) is blocked
    scores = pd.DataFrame({"worker_id": ["w"], "controls": [seen], "correct": [right], "accuracy": [right / seen]})
    assert (not control_blocks(scores, ControlPolicy()).empty) is blocked


def test_controls_that_would_block_most_of_a_batch_hold_it() -> None:
    """A rule that blocks at the third control would, with a wrong key the guard misses, fall on honest
    workers: the blocks it makes go through the batch hold like any rule's."""
    from flows.campaigns.batch_hold import overreaching

    given = pd.DataFrame([(w, g, "f", "c") for w in ("w1", "w2", "w3", "w4") for g in ("g1", "g2", "g3")],
                         columns=["worker_id", "item_id", "field", "value"])
    blocks = control_blocks(control_scores(given, KEY), ControlPolicy())
    decisions = pd.DataFrame({"worker_id": ["w1", "w2", "w3", "w4", "w5"], "action": "approve", "reasons": ""})
    assert overreaching(decisions, blocks, 0.5) == [("control_accuracy", 4, 5)]


def _ever_blocked(accuracy: float, policy: ControlPolicy, controls: int = 40) -> float:
    """The chance a worker of this accuracy is blocked at some point, judged after every control."""
    pairs = [(r, n) for n in range(1, controls + 1) for r in range(n + 1)]
    scores = pd.DataFrame({"worker_id": [f"{r}/{n}" for r, n in pairs], "controls": [n for _, n in pairs],
                           "correct": [r for r, _ in pairs], "accuracy": [r / n for r, n in pairs]})
    rule = set(control_blocks(scores, policy)["worker_id"])  # "right/seen" the policy blocks
    alive, blocked = {0: 1.0}, 0.0
    for seen in range(1, controls + 1):
        nxt: dict[int, float] = {}
        for right, p in alive.items():
            for r, q in ((right + 1, accuracy), (right, 1 - accuracy)):
                if f"{r}/{seen}" in rule:
                    blocked += p * q
                else:
                    nxt[r] = nxt.get(r, 0.0) + p * q
        alive = nxt
    return blocked


def test_an_honest_worker_is_rarely_blocked_and_an_adversary_at_the_third_control() -> None:
    """The figures postprocess/answers/control_items.py quotes: the simulator's honest workers answer a three-way choice
    right with 0.55 + 0.4 skill, a slip right a third of the time half the time (flows/sim)."""
    rule = ControlPolicy()
    assert _ever_blocked(0.88, rule) < 0.003 and _ever_blocked(0.81, rule) < 0.01 and _ever_blocked(0.76, rule) < 0.02
    assert _ever_blocked(0.0, rule, controls=3) == 1.0 and _ever_blocked(0.0, rule, controls=2) == 0.0

    def accuracy(skill: float) -> float:
        careful = 0.55 + 0.4 * skill
        return careful + (1 - careful) / 6

    diligent = [accuracy(0.55 + 0.43 * k / 19) for k in range(20)]  # skill uniform on 0.55-0.98
    typo = [accuracy(0.4 + 0.3 * k / 19) for k in range(20)]  # typo-prone: 0.4-0.7
    crowd = (32 * sum(map(_ever_blocked, diligent, [rule] * 20)) / 20
             + 4 * sum(map(_ever_blocked, typo, [rule] * 20)) / 20) / 36
    assert 0.001 < crowd < 0.01


def test_a_campaign_planned_before_the_rule_keeps_its_own(tmp_path: Path) -> None:
    """The ledger's policy of a campaign planned with the Wilson rule (no alpha) stays that rule: 0 of 3
    does not block there (its min_seen was 4), and a new plan records alpha."""
    from bench.answers_accuracy import project
    from flows.answers.control_items import controls_record, stored_controls
    from flows.core.config.config import load_config
    from flows.core.ledger.store import Store

    store = Store(tmp_path / "h.db")
    old = {"controls": {"min_seen": 4, "block_below": 0.5, "confidence": 1.645, "key": [["g1", "f", "a"]]}}
    store.insert_raw("campaigns", [{"name": "old", "config_path": "", "config_json": json.dumps(old), "target": ""}])
    stored = stored_controls(store, "old")
    assert stored is not None and stored[1] == ControlPolicy(min_seen=4, alpha=0.0)
    scores = pd.DataFrame({"worker_id": ["w"], "controls": [3], "correct": [0], "accuracy": [0.0]})
    assert control_blocks(scores, stored[1]).empty and not control_blocks(scores, ControlPolicy()).empty
    record = controls_record(load_config(project(tmp_path, 20, 0)))
    assert record is not None and (record["alpha"], record["min_seen"]) == (0.05, 3)


def test_a_control_counts_once_a_worker_and_a_repeated_row_is_a_second_right_answer() -> None:
    """The score and the sequential test read the same answers: each worker's first answer to a control, right
    when it is any of the file's rows for it (a control listed twice takes two answers as right)."""
    from postprocess.answers.control_items import stopped_by_test

    key = pd.concat([KEY, pd.DataFrame({"item_id": ["g1"], "field": "f", "answer": ["c"]})])
    given = pd.DataFrame([("w", "g1", "f", "c"), ("w", "g1", "f", "a"), ("w", "g2", "f", "b"),
                          ("v", "g1", "f", "b"), ("v", "g1", "f", "b"), ("v", "g3", "f", "b")],
                         columns=["worker_id", "item_id", "field", "value"])
    scores = control_scores(given, key).set_index("worker_id")
    assert scores.loc["w", ["controls", "correct"]].tolist() == [2, 2]  # "c" is right for g1; the repeat unread
    assert scores.loc["v", ["controls", "correct"]].tolist() == [2, 0]
    constant = pd.DataFrame([("x", g, "f", "c") for g in ("g1", "g2", "g3")] * 4,
                            columns=["worker_id", "item_id", "field", "value"])
    said = stopped_by_test(constant, key)  # repeats of three controls are not twelve answers of evidence
    assert "x" not in said or " 1/3 right" in said["x"]
