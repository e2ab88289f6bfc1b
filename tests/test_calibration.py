"""postprocess.answers.calibration and the confidence postprocess.answers.aggregation gives: ECE by hand, the
cross-fitting, a synthetic crowd whose calibrated confidence says how often it is right, the bound on
one or two judgements, and ties."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from postprocess.answers import beta_calibration as bc
from postprocess.answers import calibration as cal
from postprocess.answers import reliability as rel
from postprocess.answers.aggregation import aggregate, aggregate_scored, model_answers
from postprocess.answers.judgements import judgements
from postprocess.answers.skill_posterior import label_probabilities
from postprocess.answers.unchecked import UNCHECKED, controls_to_check, shrunk, vote_shares
from tests.crowd_labels import crowd_frame


def test_ece_by_hand() -> None:
    """Six bins of width 1/6: 0.1 and 0.15 fall in [0, 1/6), 0.9 and 0.95 and 1.0 in [5/6, 1] (1.0 closes
    the last bin), 0.5 in [3/6, 4/6)."""
    confidence = [0.1, 0.15, 0.5, 0.9, 0.95, 1.0]
    correct = [0, 1, 1, 1, 0, 1]
    # bin 0: mean confidence 0.125, right 1 of 2 -> |0.125 - 0.5| = 0.375, weight 2/6
    # bin 3: 0.5 against 1 -> 0.5, weight 1/6; bin 5: mean 0.95 against 2/3 -> 0.28333, weight 3/6
    hand = 2 / 6 * 0.375 + 1 / 6 * 0.5 + 3 / 6 * abs(0.95 - 2 / 3)
    assert rel.ece(confidence, correct) == pytest.approx(hand, abs=1e-12)
    table = rel.reliability(confidence, correct)
    assert table["bin"].tolist() == ["0.00-0.17", "0.50-0.67", "0.83-1.00"]
    assert table["items"].tolist() == [2, 1, 3]
    assert table["accuracy"].tolist() == pytest.approx([0.5, 1.0, 2 / 3])
    assert rel.ece([0.8] * 10, [1] * 8 + [0] * 2) == pytest.approx(0.0, abs=1e-12)  # says 0.8, right 8 of 10
    assert np.isnan(rel.ece([], []))


def test_the_calibrator_is_the_identity_without_controls_and_learns_with_many() -> None:
    assert bc.fit([], []).apply(np.array([0.3, 0.9])) == pytest.approx([0.3, 0.9])
    rng = np.random.default_rng(0)
    said = rng.uniform(0.6, 0.999, 2000)
    truly = 0.5 + (said - 0.6) * 0.5  # a model far too sure: at 0.999 it is right 70% of the time
    right = rng.random(2000) < truly
    few, many = bc.fit(said[:3], right[:3]), bc.fit(said, right)
    assert rel.ece(many.apply(said), right) < 0.03 < rel.ece(said, right)
    assert abs(few.b - 1) < abs(many.b - 1)  # three controls barely move it


def test_cross_fitting_never_scores_a_control_with_a_calibrator_that_saw_it() -> None:
    """Changing one control's outcome changes no cross-fitted confidence of its own fold, and the folds depend
    on the item ids alone."""
    rng = np.random.default_rng(1)
    keys = pd.Series([f"g{i}" for i in range(60)])
    said, right = rng.uniform(0.5, 1, 60), rng.random(60) < 0.7
    folds = bc.control_folds(keys)
    assert len(set(folds)) == bc.FOLDS and (bc.control_folds(keys[::-1].reset_index(drop=True)) == folds[::-1]).all()
    before = bc.cross_fitted(said, right, keys)
    flipped = right.copy()
    flipped[0] = not flipped[0]
    after = bc.cross_fitted(said, flipped, keys)
    same_fold = folds == folds[0]
    assert (before[same_fold] == after[same_fold]).all()  # its own fold's calibrator never saw it
    assert not np.allclose(before[~same_fold], after[~same_fold])  # the other folds' did


def test_one_or_two_judgements_never_give_certainty() -> None:
    assert cal.bounded(np.array([1.0, 1.0, 1.0]), np.array([1, 2, 3]), 2) == pytest.approx(
        [0.95, 0.95**2 / (0.95**2 + 0.05**2), 0.95**3 / (0.95**3 + 0.05**3)])
    frame = pd.DataFrame({"item_id": ["a", "b", "b"] + [f"x{i}" for i in range(40) for _ in range(2)],
                          "worker_id": ["w1", "w1", "w2"] + ["w1", "w2"] * 40,
                          "label": ["y", "y", "y"] + ["y", "y"] * 40})  # w1 and w2 agree on everything
    for method in ("mv", "ds", "skill", "one-coin"):
        answers = aggregate(frame, method).answers
        assert (answers["confidence"] < 0.999).all(), method
        assert answers.set_index("item_id").loc["a", "confidence"] <= 0.95


def test_a_tie_is_noted_broken_by_worker_skill_and_given_the_skill_posteriors_confidence() -> None:
    """Item t: one label from a worker right on every control-like item, one from a worker always against the
    crowd. Majority vote ties 1-1; the skill estimate sides with the reliable worker, even though the other
    label is the more common one in the field, and the tie's confidence is the skill posterior's probability
    of that label (bounded by its two judgements), not the tied share 0.5 (RTE's ties were right
    84% of the time at 0.5)."""
    rows = [("t", "good", "b"), ("t", "bad", "a")]
    for i in range(30):  # "a" is the field's most common label; "good" agrees with the crowd, "bad" does not
        truth = "a" if i % 3 else "b"
        rows += [(f"i{i}", "good", truth), (f"i{i}", "c1", truth), (f"i{i}", "c2", truth),
                 (f"i{i}", "bad", "b" if truth == "a" else "a")]
    frame = pd.DataFrame(rows, columns=["item_id", "worker_id", "label"])
    assert frame["label"].value_counts().idxmax() == "a"
    answers = aggregate(frame, "mv").answers.set_index("item_id")
    assert answers.loc["t", "label"] == "b" and answers.loc["t", "note"] == "tie"
    skill = label_probabilities(frame)  # the skill posterior on its own
    own = model_answers(frame, "mv")
    assert own.set_index("item_id").loc["t", "confidence"] == pytest.approx(min(skill.loc["t", "b"], cal.bounded(
        np.array([1.0]), np.array([2]), 2)[0]), rel=1e-12)
    moved = shrunk(own["confidence"].to_numpy(), vote_shares(own, judgements(frame)), own["judgements"].to_numpy())
    assert answers.loc[own["item_id"], "confidence"].to_numpy() == pytest.approx(moved, rel=1e-12)  # unchecked
    assert answers.loc["t", "confidence"] > 0.85
    assert (answers.drop(index="t")["note"] == "").all()


def _truth_frame(seed: int) -> tuple[pd.DataFrame, pd.Series]:
    frame, truth = crowd_frame(seed, items=900, per_item=3)
    return frame, truth


def _ece_against(answers: pd.DataFrame, truth: pd.Series) -> float:
    right = answers["label"].to_numpy() == truth.reindex(answers["item_id"]).to_numpy()
    return rel.ece(answers["confidence"], right)


def test_on_a_synthetic_crowd_the_confidence_says_how_often_it_is_right() -> None:
    """Workers of known accuracy 0.55-0.95 (tests/crowd_labels.py), three labels an item: without controls the
    confidence, moved down toward the field's mean vote share, is within 0.03 of Dawid-Skene's own on a crowd that
    is the model's (the price of not trusting it unchecked: 0.041 against 0.017); with a third of the items as
    controls it is calibrated on them, and on the other items ECE (computed here against the generating truth) is
    small."""
    frame, truth = _truth_frame(5)
    plain = aggregate(frame, "ds").answers
    right = plain["label"].to_numpy() == truth.reindex(plain["item_id"]).to_numpy()
    assert _ece_against(plain, truth) < rel.ece(plain["posterior"], right) + 0.03
    assert _ece_against(plain, truth) < 0.05
    items = sorted(truth.index)
    controls = pd.DataFrame({"item_id": items[::3], "answer": truth.reindex(items[::3]).to_numpy()})
    result, checked = aggregate_scored(frame, "ds", controls=controls)
    assert checked is not None and len(checked) == len(controls)
    assert not set(result.answers["item_id"]) & set(controls["item_id"])
    fit = result.answers.attrs["calibration_fit"]
    source = f"calibrated on {len(controls)} controls"
    assert set(result.answers["confidence_source"]) == {
        source if fit["moved"] else f"model ({source} did no better in cross-validation)"}
    assert _ece_against(result.answers, truth) < 0.04
    assert rel.ece(checked["confidence"], checked["correct"]) < 0.05  # cross-fitted on the controls themselves


def test_the_command_prints_calibration_and_each_row_says_how_its_confidence_was_obtained(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`hitflow aggregate --gold` prints accuracy, ECE and the reliability table (checked here against the
    answers file it wrote); with --controls the rows say they were calibrated, and the controls' own
    cross-fitted calibration is printed."""
    from flows.cli.main import main

    frame, truth = crowd_frame(3, items=300, per_item=3)
    labels = tmp_path / "labels.csv"
    frame.assign(gold=frame["item_id"].map(truth)).to_csv(labels, index=False)
    assert main(["aggregate", str(labels), "--gold", "gold", "--method", "ds", "--out", str(tmp_path / "a.csv")]) == 0
    shown = json.loads(capsys.readouterr().out)
    written = pd.read_csv(tmp_path / "a.csv", dtype={"label": str})
    right = written["label"].to_numpy() == truth.reindex(written["item_id"]).to_numpy()
    assert shown["calibration"]["ece"] == pytest.approx(rel.ece(written["confidence"], right), abs=2e-4)
    assert sum(r["items"] for r in shown["calibration"]["reliability"]) == len(written) == 300
    assert shown["confidence_is"].startswith("model, unchecked") and set(written["confidence_source"]) == {UNCHECKED}
    assert shown["controls_to_check"] == controls_to_check(written["confidence"].to_numpy())
    items = sorted(truth.index)[::2]
    pd.DataFrame({"item_id": items, "answer": truth.reindex(items).to_numpy()}).to_csv(tmp_path / "c.csv", index=False)
    assert main(["aggregate", str(labels), "--controls", str(tmp_path / "c.csv"), "--method", "ds",
                 "--out", str(tmp_path / "b.csv")]) == 0
    shown = json.loads(capsys.readouterr().out)
    calibrated = pd.read_csv(tmp_path / "b.csv", dtype={"label": str}, keep_default_na=False)
    fit = shown["calibration_fit"]
    assert fit["controls"] == 150 and fit["converged"]
    # kept exactly when the controls' cross-validation scores it better than the model's own confidence
    assert fit["moved"] == (fit["log_loss_calibrated_cross_fitted"] < fit["log_loss_model_on_controls"])
    assert fit["strength"] in bc.STRENGTHS
    words = "calibrated on 150 control items" if fit["moved"] else "model, kept: calibrating it on 150 control items"
    assert shown["confidence_is"].startswith(words)
    source = "calibrated on 150 controls" if fit["moved"] else "model (calibrated on 150 controls did no better"
    assert all(s.startswith(source) for s in calibrated["confidence_source"])
    assert shown["calibration_on_controls"]["items"] == 150 and shown["calibration_on_controls"]["ece"] < 0.08
    for key in ("ece", "ece_15", "ece_equal_mass", "worst_bin", "reliability_equal_mass"):
        assert key in shown["calibration_on_controls"]


