"""The pooled control rule (postprocess/answers/worker_skill.py): control answers and agreement with the other workers'
answer in one posterior of a worker's accuracy. Small cases computed by hand beside it (the one-coin
fit's fixed point in scalars, the posterior by a midpoint rule of 200,000 steps), the page cap and the
minimum of evidence, the batch hold over it, and the ledger: a campaign planned before it keeps its
rules."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from postprocess.answers.worker_skill import SkillPolicy, skill_blocks, skill_scores

OPTIONS = ["a", "b", "c"]
# 100 controls, their answers a, b, c in turn
KEY = pd.DataFrame({"item_id": [f"g{k}" for k in range(100)], "field": "f", "answer": [OPTIONS[k % 3]
                                                                                       for k in range(100)]})


def _above(likelihood: Callable[[np.ndarray], np.ndarray], level: float = 0.5, steps: int = 200_000) -> float:
    """P(accuracy >= level) under the Jeffreys prior and this likelihood, by the midpoint rule (on arrays: the
    same sums as a loop over the steps, to rounding)."""
    xs = (np.arange(steps) + 0.5) / steps
    mass = likelihood(xs) * xs ** -0.5 * (1 - xs) ** -0.5
    return float(mass[xs >= level].sum() / mass.sum())


def _anchored(items: list[str], worker_label: str = "a", unit: str = "p1") -> pd.DataFrame:
    """Two workers right on all 100 controls who both answer ``b`` on ``items``, and worker ``w`` who
    answers ``worker_label`` on them, all on one page."""
    rows = [(o, g, "f", a, f"{o}-{g}") for o in ("o1", "o2") for g, a in zip(KEY["item_id"], KEY["answer"],
                                                                             strict=True)]
    rows += [(o, i, "f", "b", f"{o}-x") for o in ("o1", "o2") for i in items]
    rows += [("w", i, "f", worker_label, unit) for i in items]
    return pd.DataFrame(rows, columns=["worker_id", "item_id", "field", "value", "unit"])


def _others_vote(n_items: int) -> float:
    """The two anchored workers' vote, from the one-coin fit's fixed point worked out in scalars: each
    is right on 100 controls and (nearly surely) on the items, so accuracy (100 + n + 0.7 x 2) / (100 +
    n + 2), held at 0.99 at most; a vote is log(a (K - 1) / (1 - a)) with K = 3."""
    a = min(0.99, (100 + n_items + 1.4) / (100 + n_items + 2))
    return math.log(a * 2 / (1 - a))


def test_controls_alone_are_the_beta_posterior() -> None:
    """No ordinary item: the posterior is Beta(right + 1/2, wrong + 1/2), every control one source."""
    given = pd.DataFrame({"worker_id": "w", "item_id": ["g0", "g1", "g2", "g3"], "field": "f",
                          "value": ["b", "b", "a", "b"]})  # the key is a, b, c, a: 1 right of 4
    s = skill_scores(given, KEY, SkillPolicy()).iloc[0]
    assert (s["controls"], s["correct"], s["items"], s["evidence"]) == (4, 1, 0, 4.0)
    assert s["above"] == pytest.approx(_above(lambda x: x * (1 - x) ** 3), abs=1e-3)
    assert s["above"] == pytest.approx(0.1605, abs=1e-3)  # scipy.special.betaincc(1.5, 3.5, 0.5)


def test_one_label_against_two_anchored_workers_by_hand() -> None:
    """w's label ``a`` where two workers right on 100 controls say ``b``: without w's own vote the item
    is b with weight 2v and a, c with 0, so p(a) = 1 / (2 + e^(2v)); w's likelihood p x + (1 - p)(1 - x)/2."""
    scores = skill_scores(_anchored(["x"]), KEY, SkillPolicy()).set_index("worker_id")
    p = 1 / (2 + math.exp(2 * _others_vote(1)))
    assert scores.loc["w", "agreement"] == pytest.approx(p, rel=1e-6)
    assert scores.loc["w", "above"] == pytest.approx(_above(lambda x: p * x + (1 - p) * (1 - x) / 2), abs=1e-3)
    assert scores.loc["w", "evidence"] == pytest.approx((1 - p / ((1 - p) / 2)) / 5)  # one label of a page of 5
    assert scores.loc["o1", ["controls", "correct", "items"]].tolist() == [100, 100, 1]
    assert scores.loc["o1", "above"] > 0.999


