"""The evaluation statistics, each checked against an independent computation (textbook formulas
in numpy/scipy written here) and on synthetic data with known answers."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from scipy import stats

from postprocess.agreement import agreement
from postprocess.error_stats import error_summary
from postprocess.pairwise_stats import pairwise_summary, undo_order
from postprocess.screening import ScreenRules, demographic_exclusions, session_exclusions
from postprocess.severity_stats import severity


def labels_frame(matrix: list[list[object]]) -> pd.DataFrame:
    """Rows = items, columns = raters; None = not rated."""
    return pd.DataFrame([(f"i{i}", f"r{j}", str(v)) for i, row in enumerate(matrix) for j, v in enumerate(row)
                         if v is not None], columns=["item_id", "worker_id", "label"])


def fleiss_by_hand(matrix: np.ndarray) -> float:
    cats = np.unique(matrix)
    counts = np.array([[np.sum(row == c) for c in cats] for row in matrix], dtype=float)
    n = counts.sum(axis=1)[0]
    p_i = ((counts**2).sum(axis=1) - n) / (n * (n - 1))
    p_j = counts.sum(axis=0) / counts.sum()
    return float((p_i.mean() - (p_j**2).sum()) / (1 - (p_j**2).sum()))


def alpha_nominal_by_hand(matrix: list[list[object]]) -> float:
    """Krippendorff's alpha from its coincidence matrix (nominal metric)."""
    values = sorted({v for row in matrix for v in row if v is not None}, key=str)
    index = {v: k for k, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for row in matrix:
        got = [v for v in row if v is not None]
        if len(got) < 2:
            continue
        for a, b in itertools.permutations(range(len(got)), 2):
            o[index[got[a]], index[got[b]]] += 1 / (len(got) - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    observed = o.sum() - np.trace(o)
    expected = (n * n - (n_c**2).sum()) / (n - 1)
    return float(1 - observed / expected)


def test_fleiss_and_alpha_match_the_textbook_formulas() -> None:
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 5, size=40)
    matrix = np.array([[t if rng.random() < 0.7 else rng.integers(1, 5) for _ in range(4)] for t in truth])
    got = agreement(labels_frame(matrix.tolist()))
    assert got["items"] == 40 and got["raters"] == 4
    assert got["fleiss_kappa"] == pytest.approx(fleiss_by_hand(matrix), abs=1e-4)
    assert got["krippendorff_alpha"] == pytest.approx(alpha_nominal_by_hand(matrix.tolist()), abs=1e-4)
    unanimous = np.mean([len(set(r)) == 1 for r in matrix.tolist()]) * 100
    assert got["percent_unanimous"] == pytest.approx(unanimous, abs=1e-3)


def test_alpha_handles_missing_ratings_like_the_hand_computation() -> None:
    matrix = [[1, 1, None], [2, 2, 2], [3, 3, 1], [None, 4, 4], [1, 2, None], [2, 2, 2]]
    got = agreement(labels_frame(matrix))
    assert got["krippendorff_alpha"] == pytest.approx(alpha_nominal_by_hand(matrix), abs=1e-4)


def test_cohen_kappa_for_exactly_two_raters() -> None:
    a = ["yes", "yes", "no", "yes", "no", "no", "yes", "no", "yes", "yes"]
    b = ["yes", "no", "no", "yes", "no", "yes", "yes", "no", "yes", "yes"]
    got = agreement(labels_frame([[x, y] for x, y in zip(a, b, strict=True)]))
    p_o = np.mean([x == y for x, y in zip(a, b, strict=True)])
    p_e = sum(a.count(c) * b.count(c) for c in ("yes", "no")) / len(a) ** 2
    assert got["cohen_kappa"] == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-4)
    assert "cohen_kappa" not in agreement(labels_frame([[1, 1, 2], [2, 2, 2]]))


def test_perfect_and_ordinal_agreement() -> None:
    perfect = agreement(labels_frame([[1, 1, 1], [2, 2, 2], [4, 4, 4]]), "ordinal")
    assert perfect["krippendorff_alpha"] == 1.0 and perfect["percent_unanimous"] == 100.0
    near = agreement(labels_frame([[1, 2], [3, 4], [4, 4], [1, 1]]), "ordinal")["krippendorff_alpha"]
    far = agreement(labels_frame([[1, 4], [3, 1], [4, 1], [1, 4]]), "ordinal")["krippendorff_alpha"]
    assert near > 0.5 > far


