"""The answers package's CPU pass (2026-11-27) changed how its numbers are computed, never the numbers: each
rewritten function against its version before the pass (tests/answers_v1, kept as the independent
computation), float for float, on random crowds and on the real WSD labels."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from postprocess.answers import control_items, label_hygiene, method_choice, tempering, worker_skill
from postprocess.answers.adaptive import StoppingRule, replay
from postprocess.answers.aggregation import aggregate_scored
from postprocess.answers.skill_posterior import SkillPrior, label_posterior
from tests.answers_v1 import adaptive as old_adaptive
from tests.answers_v1 import aggregation as old_aggregation
from tests.answers_v1 import control_items as old_control_items
from tests.answers_v1 import label_hygiene as old_label_hygiene
from tests.answers_v1 import method_choice as old_method_choice
from tests.answers_v1 import skill_posterior as old_skill_posterior
from tests.answers_v1 import tempering as old_tempering
from tests.answers_v1 import worker_skill as old_worker_skill
from tests.crowd_labels import crowd_frame

WSD = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "snow2008-wsd" / "wsd.standardized.tsv"
needs_wsd = pytest.mark.skipif(not WSD.exists(), reason=f"needs ../shared/data beside the project ({WSD} is absent)")


def random_crowd(seed: int, items: int, per_item: int, fields: int = 1, workers: int = 12, k: int = 3,
                 shuffle: bool = False) -> pd.DataFrame:
    """Workers right 70% of the time, a slip any label; with ``shuffle`` the rows in a random order."""
    rng = np.random.default_rng(seed)
    rows = []
    for f in range(fields):
        for i in range(items):
            truth = rng.integers(k)
            for j in rng.permutation(workers)[:per_item]:
                label = truth if rng.random() < 0.7 else rng.integers(k)
                rows.append({"item_id": f"i{i}", "worker_id": f"w{j}", "label": f"L{label}", "field": f"f{f}"})
    out = pd.DataFrame(rows)
    return out.sample(frac=1, random_state=seed).reset_index(drop=True) if shuffle else out


def wsd() -> pd.DataFrame:
    raw = pd.read_csv(WSD, sep="\t")
    return pd.DataFrame({"item_id": raw["orig_id"], "worker_id": raw["!amt_worker_ids"],
                         "label": raw["response"].astype(str)})


CROWDS = {"tiny": lambda: random_crowd(5, 3, 2), "fuzz": lambda: pd.DataFrame(
    [(f"i{i}", f"w{w}", "yes" if (i + w) % 3 else "no") for i in range(6) for w in range(5)],
    columns=["item_id", "worker_id", "label"]),
    "fields": lambda: random_crowd(2, 40, 5, fields=2), "shuffled": lambda: random_crowd(3, 300, 4, shuffle=True),
    "sorted": lambda: random_crowd(6, 50, 5).sort_values("item_id", kind="stable", ignore_index=True),
    "binary": lambda: random_crowd(4, 25, 3, workers=30, k=2),
    "crowd": lambda: crowd_frame(1, items=300, per_item=6)[0]}


def same_frame(new: pd.DataFrame, old: pd.DataFrame) -> None:
    """Equal to the last bit: values (NaN where NaN), columns, dtypes, index and attrs."""
    pd.testing.assert_frame_equal(new, old, check_exact=True)
    assert new.attrs == old.attrs


@pytest.mark.parametrize("seed", range(20))
def test_method_choice_models_and_choice_are_the_old_ones(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(2, 400)), int(rng.integers(2, 5))
    items = rng.integers(0, max(1, n // int(rng.integers(1, 7))), n)
    workers, labels = rng.integers(0, int(rng.integers(1, 15)), n), rng.integers(0, k, n)
    fit = rng.random(n) < 0.8
    for name in ("_one_coin", "_dawid_skene"):
        args = (items[fit], workers[fit], labels[fit], k, items[~fit], workers[~fit], labels[~fit])
        assert np.array_equal(getattr(method_choice, name)(*args), getattr(old_method_choice, name)(*args),
                              equal_nan=True)
    assert method_choice.choose(items, workers, labels, k, 1.0) == old_method_choice.choose(items, workers, labels,
                                                                                               k, 1.0)


@pytest.mark.parametrize("crowd", sorted(CROWDS))
@pytest.mark.parametrize("method", ["auto", "mv", "ds", "skill"])
def test_aggregate_scored_is_the_old_one(crowd: str, method: str) -> None:
    frame = CROWDS[crowd]()
    new, old = aggregate_scored(frame, method), old_aggregation.aggregate_scored(frame, method)
    same_frame(new[0].answers, old[0].answers)
    same_frame(new[0].workers, old[0].workers)


@pytest.mark.parametrize("crowd", sorted(CROWDS))
def test_aggregate_scored_with_controls_is_the_old_one(crowd: str) -> None:
    frame = CROWDS[crowd]()
    items = sorted(frame["item_id"].unique())[: max(2, frame["item_id"].nunique() // 10)]
    controls = pd.DataFrame({"item_id": items, "answer": [f"L{i % 3}" for i in range(len(items))]})
    (new, new_checked), (old, old_checked) = (aggregate_scored(frame, "auto", controls=controls),
                                              old_aggregation.aggregate_scored(frame, "auto", controls=controls))
    same_frame(new.answers, old.answers)
    same_frame(new.workers, old.workers)
    assert new_checked is not None and old_checked is not None
    same_frame(new_checked, old_checked)


@needs_wsd
@pytest.mark.parametrize("method", ["auto", "mv", "ds"])
def test_wsd_aggregates_as_before(method: str) -> None:
    frame = wsd()
    new, old = aggregate_scored(frame, method)[0], old_aggregation.aggregate_scored(frame, method)[0]
    same_frame(new.answers, old.answers)
    same_frame(new.workers, old.workers)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("page_labels", [5.0, 0.0])
def test_worker_skill_scores_are_the_old_ones(seed: int, page_labels: float) -> None:
    """Pages in and out of order (pandas sums a page's labels one of two ways: both are kept)."""
    frame = random_crowd(seed, 30 + 10 * seed, 3 + seed % 4, fields=1 + seed % 2)
    rng = np.random.default_rng(seed)
    pages = [f"u{i // 7}" for i in range(len(frame))] if seed % 3 else list(rng.choice(["a", "b", "c", "d"],
                                                                                       len(frame)))
    given = frame.rename(columns={"label": "value"}).assign(unit=pages)
    items = sorted(frame["item_id"].unique())[:4]
    controls = pd.DataFrame({"item_id": items, "field": "f0", "answer": ["L0", "L1", "L2", "L3"]})
    policy = worker_skill.SkillPolicy(page_labels=page_labels)
    same_frame(worker_skill.skill_scores(given, controls, policy),
               old_worker_skill.skill_scores(given, controls, old_worker_skill.SkillPolicy(page_labels=page_labels)))


@pytest.mark.parametrize("seed", range(15))
def test_control_items_are_the_old_ones(seed: int) -> None:
    """Controls answered by the crowd or against it, blank answers, a control listed twice."""
    rng = np.random.default_rng(seed)
    frame = random_crowd(seed, int(rng.integers(1, 30)), int(rng.integers(1, 6)), fields=1 + seed % 2,
                         k=2 + seed % 3)
    given = frame.rename(columns={"label": "value"})
    if seed % 4 == 0:
        given.loc[given.index[:3], "value"] = " "
    items = sorted(frame["item_id"].unique())[: int(rng.integers(1, 6))]
    controls = pd.DataFrame({"item_id": items, "field": "f0", "answer": [f"L{rng.integers(3)}" for _ in items]})
    if seed % 5 == 0:
        controls = pd.concat([controls, controls.head(1)])
    same_frame(control_items.trusted_controls(given, controls), old_control_items.trusted_controls(given, controls))
    same_frame(control_items.control_scores(given, controls), old_control_items.control_scores(given, controls))


RULES = {"defaults": StoppingRule(), "ds": StoppingRule(2, 6, confidence=0.95, method="ds"),
         "lead": StoppingRule(3, lead=2, method="mv", stop_on="method"), "starter": StoppingRule(2, 6, confidence=0.98),
         "unsettled": StoppingRule(3, 5, confidence=0.9, settled=False),
         "typical": StoppingRule(2, 6, confidence=0.95, skill_prior=SkillPrior(typical_weight=20.0))}


@pytest.mark.parametrize("crowd", ["tiny", "fuzz", "fields", "sorted", "binary"])
@pytest.mark.parametrize("rule", sorted(RULES))
def test_replay_is_the_old_one(crowd: str, rule: str) -> None:
    frame = CROWDS[crowd]()
    new, old = replay(frame, RULES[rule]), old_adaptive.replay(frame, old_adaptive.StoppingRule(**vars(RULES[rule])))
    same_frame(new.answers, old.answers)
    same_frame(new.used, old.used)


@pytest.mark.parametrize("crowd", ["fuzz", "fields", "crowd"])
def test_replay_with_controls_and_label_posterior_are_the_old_ones(crowd: str) -> None:
    frame = CROWDS[crowd]()
    items = sorted(frame["item_id"].unique())[:5]
    controls = pd.DataFrame({"item_id": items, "answer": [f"L{i % 3}" for i in range(len(items))]})
    rule = StoppingRule(2, 6, confidence=0.95)
    new = replay(frame, rule, controls=controls)
    old = old_adaptive.replay(frame, old_adaptive.StoppingRule(**vars(rule)), controls=controls)
    same_frame(new.answers, old.answers)
    for prior in (SkillPrior(), SkillPrior(typical_weight=20.0), SkillPrior(crowd_weight=0.0)):
        same_frame(label_posterior(frame, prior), old_skill_posterior.label_posterior(frame, prior))


@needs_wsd
def test_wsd_replays_as_before() -> None:
    frame = wsd()
    for rule in (RULES["ds"], RULES["starter"]):
        new, old = replay(frame, rule), old_adaptive.replay(frame, old_adaptive.StoppingRule(**vars(rule)))
        same_frame(new.answers, old.answers)
        same_frame(new.used, old.used)


SPELLINGS = np.array(["Good", "good", " good ", "GOOD", "bad", "Bad", "b  ad", "", " ", "ok", "Ok", "OK ", "x"],
                     dtype=object)


@pytest.mark.parametrize("seed", range(20))
def test_label_hygiene_is_the_old_one(seed: int) -> None:
    """Spellings folded (ties of count among them), blanks, repeats under every policy, one field or two."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 50))
    frame = pd.DataFrame({"item_id": rng.choice(["i1", "i2", "i3", "i4", " i1"], n),
                          "worker_id": rng.choice(["w1", "w2", "w3"], n), "label": rng.choice(SPELLINGS, n)})
    if seed % 2:
        frame["field"] = rng.choice(["f1", "f2", " f1"], n)
    for repeats in ("last", "first", "majority", "refuse"):
        for fold_case in (True, False):
            policy = label_hygiene.HygienePolicy(repeats=repeats, fold_case=fold_case)
            try:
                new = label_hygiene.tidy(frame, policy)
            except label_hygiene.RepeatedLabels as refused:
                with pytest.raises(old_label_hygiene.RepeatedLabels, match=re.escape(str(refused))):
                    old_label_hygiene.tidy(frame, old_label_hygiene.HygienePolicy(repeats, fold_case))
                continue
            old = old_label_hygiene.tidy(frame, old_label_hygiene.HygienePolicy(repeats, fold_case))
            same_frame(new.frame, old.frame)
            assert new.counts == old.counts


@pytest.mark.parametrize("seed", range(10))
def test_the_temperature_grid_scored_in_blocks_is_the_old_loop(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 2000)), int(rng.integers(2, 6))
    others, own = rng.normal(size=(n, k)) * 5, rng.normal(size=(n, k)) * 2 - 3
    log_classes = np.log(rng.dirichlet(np.ones(k)))
    old = np.array([old_tempering.held_out_score(others, own, log_classes, t) for t in tempering.GRID])
    assert np.array_equal(tempering._grid_scores(others, own, log_classes), old)