def test_a_page_weighs_at_most_page_labels_labels() -> None:
    """Ten labels on one page, each against the two anchored workers: their likelihood counts to the
    power 5/10 (page_labels 5); the page is one source, so alone it blocks nobody, and one wrong
    control beside it is two."""
    items = [f"x{k}" for k in range(10)]
    p = 1 / (2 + math.exp(2 * _others_vote(10)))
    s = skill_scores(_anchored(items), KEY, SkillPolicy()).set_index("worker_id").loc["w"]
    assert s["above"] == pytest.approx(_above(lambda x: (p * x + (1 - p) * (1 - x) / 2) ** 5), abs=1e-3)
    assert s["evidence"] == pytest.approx(1.0) and s["above"] < 0.05
    assert skill_blocks(skill_scores(_anchored(items), KEY, SkillPolicy()), SkillPolicy()).empty
    wrong_control = pd.concat([_anchored(items), pd.DataFrame([("w", "g1", "f", "a", "p1")],
                                                              columns=["worker_id", "item_id", "field", "value",
                                                                       "unit"])])
    s = skill_scores(wrong_control, KEY, SkillPolicy()).set_index("worker_id").loc["w"]
    assert s["evidence"] == pytest.approx(2.0)
    assert s["above"] == pytest.approx(_above(lambda x: (p * x + (1 - p) * (1 - x) / 2) ** 5 * (1 - x)), abs=1e-3)
    blocks = skill_blocks(skill_scores(wrong_control, KEY, SkillPolicy()), SkillPolicy())
    assert blocks["worker_id"].tolist() == ["w"] and blocks["rules"][0].startswith("worker_skill P=")
    # with no cap, the ten labels count in full
    free = skill_scores(_anchored(items), KEY, SkillPolicy(page_labels=0)).set_index("worker_id").loc["w"]
    assert free["above"] == pytest.approx(_above(lambda x: (p * x + (1 - p) * (1 - x) / 2) ** 10), abs=1e-3)
    assert skill_blocks(skill_scores(_anchored(items), KEY, SkillPolicy(block_below=0)), SkillPolicy(block_below=0)
                        ).empty


def test_agreeing_with_the_anchored_workers_never_blocks() -> None:
    items = [f"x{k}" for k in range(30)]
    pages = pd.concat([_anchored(items[k:k + 10], "b", f"p{k}") for k in range(0, 30, 10)]).drop_duplicates()
    s = skill_scores(pages, KEY, SkillPolicy()).set_index("worker_id").loc["w"]
    assert s["evidence"] == pytest.approx(3.0, abs=0.01) and s["above"] > 0.99 and s["agreement"] > 0.99


def test_a_rule_on_most_of_the_batch_holds_it() -> None:
    """A wrong key on every control, which the crowd cannot contradict (one answer each): the pooled
    rule would block most of the batch, and the batch is held instead."""
    from flows.campaigns.batch_hold import overreaching

    key = KEY.head(3).assign(answer="c")
    given = pd.DataFrame([(w, g, "f", a, f"{w}-p") for w in ("w1", "w2", "w3", "w4")
                          for g, a in zip(key["item_id"], ["a", "b", "a"], strict=True)],
                         columns=["worker_id", "item_id", "field", "value", "unit"])
    blocks = skill_blocks(skill_scores(given, key, SkillPolicy()), SkillPolicy())
    decisions = pd.DataFrame({"worker_id": ["w1", "w2", "w3", "w4", "w5"], "action": "approve", "reasons": ""})
    assert overreaching(decisions, blocks, 0.5) == [("worker_skill", 4, 5)]


def test_a_campaign_planned_before_the_pooled_rule_keeps_its_rules(tmp_path: Path) -> None:
    from bench.answers_accuracy import project
    from flows.core.config.config import load_config
    from flows.core.ledger.store import Store
    from flows.custom.agreement_record import skill_record, stored_skill
    from flows.custom.custom_task import custom_item_plan

    store = Store(tmp_path / "h.db")
    old = {"controls": {"min_seen": 3, "block_below": 0.5, "confidence": 1.645, "alpha": 0.05,
                        "key": [["g1", "f", "a"]]}}
    store.insert_raw("campaigns", [{"name": "old", "config_path": "", "config_json": json.dumps(old), "target": ""}])
    assert stored_skill(store, "old") is None
    cfg = load_config(project(tmp_path, 30, 0))
    record = skill_record(cfg, custom_item_plan(cfg))
    assert record is not None and record["fields"] == ["sentiment"] and record["min_evidence"] == 2.0
    store.insert_raw("campaigns", [{"name": "new", "config_path": "", "target": "",
                                    "config_json": json.dumps({"skill": record})}])
    stored = stored_skill(store, "new")
    assert stored is not None and stored == (["sentiment"], SkillPolicy())
    off = load_config(project(tmp_path, 30, 0, pooling=False))
    assert skill_record(off, custom_item_plan(off)) is None
