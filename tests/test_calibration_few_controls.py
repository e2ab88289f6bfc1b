"""A calibration on a few control items is never worse, on average, than the model's own confidence on
the other items with gold: real crowds (Snow et al. 2008's RTE and TEMP, bench/snow_sets.py) and a synthetic
crowd of the 108-item, 39-worker held-out shape (bench/crowd_shapes.py), each with 10 controls drawn at random
ten times; controls picked as a fifth of the gold are still cross-validated; and none among the rows (an adaptive
round before any control was answered) leaves the model's own confidence."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from bench.crowd_shapes import HELD_OUT, shaped
from bench.snow_sets import SETS, path_of, read_set
from postprocess.answers.aggregation import aggregate
from postprocess.answers.beta_calibration import FOLDS, control_folds, fit_wrong_share, fold_of
from postprocess.answers.calibration import as_reported, bounded, calibrate_answers, calibrator_on_controls, log_loss

DRAWS = 10
MARGIN = 2e-4  # mean log-loss on the other items, in nats an item, the calibration may add over the model's own


def _crowd(name: str) -> pd.DataFrame:
    if name == "dense108":
        return shaped(next(s for s in HELD_OUT if s.name == name), 0)
    snow = next(s for s in SETS if s.name == name)
    path = path_of(snow)
    if path is None:
        pytest.skip(f"needs Snow et al. 2008's {name} set (../shared/data beside the project, or ${snow.variable})")
    return read_set(path)


def _added_log_loss(plain: pd.DataFrame, gold: pd.Series, controls: int, draw: int) -> float:
    """Log-loss on the gold items that are not controls, calibrated on ``controls`` random ones (``draw``: the
    seed that picks them), minus the model's own on the same items (``plain``: the aggregation's answers)."""
    items = np.array(sorted(gold.index))
    picked = np.random.default_rng(draw).choice(len(items), controls, replace=False)
    chosen = np.isin(np.arange(len(items)), picked)
    known = pd.DataFrame({"item_id": items[chosen], "field": "label", "answer": gold.reindex(items[chosen]).to_numpy()})
    calibrated, _ = calibrate_answers(plain, known)
    rest = gold.reindex(items[~chosen])
    after = calibrated.set_index("item_id").reindex(rest.index)
    before = plain.set_index("item_id").reindex(rest.index)
    return (log_loss(after["confidence"].to_numpy(float), (after["label"] == rest).to_numpy(float))
            - log_loss(before["confidence"].to_numpy(float), (before["label"] == rest).to_numpy(float)))


@pytest.mark.parametrize("name", ["rte", "temp", "dense108"])
def test_ten_controls_never_make_the_confidence_worse_on_average(name: str) -> None:
    frame = _crowd(name)
    plain = aggregate(frame.drop(columns="gold"), "auto").answers
    gold = frame.drop_duplicates("item_id").set_index("item_id")["gold"].astype(str)
    added = [_added_log_loss(plain, gold, 10, draw) for draw in range(DRAWS)]
    assert float(np.mean(added)) <= MARGIN, f"{name}: 10 controls add {np.mean(added):.5f} nats an item on average"


def test_controls_picked_as_one_fifth_of_the_gold_are_still_cross_validated() -> None:
    """Controls picked as one fold_of fifth (as the bench picks them) share that hash's residue; the calibration's
    own folds must still spread them over every fold, so that an over-sure model is pulled down."""
    keys = pd.Series([f"item{i}" for i in range(1000)])
    picked = keys[fold_of(keys, 5) == 0].reset_index(drop=True)
    sizes = np.bincount(control_folds(picked), minlength=FOLDS)
    assert sizes.max() - sizes.min() <= 1 and sizes.sum() == len(picked)
    rng = np.random.default_rng(0)
    said = rng.uniform(0.8, 0.999, len(picked))
    right = (rng.random(len(picked)) < said - 0.15).astype(float)  # right 15 points less often than said
    found, crossed = calibrator_on_controls(said, right, picked)
    assert found.moved and crossed.mean() < said.mean() - 0.05


def test_the_wrong_share_is_the_controls_maximum_likelihood() -> None:
    """Answers right (1 - 0.1) times as often as said: the share found is the grid's best within 0.001 and
    within 0.03 of 0.1; controls all right find none (the calibrator is the model's own)."""
    rng = np.random.default_rng(2)
    said = rng.uniform(0.7, 0.999, 3000)
    right = (rng.random(3000) < 0.9 * said).astype(float)
    found = fit_wrong_share(said, right)
    grid = np.linspace(0, 0.5, 5001)
    likelihood = [np.sum(right * np.log((1 - e) * said) + (1 - right) * np.log1p(-(1 - e) * said)) for e in grid]
    assert abs(found.wrong_share - grid[int(np.argmax(likelihood))]) < 1e-3
    assert abs(found.wrong_share - 0.1) < 0.03
    np.testing.assert_allclose(found.apply(said), (1 - found.wrong_share) * said, rtol=1e-12)
    none = fit_wrong_share(said[:50], np.ones(50))
    assert none.wrong_share == 0 and (none.apply(said) == said).all()


def test_controls_none_of_which_is_answered_among_the_rows_leave_the_models_confidence() -> None:
    """Gold on items among the rows but on a field they were not asked (no control answered): every row keeps the
    bounded model confidence, said as the model's (not as a control's), as a float column; and without the warning
    pandas gives before it raises (filling a float column from the controls' empty, untyped one)."""
    rng = np.random.default_rng(3)
    posterior = pd.DataFrame({"item_id": [f"i{k}" for k in range(40)], "field": "label",
                              "label": rng.choice(["x", "y"], 40), "confidence": rng.uniform(0.5, 1.0, 40),
                              "judgements": rng.integers(1, 4, 40), "margin": rng.uniform(0.01, 5, 40)})
    gold = pd.DataFrame({"item_id": ["i0", "i1"], "field": "another field", "answer": ["x", "y"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = as_reported(posterior, pd.Series({"label": 2}), gold)
    expected = bounded(posterior["confidence"].to_numpy(), posterior["judgements"].to_numpy(), 2)
    np.testing.assert_allclose(out["confidence"].to_numpy(dtype=float), expected, rtol=1e-12)
    assert out["confidence"].dtype == float and (out["confidence_source"] == "model").all()