def test_as_reported_bounds_then_calibrates_on_the_controls_among_the_rows() -> None:
    """What adaptive overlap stops on (postprocess.answers.adaptive, flows/custom/adaptive_rounds.py): by hand, the
    bound per field's label count, then Platt scaling fitted on the control rows, each control cross-fitted."""
    rng = np.random.default_rng(5)
    n = 200
    posterior = pd.DataFrame({"item_id": [f"i{k}" for k in range(n)], "field": np.where(np.arange(n) < 150, "a", "b"),
                              "label": rng.choice(["x", "y"], n), "confidence": rng.uniform(0.5, 1.0, n),
                              "judgements": rng.integers(1, 4, n), "margin": rng.uniform(0.01, 5, n)})
    labels = pd.Series({"a": 2, "b": 4})
    k = np.where(posterior["field"] == "a", 2, 4)
    odds = (0.95 * (k - 1) / 0.05) ** posterior["judgements"].to_numpy(dtype=float)
    model = np.minimum(posterior["confidence"].to_numpy(), odds / (odds + k - 1))
    plain = cal.as_reported(posterior, labels)
    np.testing.assert_allclose(plain["confidence"], model, rtol=1e-12)
    assert (plain["confidence_source"] == "model").all()  # what the rounds stop on: the model's own
    # controls: the first 80 items, right with probability well under their confidence (an over-sure model)
    gold_rows = posterior.iloc[:80]
    right = rng.random(80) < gold_rows["confidence"].to_numpy() - 0.3
    gold = pd.DataFrame({"item_id": gold_rows["item_id"], "field": gold_rows["field"],
                         "answer": np.where(right, gold_rows["label"], "z")})
    out = cal.as_reported(posterior, labels, gold)
    # the controls' cross-validation takes the default strength with a shift per answered class (field=label)
    classes = (posterior["field"] + "=" + posterior["label"]).to_numpy()
    calibrator = bc.fit(model[:80], right, answers=classes[:80])
    # shrunk toward the model by the controls' number (80 / 130); held at 0.5 where the model read at least 0.5 only
    # if the controls' held-out log-loss is no worse so (here it is: those answers are right less than half the time)
    said = cal.shrunk(bc.cross_fitted(model[:80], right, gold_rows["item_id"], answers=classes[:80]), model[:80], 80)
    assert not cal.held_at_half(said, model[:80], right.astype(float))
    np.testing.assert_allclose(out["confidence"].iloc[80:], cal.bounded(
        model[80:] + 80 / 130 * (calibrator.apply(model[80:], classes[80:]) - model[80:]),
        posterior["judgements"].to_numpy()[80:], 2), rtol=1e-9)
    assert (out["confidence"].iloc[80:] < 0.5).any()
    crossed = cal.bounded(said, posterior["judgements"].to_numpy()[:80], 2)
    np.testing.assert_allclose(out["confidence"].iloc[:80], crossed, rtol=1e-9)
    assert out["confidence"].iloc[80:].mean() < model[80:].mean() - 0.05  # the controls pulled it down
    assert (out["confidence_source"].iloc[80:] == "calibrated on 80 controls").all()