def synthetic_severity(seed: int = 7, people: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    means = {"age": 55, "gender": 41, "clothing_type": 46, "clothing_color": 42}
    rows = []
    for p in range(people):
        offset = rng.normal(0, 12)
        for cond, mean in means.items():
            for _k in range(7):  # seven stimuli per error type, as in seed 004
                rows.append((f"p{p}", cond, float(np.clip(mean + offset + rng.normal(0, 18), 0, 100))))
    return pd.DataFrame(rows, columns=["participant_id", "condition", "score"])


def test_severity_anova_matches_a_hand_computed_rm_anova() -> None:
    df = synthetic_severity()
    got = severity(df)
    cells = df.groupby(["participant_id", "condition"])["score"].mean().unstack()
    y = cells.to_numpy()
    n, k = y.shape
    grand = y.mean()
    ss_cond = n * ((y.mean(axis=0) - grand) ** 2).sum()
    ss_subj = k * ((y.mean(axis=1) - grand) ** 2).sum()
    ss_err = ((y - grand) ** 2).sum() - ss_cond - ss_subj
    f = (ss_cond / (k - 1)) / (ss_err / ((k - 1) * (n - 1)))
    # Greenhouse-Geisser epsilon from the double-centred covariance matrix of the conditions
    s = np.cov(y, rowvar=False)
    centred = s - s.mean(axis=0) - s.mean(axis=1)[:, None] + s.mean()
    eps = np.trace(centred) ** 2 / ((k - 1) * (centred**2).sum())
    a = got["anova"]
    assert a["F"] == pytest.approx(f, rel=1e-6)
    assert (a["df1"], a["df2"]) == (k - 1, (k - 1) * (n - 1))
    assert a["gg_epsilon"] == pytest.approx(eps, rel=1e-6)
    assert a["df1_gg"] == pytest.approx((k - 1) * eps) and a["df2_gg"] == pytest.approx((k - 1) * (n - 1) * eps)
    assert a["p_gg"] == pytest.approx(stats.f.sf(f, (k - 1) * eps, (k - 1) * (n - 1) * eps), rel=1e-6)
    assert a["eta2"] == pytest.approx(ss_cond / (ss_cond + ss_subj + ss_err), rel=1e-9)
    assert a["eta2_partial"] == pytest.approx(ss_cond / (ss_cond + ss_err), rel=1e-9)
    ng2 = pg.rm_anova(data=cells.stack().rename("score").reset_index(), dv="score", within="condition",
                      subject="participant_id", detailed=True)["ng2"].iloc[0]
    assert a["eta2"] == pytest.approx(ng2, rel=1e-6)  # one-way RM design: generalized eta squared


def test_severity_pairs_are_paired_t_tests_with_bonferroni() -> None:
    df = synthetic_severity()
    got = severity(df)
    wide = df.groupby(["participant_id", "condition"])["score"].mean().unstack()
    assert len(got["pairs"]) == 6
    for pair in got["pairs"]:
        t, p = stats.ttest_rel(wide[pair["a"]], wide[pair["b"]])
        assert pair["t"] == pytest.approx(t, rel=1e-6) and pair["p"] == pytest.approx(p, rel=1e-6)
        assert pair["p_bonferroni"] == pytest.approx(min(1.0, p * 6), rel=1e-6) and pair["df"] == len(wide) - 1
    assert got["conditions"]["age"]["mean"] > got["conditions"]["gender"]["mean"]
    assert got["conditions"]["age"]["sd"] == pytest.approx(wide["age"].std(), rel=1e-9)


def test_severity_reports_and_leaves_out_incomplete_participants() -> None:
    df = synthetic_severity(people=10)
    df = df[~((df["participant_id"] == "p3") & (df["condition"] == "age"))]
    got = severity(df)
    assert got["excluded_incomplete"] == ["p3"] and got["participants"] == 9
    assert all(c["n"] == 9 for c in got["conditions"].values())


def bt_mm(wins: np.ndarray, iters: int = 2000) -> np.ndarray:
    """Zermelo/Hunter MM iterations for Bradley-Terry, log strengths relative to item 0."""
    p = np.ones(len(wins))
    games = wins + wins.T
    for _ in range(iters):
        denom = np.array([sum(games[i, j] / (p[i] + p[j]) for j in range(len(p)) if j != i) for i in range(len(p))])
        p = wins.sum(axis=1) / denom
        p = p / p[0]
    return np.log(p)


def test_bradley_terry_matches_mm_iterations_and_covers_the_truth() -> None:
    rng = np.random.default_rng(11)
    strength = {"A": 0.0, "B": 1.0, "C": -0.8}
    rows, wins = [], np.zeros((3, 3))
    names = sorted(strength)
    for n in range(600):
        a, b = rng.choice(names, size=2, replace=False)
        a_wins = rng.random() < 1 / (1 + np.exp(strength[b] - strength[a]))
        rows.append((f"t{n}", "w", "overall", a, b, 1 if a_wins else 5))
        i, j = names.index(a), names.index(b)
        wins[(i, j) if a_wins else (j, i)] += 1
    got = pairwise_summary(pd.DataFrame(rows, columns=["item_id", "worker_id", "dimension", "system_a", "system_b",
                                                       "answer"]))["dimensions"]["overall"]["bradley_terry"]
    mm = bt_mm(wins)
    for k, name in enumerate(names):
        assert got[name]["strength"] == pytest.approx(mm[k], abs=2e-3)
        assert got[name]["ci_low"] - 1e-9 <= strength[name] - strength["A"] <= got[name]["ci_high"] + 1e-9


def test_pairwise_order_is_undone_and_shares_sum_to_one() -> None:
    shown = pd.DataFrame({"item_id": ["x", "y"], "worker_id": ["w", "w"], "dimension": ["overall"] * 2,
                          "system_a": ["A", "A"], "system_b": ["B", "B"], "answer": ["1", "1"], "flipped": ["0", "1"]})
    undone = undo_order(shown)
    assert list(undone["answer"]) == [1, 5]  # "#1 much better" with B shown first means B much better
    shares = pairwise_summary(undone)["dimensions"]["overall"]["shares"]
    assert sum(shares.values()) == pytest.approx(1.0) and shares["A much better"] == 0.5


def test_error_summary_counts_categories_in_table_order() -> None:
    df = pd.DataFrame({"item_id": ["1", "2", "3", "3"], "worker_id": ["a", "a", "a", "b"],
                       "congruent": ["congruent", "incongruent", "incongruent", "incongruent"],
                       "categories": ["", "gender|activity", "activity", "made-up"]})
    got = error_summary(df)
    assert got["congruent_share"] == 0.25 and got["incongruent"] == 3
    assert list(got["category_counts"]) == ["gender", "activity", "made-up"]
    assert got["category_counts"]["activity"] == 2 and got["unknown_categories"] == ["made-up"]
    assert got["labels_per_item"]["3"] == ["activity", "made-up"]


def test_screens() -> None:
    people = pd.DataFrame({"participant_id": ["a", "b", "c", "d"], "minutes": [30, 12, 25, 40],
                           "slider_zero": [False, False, True, False], "passed_qualification": [True] * 4,
                           "continued": [True, True, True, False]})
    got = session_exclusions(people, 18)
    assert (got["continued"], got["kept"]) == (3, 1)
    assert {e["participant_id"]: e["reason"] for e in got["excluded"]} == {"b": "session too short",
                                                                           "c": "slider left at 0"}
    demo = pd.DataFrame({"participant_id": ["p1", "p2", "p3", "p4"], "age": ["30", "25", "17", "40"],
                         "gender": ["female", "male", "other", ""], "education": ["university"] * 4,
                         "proficiency": ["native", "beginner", "fluent", "native"],
                         "colour_blind": ["no", "no", "no", "yes"]})
    out = demographic_exclusions(demo, ScreenRules())
    assert dict(zip(out["participant_id"], out["reason"], strict=True)) == {
        "p2": "proficiency beginner", "p3": "younger than 18", "p4": "no answer for gender; colour-blind"}
