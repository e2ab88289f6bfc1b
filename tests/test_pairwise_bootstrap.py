"""The pairwise study's bootstrap (postprocess/pairwise_stats.strength_bootstrap) fits its 1,000 resamples at
once; held here to the way before: one Newton fit per resample, weighted by each judgement's item's draw count
(kept below as the reference), and to statsmodels' GLM on a few resamples."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from postprocess import pairwise_stats
from postprocess.bootstrap import clusters, interval, resample_counts
from postprocess.pairwise_stats import A_WINS, bradley_terry, check_pairs, logistic_fits, strength_bootstrap

PRECISION = 1e-8  # strengths of one resample, the new way against the old (log scale)


def logistic_fit_as_before(design: np.ndarray, wins: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The per-resample fit the bootstrap ran before, verbatim: NaN where it does not converge."""
    beta = np.zeros(design.shape[1])
    for _ in range(60):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        hessian = design.T @ (design * (weights * p * (1 - p))[:, None])
        try:
            step = np.linalg.solve(hessian, design.T @ (weights * (wins - p)))
        except np.linalg.LinAlgError:
            break
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            return beta
    return np.full(design.shape[1], np.nan)


def fits_as_before(df: pd.DataFrame, design: np.ndarray, wins: np.ndarray) -> np.ndarray:
    names, where = clusters(df["item_id"])
    return np.array([logistic_fit_as_before(design, wins, counts[where].astype(float))
                     for counts in resample_counts(len(names))])


def judgements(items: int, systems: dict[str, float], seed: int, per_item: int = 1, ties: float = 0.1,
               pairs_shown: int | None = None) -> pd.DataFrame:
    """Pairwise answers on ``items`` items by ``per_item`` judges each, systems of the given true strengths;
    ``pairs_shown``: how many of the system pairs each item shows (all by default)."""
    rng = np.random.default_rng(seed)
    names = list(systems)
    every = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    rows = []
    for item in range(items):
        shown = every if pairs_shown is None else [every[j] for j in rng.choice(len(every), pairs_shown, False)]
        for a, b in shown:
            if rng.random() < 0.5:
                a, b = b, a  # either system may be system_a
            p = 1 / (1 + np.exp(systems[b] - systems[a]))
            for judge in range(per_item):
                answer = 3 if rng.random() < ties else rng.choice([1, 2]) if rng.random() < p else rng.choice([4, 5])
                rows.append({"item_id": f"img{item}", "worker_id": f"w{judge}", "dimension": "overall",
                             "system_a": a, "system_b": b, "answer": int(answer)})
    return check_pairs(pd.DataFrame(rows))


def design_of(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """As bradley_terry builds them: +1 for system_a, -1 for system_b, the first system the reference."""
    systems = sorted(set(df["system_a"]) | set(df["system_b"]))
    design = np.zeros((len(df), len(systems)))
    design[np.arange(len(df)), df["system_a"].map(systems.index).to_numpy()] += 1
    design[np.arange(len(df)), df["system_b"].map(systems.index).to_numpy()] -= 1
    return design[:, 1:], df["answer"].map(A_WINS).to_numpy()


CASES: dict[str, dict[str, Any]] = {
    "three systems, 40 items": dict(items=40, systems={"A": 0.0, "B": 0.8, "C": -0.5}, seed=5),
    "four systems, three judges, no ties": dict(items=25, systems={"a": 0.0, "b": 0.3, "c": 1.2, "d": -0.4},
                                                seed=1, per_item=3, ties=0.0),
    # few items, one pair shown each: resamples that miss a system (singular) or that it always wins (no
    # convergence) are NaN, the same ones both ways
    "eight items, one pair each": dict(items=8, systems={"x": 0.0, "y": 1.0, "z": -1.0}, seed=3, pairs_shown=1,
                                       per_item=3),
    # a strong system that wins every comparison of a third of the resamples: no finite estimate there
    "a system that often wins all": dict(items=10, systems={"p": 0.0, "q": 2.0, "r": 0.2}, seed=8, ties=0.0),
}


@pytest.mark.parametrize("case", list(CASES))
def test_all_resamples_at_once_fit_what_one_fit_a_resample_did(case: str) -> None:
    data = judgements(**CASES[case])
    design, wins = design_of(data)
    before = fits_as_before(data, design, wins)
    now = strength_bootstrap(data, design, wins)
    names, where = clusters(data["item_id"])
    fits = logistic_fits(design, wins, resample_counts(len(names))[:, where].astype(float))
    assert (np.isnan(fits) == np.isnan(before)).all()
    assert np.nanmax(np.abs(fits - before)) < PRECISION
    for k, found in enumerate(now):
        expected = interval(before[:, k], "items")
        assert found["undefined"] == expected["undefined"] and found["resamples"] == 1000
        assert found["low"] == pytest.approx(expected["low"], abs=1e-6)
        assert found["high"] == pytest.approx(expected["high"], abs=1e-6)
    if case in ("eight items, one pair each", "a system that often wins all"):
        assert 200 < now[0]["undefined"] < 500  # undefined resamples exercised, and defined ones


def test_resample_fits_are_statsmodels_glm_with_frequency_weights() -> None:
    import statsmodels.api as sm

    data = judgements(**CASES["four systems, three judges, no ties"])
    design, wins = design_of(data)
    names, where = clusters(data["item_id"])
    counts = resample_counts(len(names))[:5]
    fits = logistic_fits(design, wins, counts[:, where].astype(float))
    for row, fit in zip(counts, fits, strict=True):
        glm = sm.GLM(wins, design, family=sm.families.Binomial(), freq_weights=row[where].astype(float)).fit()
        assert fit == pytest.approx(glm.params, abs=1e-6)


def test_one_item_has_no_interval() -> None:
    data = judgements(items=1, systems={"A": 0.0, "B": 1.0}, seed=2, per_item=4)
    found = bradley_terry(data)["B"]
    assert found["boot_low"] is None and found["boot_high"] is None


def test_fits_in_blocks_are_the_fits_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A big study is fitted a block of resamples at a time (memory): the same fits, block edges included."""
    data = judgements(**CASES["eight items, one pair each"])
    design, wins = design_of(data)
    names, where = clusters(data["item_id"])
    weights = resample_counts(len(names))[:, where].astype(float)
    whole = logistic_fits(design, wins, weights)
    monkeypatch.setattr(pairwise_stats, "BLOCK", design.size * 7)  # blocks of 7 resamples: 1,000 is no multiple
    np.testing.assert_array_equal(logistic_fits(design, wins, weights), whole)
