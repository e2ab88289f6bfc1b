"""The studies' bootstrap intervals (postprocess/bootstrap.py): seeded, blind to
row order and to ids read back as numbers, and resampling what the statistics compute."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from postprocess.error_stats import error_summary
from postprocess.pairwise_stats import bradley_terry, check_pairs, logistic_fits
from postprocess.rating_stats import rating_summary
from postprocess.severity_stats import condition_means, effect_sizes, severity


def ratings(seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame([{"participant_id": p, "condition": c, "score": 50 + 6 * k + rng.normal(0, 10)}
                         for p in range(1, 25) for k, c in enumerate("abcd") for _ in range(2)])


def test_severity_intervals_hold_the_estimate_and_ignore_row_order_and_id_type() -> None:
    data = ratings()
    found = severity(data)
    eta2 = found["intervals"]["eta2"]
    assert eta2["low"] < found["anova"]["eta2"] < eta2["high"] and eta2["resamples"] == 1000
    for c, v in found["conditions"].items():
        ci = found["intervals"]["condition_means"][c]
        assert ci["low"] < v["mean"] < ci["high"]
    shuffled = data.sample(frac=1.0, random_state=7).assign(participant_id=lambda d: d["participant_id"].astype(str))
    assert severity(shuffled)["intervals"] == found["intervals"]  # as `hitflow analyze` reads judgements.csv
    other = severity(ratings(seed=4))["intervals"]
    assert other != found["intervals"]  # the interval depends on the data, not only on the seed


def test_effect_sizes_by_hand_equal_the_anovas() -> None:
    found = severity(ratings())
    cells, _ = condition_means(ratings())
    wide = cells.pivot(index="participant_id", columns="condition", values="score").to_numpy()
    mine = effect_sizes(wide[None])
    assert mine["eta2"][0] == pytest.approx(found["anova"]["eta2"], rel=1e-9)
    assert mine["eta2_partial"][0] == pytest.approx(found["anova"]["eta2_partial"], rel=1e-9)


def pairs(seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    strength = {"A": 0.0, "B": 0.8, "C": -0.5}
    rows = []
    for item in range(40):
        for a, b in (("A", "B"), ("A", "C"), ("B", "C")):
            p = 1 / (1 + np.exp(strength[b] - strength[a]))
            rows.append({"item_id": item, "worker_id": "w", "dimension": "overall", "system_a": a, "system_b": b,
                         "answer": int(rng.choice([1, 2, 3, 4, 5], p=[p / 2, p / 2 - 0.05, 0.1, (1 - p) / 2 - 0.05,
                                                                      (1 - p) / 2]))})
    return check_pairs(pd.DataFrame(rows))


def test_the_bootstraps_logistic_fit_is_the_glm_statsmodels_fits() -> None:
    data = pairs()
    fitted = bradley_terry(data)
    systems = sorted(fitted)
    design = np.zeros((len(data), len(systems)))
    design[np.arange(len(data)), data["system_a"].map(systems.index)] += 1
    design[np.arange(len(data)), data["system_b"].map(systems.index)] -= 1
    wins = data["answer"].map({1: 1.0, 2: 1.0, 3: 0.5, 4: 0.0, 5: 0.0}).to_numpy()
    beta = logistic_fits(design[:, 1:], wins, np.ones((1, len(data))))[0]
    assert beta == pytest.approx([fitted[s]["strength"] for s in systems[1:]], abs=1e-4)
    for s in systems[1:]:
        assert fitted[s]["boot_low"] < fitted[s]["strength"] < fitted[s]["boot_high"]
    assert fitted["B"]["boot_low"] > 0  # B's planted advantage shows in the interval


def test_rating_and_error_intervals_are_seeded_and_bracket_their_estimates() -> None:
    rng = np.random.default_rng(2)
    labels = pd.DataFrame([{"item_id": i, "worker_id": f"w{j}", "label": 1 + (i % 4 + (rng.random() < 0.2)) % 4}
                           for i in range(50) for j in range(3)])
    found = rating_summary(labels, "ordinal")
    assert found["intervals"]["mean_of_means"]["low"] < found["mean_of_means"] < \
        found["intervals"]["mean_of_means"]["high"]
    alpha = found["intervals"]["krippendorff_alpha"]
    assert alpha["low"] < found["agreement"]["krippendorff_alpha"] < alpha["high"]
    assert rating_summary(labels.iloc[::-1], "ordinal")["intervals"] == found["intervals"]
    judged = pd.DataFrame([{"item_id": i, "worker_id": f"w{j}", "congruent": "congruent" if rng.random() < 0.7 else
                            "incongruent", "categories": ""} for i in range(30) for j in range(3)])
    share = error_summary(judged)
    ci = share["intervals"]["congruent_share"]
    assert ci["low"] < share["congruent_share"] < ci["high"] and ci["over"] == "items"