def _over_sure(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A model far too sure of itself, with wrong answers at confidence ~1.0 (later calibration work's failing case: the
    Newton steps before swung between slope +1 and -1 there): a third of the answers said at 1 - 1e-12 are
    wrong, the rest spread over 0.5-0.99 are right at about half their confidence's log-odds."""
    rng = np.random.default_rng(seed)
    said = np.where(rng.random(n) < 0.5, 1 - 1e-12, rng.uniform(0.5, 0.99, n))
    truly = np.where(said > 0.999, 2 / 3, 1 / (1 + np.exp(-0.5 * np.log(said / (1 - said)))))
    return said, (rng.random(n) < truly).astype(float)


def _features(said: np.ndarray) -> np.ndarray:
    p = np.clip(said, bc.EDGE, 1 - bc.EDGE)
    return np.column_stack([np.log(p), -np.log(1 - p)])


@pytest.mark.parametrize("n", [6, 60, 600])
def test_the_fit_converges_to_the_objectives_minimum_with_wrong_controls_at_full_confidence(n: int) -> None:
    """The solver reports convergence and lands on the minimum of its objective: no point of a grid around it
    (inside the bounds) scores lower, an independent search of the same convex objective; and the wrong
    answers at ~1.0 pull the top down (b, the weight of -ln(1 - c), well under the identity's 1)."""
    said, right = _over_sure(n, n)
    found = bc.fit(said, right)
    assert found.converged and found.moved
    x = _features(said)
    at = np.array([found.a, found.b, found.shift])
    best = bc.objective(at, x, right, bc.PRIOR_STRENGTH)[0]
    steps = np.linspace(-0.05, 0.05, 11)
    grid = min(bc.objective(np.clip(at + np.array([da, db, ds]), [bc.MIN_SLOPE, 0, -bc.MAX_SHIFT],
                                     [bc.MAX_SLOPE, bc.MAX_SLOPE, bc.MAX_SHIFT]), x, right, bc.PRIOR_STRENGTH)[0]
               for da in steps for db in steps for ds in steps)
    assert best <= grid + 1e-7
    assert found.b < 0.9
    top = found.apply(np.array([1 - 1e-12]))[0]
    assert top < 0.95  # a third of those said at 1 - 1e-12 were wrong


@pytest.mark.parametrize("n, wrong", [(1, 0), (89, 0), (300, 0), (3000, 0), (89, 1), (300, 299)])
def test_the_fit_converges_when_every_control_sits_at_full_confidence(n: int, wrong: int) -> None:
    """Controls all at 1 - 1e-13 (ten unanimous labels), none, one or all but one wrong: a flat or separable
    objective, where the solver's line search can stop without its own flag; the fit still reports convergence
    at a point where the projected gradient vanishes, and moves the top the way the controls say."""
    said, right = np.full(n, 1 - 1e-13), np.r_[np.zeros(wrong), np.ones(n - wrong)]
    found = bc.fit(said, right)
    assert found.converged
    gradient = bc.objective(np.array([found.a, found.b, found.shift]), _features(said), right,
                             bc.PRIOR_STRENGTH)[1]
    at_bound = np.array([found.a <= bc.MIN_SLOPE, found.b <= 0, False])
    assert np.abs(gradient[~at_bound]).max() <= 1e-6 * (n + bc.PRIOR_STRENGTH)
    top = found.apply(said[:1])[0]
    assert top >= 1 - 1e-3 if wrong == 0 else top <= 1 - wrong / n / 2


def test_without_the_prior_the_fit_is_scikit_learns_logistic_regression() -> None:
    """Strength 0: plain logistic regression of "right" on (ln c, -ln(1 - c)); scikit-learn's (no penalty) on
    the same data gives the same a, b and shift."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(7)
    said = np.where(rng.random(2000) < 0.3, 1 - 1e-12, rng.uniform(0.4, 0.999, 2000))
    x = _features(said)
    right = (rng.random(2000) < 1 / (1 + np.exp(-(x @ [1.2, 0.4] + 0.3)))).astype(float)
    reference = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(x, right)
    found = bc.fit(said, right, strength=0.0)
    assert [found.a, found.b] == pytest.approx(reference.coef_[0], abs=1e-4)
    assert found.shift == pytest.approx(reference.intercept_[0], abs=1e-4)


def test_cross_validation_keeps_the_identity_where_the_fit_does_not_help_and_moves_where_it_does() -> None:
    rng = np.random.default_rng(3)
    keys = pd.Series([f"c{i}" for i in range(400)])
    said = rng.uniform(0.5, 0.99, 400)
    honest = (rng.random(400) < said).astype(float)  # the model's confidence is right already
    kept, own = cal.calibrator_on_controls(said, honest, keys)
    assert kept.log_loss_calibrated is not None and kept.log_loss_model is not None
    assert kept.moved == (kept.log_loss_calibrated < kept.log_loss_model)
    if not kept.moved:
        assert (kept.apply(said) == said).all() and (own == said).all()
    over, wrong = _over_sure(400, 4)
    moved, crossed = cal.calibrator_on_controls(over, wrong, keys)
    assert moved.moved and moved.log_loss_calibrated < moved.log_loss_model
    assert rel.ece(crossed, wrong) < rel.ece(over, wrong) / 2
    np.testing.assert_allclose(crossed, bc.cross_fitted(over, wrong, keys))


def _capped(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A model whose top over-states and whose rest is true (the 10-label image shape): 60% of the answers
    said at 0.97-0.9999 and right 92% of the time, the rest said at 0.3-0.93 and right as often as they say."""
    rng = np.random.default_rng(seed)
    top = rng.random(n) < 0.6
    said = np.where(top, rng.uniform(0.97, 0.9999, n), rng.uniform(0.3, 0.93, n))
    return said, (rng.random(n) < np.where(top, 0.92, said)).astype(float)


def test_a_top_that_over_states_is_pulled_down_where_the_brier_score_saw_no_gain() -> None:
    """400 controls of :func:`_capped`: the Brier score of the cross-fitted confidences (the guard before) was
    no better than the model's, so the over-stated top stayed; the log-loss sees the sure answers that are
    wrong, so the fit moves, and on 4,000 fresh answers of the same model the top comes within 0.03 of how
    often it is right and the ECE falls by more than half."""
    said, right = _capped(400, 1)
    keys = pd.Series([f"c{i}" for i in range(400)])
    found, _ = cal.calibrator_on_controls(said, right, keys)
    assert found.moved and found.brier_calibrated is not None and found.brier_model is not None
    assert found.brier_calibrated >= found.brier_model - 1e-3  # by the Brier score alone, hardly a gain
    fresh, truly = _capped(4000, 101)
    top = fresh > 0.97
    assert abs(found.apply(fresh[top]).mean() - truly[top].mean()) < 0.03
    assert rel.ece(found.apply(fresh), truly) < rel.ece(fresh, truly) / 2


def test_the_prior_strength_is_the_one_the_controls_cross_validation_scores_best() -> None:
    """By hand: each strength's cross-fitted confidences and the wrong share's, and their log-loss; the calibrator
    takes the lowest (a curve where they tie), fits every control with it, and moves only when that log-loss is
    below the model's own."""
    keys = pd.Series([f"c{i}" for i in range(300)])
    for said, right in (_capped(300, 5), _over_sure(300, 6)):
        crossed_by = {k: bc.cross_fitted(said, right, keys, strength=k) for k in bc.STRENGTHS}
        crossed_by["share"] = bc.cross_fitted(said, right, keys, wrong_share=True)
        losses = {k: cal.log_loss(x, right) for k, x in crossed_by.items()}
        best = min(losses, key=lambda k: losses[k])
        found, crossed = cal.calibrator_on_controls(said, right, keys)
        assert found.log_loss_calibrated == losses[best]
        if best == "share":
            assert found.wrong_share == bc.fit_wrong_share(said, right).wrong_share > 0
        else:
            refit = bc.fit(said, right, best)
            assert found.strength == best and (found.a, found.b, found.shift) == (refit.a, refit.b, refit.shift)
        clipped = np.clip(said, bc.EDGE, 1 - bc.EDGE)
        model = -np.mean(right * np.log(clipped) + (1 - right) * np.log(1 - clipped))
        assert found.log_loss_model == pytest.approx(model, rel=1e-12)
        assert found.moved == (losses[best] < model)
        np.testing.assert_array_equal(crossed, crossed_by[best] if found.moved else said)


def _by_class(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """calibration work's AdultContent2 shape in small: 3/4 of the answers "G", said at 0.8-0.999 and right as often as
    they say; the rest "P", said at the same confidences and right only 40% of the time whatever they say."""
    rng = np.random.default_rng(seed)
    answer = np.where(rng.random(n) < 0.75, "G", "P")
    said = rng.uniform(0.8, 0.999, n)
    return said, answer, (rng.random(n) < np.where(answer == "G", said, 0.4)).astype(float)


def test_a_class_that_over_states_gets_a_shift_of_its_own() -> None:
    """300 controls of :func:`_by_class`: no one curve of the confidence fits both classes, so the controls'
    cross-validation takes the class shifts; on 4,000 fresh answers each class's mean confidence comes within
    0.05 of its share right (one curve for both leaves "P" over-stated by 0.3 or "G" under-stated), and
    ``calibrate_answers`` applies the shift by each answer's label."""
    said, answer, right = _by_class(300, 2)
    found, _ = cal.calibrator_on_controls(said, right, pd.Series([f"i{i}" for i in range(300)]), answer)
    assert found.moved and found.classes == ("G", "P") and found.class_shifts[1] < found.class_shifts[0] - 1
    fresh, given, truly = _by_class(4000, 3)
    for c in ("G", "P"):
        mine = given == c
        assert abs(found.apply(fresh[mine], given[mine]).mean() - truly[mine].mean()) < 0.05
    answers = pd.DataFrame({"item_id": [f"i{i}" for i in range(600)], "field": "label",
                            "label": np.r_[answer, given[:300]], "confidence": np.r_[said, fresh[:300]],
                            "judgements": 10})
    gold = pd.DataFrame({"item_id": [f"i{i}" for i in range(300)], "field": "label",
                         "answer": np.where(right == 1, answer, "X")})
    ordinary, _ = cal.calibrate_answers(answers, gold)
    assert ordinary.attrs["calibration_fit"]["class_shift"].keys() == {"G", "P"}
    shrunk = cal.shrunk(found.apply(fresh[:300], given[:300]), fresh[:300], 300)
    pin = ordinary.attrs["calibration_fit"]["held_at_half"]
    np.testing.assert_allclose(ordinary["confidence"], cal.still_likeliest(shrunk, fresh[:300]) if pin else shrunk)


@pytest.mark.parametrize("n", [6, 10, 20])
def test_a_few_controls_never_flatten_the_confidence(n: int) -> None:
    """Under WEAK_PRIOR_CONTROLS controls, a third of them wrong at 0.999: the weak strengths, which let a few
    controls set every answer to their share right (a = b = 0: each answer one number, as a campaign
    read 0.089 "calibrated on 6 controls"), are not tried; the calibrated confidence still ranks the answers as
    the model does."""
    said = np.r_[np.full(n - n // 2, 0.999), np.linspace(0.6, 0.95, n // 2)]
    right = np.r_[np.zeros(n // 3), np.ones(n - n // 3)]
    found, _ = cal.calibrator_on_controls(said, right, pd.Series([f"k{i}" for i in range(n)]))
    assert found.strength >= bc.PRIOR_STRENGTH
    top, middle, low = found.apply(np.array([0.999, 0.9, 0.7]))
    assert top > middle > low + 0.02


def test_equal_mass_bins_by_hand_and_the_worst_bin() -> None:
    """100 items: 5 equal-mass bins of 20 (100 // MIN_BIN_ITEMS), in confidence order; items of equal confidence
    share a bin; the worst bin is the one of at least ``min_items`` furthest from its accuracy, with its sign."""
    conf = np.linspace(0.5, 0.99, 100)
    right = np.r_[np.ones(80), np.zeros(20)]  # the 20 surest all wrong: over-stated by their mean confidence
    table = rel.equal_mass(conf, right)
    assert table["items"].tolist() == [20] * 5
    assert table["accuracy"].tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]
    assert table["confidence"].tolist() == pytest.approx([conf[i * 20:(i + 1) * 20].mean() for i in range(5)])
    worst = rel.worst_bin(table, min_items=20)
    assert worst is not None and worst["items"] == 20 and worst["off"] == pytest.approx(conf[80:].mean(), abs=1e-4)
    assert rel.worst_bin(table, min_items=21) is None
    by_hand = sum(20 / 100 * abs(conf[i * 20:(i + 1) * 20].mean() - right[i * 20:(i + 1) * 20].mean())
                  for i in range(5))
    assert rel.ece_equal_mass(conf, right) == pytest.approx(by_hand, abs=1e-12)
    tied = np.r_[np.full(70, 0.9), np.linspace(0.91, 0.99, 30)]
    assert len(set(rel.equal_mass_bins(tied)[:70])) == 1  # 70 equal confidences: one bin, whatever the count
    assert rel.equal_mass_bins(np.array([0.3, 0.7])).tolist() == [0, 0]  # under 20 items: one bin
    fine = rel.reliability(conf, right, rel.FINE_BINS)
    assert fine["items"].sum() == 100 and len(fine) == len(set(np.floor(conf * 15).astype(int)))


def test_equal_mass_bins_near_one_are_named_by_what_tells_them_apart() -> None:
    """Sure answers' bins spanned 0.9996 to 0.9999 and were named "1.000-1.000" (RTE's summary): each bin's name
    now keeps the places that tell its ends apart, and every name is different."""
    conf = np.r_[np.linspace(0.5, 0.99, 40), np.linspace(0.99960, 0.99999, 40)]
    names = rel.equal_mass(conf, np.ones(80))["bin"].tolist()
    assert len(names) == 4 and len(set(names)) == 4
    low, high = (float(v) for v in names[-1].split("-"))
    assert low < high and low == pytest.approx(conf[60], abs=1e-5) and high == pytest.approx(conf[-1], abs=1e-5)
    assert names[0] == f"{conf[0]:.3f}-{conf[19]:.3f}"  # three places where they are enough


def test_the_noise_floor_is_what_a_perfect_confidence_reads_by_the_binomial_law() -> None:
    """200 answers all said at 0.6, each right with exactly that probability: one bin in every table, so ECE
    and the worst bin are |0.6 - k / 200| with k ~ Binomial(200, 0.6); the floor's mean and 95th percentile
    match that law's (computed exactly), within the draws' error. A confidence of 1 that is always right
    reads 0; a set of 167 answers spread over [0.3, 1] reads a floor near 0.05 (later calibration work's AdultContent2
    shape: ECE <= 0.05 is near what chance alone gives)."""
    from scipy.stats import binom

    k = np.arange(201)
    off, weight = np.abs(0.6 - k / 200), binom.pmf(k, 200, 0.6)
    order = np.argsort(off)
    p95 = off[order][np.searchsorted(np.cumsum(weight[order]), 0.95)]
    floor = rel.noise_floor(np.full(200, 0.6), draws=4000)
    for figure in ("ece", "ece_15", "worst_bin"):
        assert floor[figure]["mean"] == pytest.approx(float((off * weight).sum()), abs=0.002)
        assert abs(floor[figure]["p95"] - p95) <= 0.0051  # one step of k / 200 either side of the exact quantile
    assert rel.noise_floor(np.ones(80))["ece"] == {"mean": 0.0, "p95": 0.0}
    spread = rel.noise_floor(np.linspace(0.3, 1.0, 167))
    assert 0.04 < spread["ece"]["mean"] < spread["ece"]["p95"] < 0.1
    assert rel.noise_floor(np.linspace(0.3, 1.0, 40))["worst_bin"] == {"mean": 0.0, "p95": 0.0}  # no bin of 50


@pytest.mark.parametrize("case", ["over_sure", "by_class", "capped"])
def test_the_projected_newton_steps_find_scipys_optimum(case: str) -> None:
    """The fit's own solver (projected Newton steps) settles without falling back and lands where scipy's
    L-BFGS-B, run to its tightest tolerance on the same objective and bounds, does: an independent solver."""
    from scipy.optimize import minimize

    answers: np.ndarray | None = None
    if case == "by_class":
        said, answers, right = _by_class(300, 9)
    else:
        said, right = _over_sure(300, 8) if case == "over_sure" else _capped(300, 10)
    classes = () if answers is None else ("G", "P")
    x = bc._design(said, answers, classes)
    lower = np.r_[0.0, 0.0, -np.full(1 + len(classes), bc.MAX_SHIFT)]
    upper = np.r_[bc.MAX_SLOPE, bc.MAX_SLOPE, np.full(1 + len(classes), bc.MAX_SHIFT)]
    start = np.r_[bc.IDENTITY, np.zeros(len(classes))]
    for strength in bc.STRENGTHS:
        mine, settled = bc._newton(start, x, right, strength, lower, upper)
        theirs = minimize(bc.objective, start, args=(x, right, strength), jac=True, method="L-BFGS-B",
                          bounds=list(zip(lower, upper, strict=True)), options={"ftol": 1e-15, "gtol": 1e-12,
                                                                                "maxiter": 10_000}).x
        assert settled
        np.testing.assert_allclose(mine, theirs, atol=1e-4)
        assert bc.objective(mine, x, right, strength)[0] <= bc.objective(theirs, x, right, strength)[0] + 1e-9


def test_a_calibration_counts_by_its_controls_number() -> None:
    """A fit on few controls is mostly their noise: it counts n / (n + SHRINK_CONTROLS) against the model's own."""
    assert cal.SHRINK_CONTROLS == 50
    np.testing.assert_allclose(cal.shrunk(np.array([0.3, 0.9]), np.array([0.9, 0.9]), 50), [0.6, 0.9])
    np.testing.assert_allclose(cal.shrunk(np.array([0.3]), np.array([0.9]), 0), [0.9])
    np.testing.assert_allclose(cal.shrunk(np.array([0.3]), np.array([0.9]), 950), [0.33])
