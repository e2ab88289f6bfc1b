"""postprocess.answers.skill_posterior with SkillPrior.typical_weight ([answers] typical_prior_weight): each worker's
confusion has a two-part prior, the crowd's typical worker (as accurate as its median worker) with odds of 4
to 1, else the weak skill prior. A worker whose record fits the typical worker is shrunk toward them, so a
newcomer whose few judgements agree with the crowd counts as its median worker, and a long record's
noisy cells are pulled toward that worker's; a spammer's or an adversary's record does not fit, and keeps
the weak prior, so an adversary still points to the truth."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln
from scipy.stats import dirichlet_multinomial

from postprocess.answers.skill_posterior import (
    TYPICAL_SHARE,
    SkillPrior,
    _group_counts,
    _log_evidence,
    label_posterior,
    mixture_counts,
    typical_centre,
)
from tests.crowd_labels import LABELS, crowd_frame

TYPICAL = SkillPrior(typical_weight=12.0)


def test_the_evidence_of_each_part_is_the_dirichlet_multinomial_probability() -> None:
    """Against scipy's Dirichlet-multinomial: the log probability of each row's counts, summed over the rows,
    less the multinomial coefficient (the same for both parts, so it cannot change their odds)."""
    rng = np.random.default_rng(4)
    alpha = rng.uniform(0.2, 9.0, (5, 3, 3))
    seen = rng.integers(0, 12, (5, 3, 3)).astype(float)
    expected = np.zeros(5)
    for w in range(5):
        for t in range(3):
            n = seen[w, t]
            coefficient = gammaln(n.sum() + 1) - gammaln(n + 1).sum()
            expected[w] += dirichlet_multinomial.logpmf(n, alpha[w, t], int(n.sum())) - coefficient
    assert _log_evidence(alpha, seen) == pytest.approx(expected, abs=1e-9)


def test_with_no_record_the_mean_is_the_priors_blended_four_to_one() -> None:
    weak = np.full((1, 3, 3), 4 * 0.15)
    np.einsum("wii->wi", weak)[:] = 4 * 0.7
    typical = np.full((1, 3, 3), 12 * 0.05)
    np.einsum("wii->wi", typical)[:] = 12 * 0.9
    counts = mixture_counts(np.zeros((1, 3, 3)), weak, typical)
    shares = counts / counts.sum(axis=2, keepdims=True)
    assert shares[0, 0, 0] == pytest.approx(TYPICAL_SHARE * 0.9 + (1 - TYPICAL_SHARE) * 0.7)
    assert shares[0, 0, 1] == pytest.approx(TYPICAL_SHARE * 0.05 + (1 - TYPICAL_SHARE) * 0.15)
    # rows carry the pseudo-counts the worker is expected to have: 0.8 x 12 + 0.2 x 4
    assert counts[0].sum(axis=1) == pytest.approx([0.8 * 12 + 0.2 * 4] * 3)


def test_the_typical_worker_is_the_median_one_not_the_mean() -> None:
    """Six good workers (right on 18 of 20) and three adversaries (wrong on all of 30): over the judgements
    the crowd is right about half the time, its median worker 90%; a fast worker's typical worker is the
    fast crowd's accuracy."""
    good = np.array([[6.0, 1.0, 0.0], [0.0, 6.0, 1.0], [0.0, 0.0, 6.0]])
    adversary = 5 * (np.ones((3, 3)) - np.eye(3))
    records = np.stack([good] * 6 + [adversary] * 3 + [good])
    fast = np.array([0] * 9 + [1])
    centre = typical_centre(records, records.sum(axis=(1, 2)), fast, fallback=0.6)
    assert centre == pytest.approx(0.9)
    typical = _group_counts(12.0, 3, np.array([centre, 0.5]), fast)
    assert typical[0, 0, 0] == pytest.approx(12 * 0.9) and typical[0, 0, 1] == pytest.approx(12 * 0.05)
    assert typical[6, 0, 0] == pytest.approx(12 * 0.9)  # the adversaries' typical worker is the same one
    assert typical[9, 0, 0] == pytest.approx(12 * 0.5)  # the fast group's crowd accuracy


def _crowd(lucky_items: int) -> pd.DataFrame:
    """Ten regular workers right 85% of the time (slips on the next label) on 200 items, three an item, and
    "lucky", right on ``lucky_items`` items, who then agrees with a newcomer on item x."""
    rng = np.random.default_rng(7)
    rows = []
    for k in range(200):
        for w in rng.choice(10, 3, replace=False):
            right = rng.random() < 0.85
            rows.append({"item_id": f"i{k}", "worker_id": f"r{w}", "label": LABELS[(k + (0 if right else 1)) % 3]})
    rows += [{"item_id": f"i{k}", "worker_id": "lucky", "label": LABELS[k % 3]} for k in range(lucky_items)]
    rows += [{"item_id": "x", "worker_id": "lucky", "label": "B"}, {"item_id": "x", "worker_id": "r0", "label": "B"}]
    return pd.DataFrame(rows)


def test_a_newcomer_who_fits_the_crowd_counts_as_its_median_worker() -> None:
    """Right on 12 of 12 (four judgements a true label): under the weak prior alone lucky's rows are half
    their record, half skill_prior's 70%; with the typical part their record fits the typical worker (the
    regulars' 85%), so item x, where they agree with a regular, is more certain, yet less than once lucky
    has been right on 120."""
    short = _crowd(12)
    weak = label_posterior(short, SkillPrior()).set_index("item_id").at["x", "confidence"]
    typical = label_posterior(short, TYPICAL).set_index("item_id").at["x", "confidence"]
    assert typical > weak + 0.001
    proven = label_posterior(_crowd(120), TYPICAL).set_index("item_id").at["x", "confidence"]
    assert proven > typical


def test_a_spammer_does_not_borrow_the_typical_workers_weight() -> None:
    """A worker answering at random on 60 items: their record does not fit the typical (85%) worker, so
    on item y, where they disagree with a regular, the regular's answer stands about as surely as under the
    weak prior alone."""
    rng = np.random.default_rng(3)
    frame = pd.concat([_crowd(0), pd.DataFrame(
        [{"item_id": f"i{k}", "worker_id": "spam", "label": LABELS[rng.integers(0, 3)]} for k in range(60)]
        + [{"item_id": "y", "worker_id": "spam", "label": "C"}, {"item_id": "y", "worker_id": "r1", "label": "A"}])])
    with_typical = label_posterior(frame, TYPICAL).set_index("item_id")
    weak_only = label_posterior(frame, SkillPrior()).set_index("item_id")
    assert with_typical.at["y", "label"] == weak_only.at["y", "label"] == "A"
    assert with_typical.at["y", "confidence"] == pytest.approx(weak_only.at["y", "confidence"], abs=0.05)


def test_an_adversary_keeps_the_weak_prior_and_still_points_to_the_truth() -> None:
    """The always-wrong worker of test_skill_posterior: their record does not fit a typical (right) worker,
    so their confusion is their own record and the weak prior, as without the typical part."""
    regulars = [{"item_id": f"i{k}", "worker_id": w, "label": LABELS[k % 3]} for k in range(30)
                for w in ("r1", "r2", "r3")]
    wrong = [{"item_id": f"i{k}", "worker_id": "adv", "label": LABELS[(k + 1) % 3]} for k in range(30)]
    frame = pd.DataFrame([*regulars, *wrong, {"item_id": "z", "worker_id": "adv", "label": "B"}])
    with_typical = label_posterior(frame, TYPICAL).set_index("item_id")
    weak_only = label_posterior(frame, SkillPrior()).set_index("item_id")
    assert with_typical.at["z", "label"] == weak_only.at["z", "label"] == "A"
    assert with_typical.at["z", "confidence"] == pytest.approx(weak_only.at["z", "confidence"], abs=0.01)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_its_confidence_stays_honest(seed: int) -> None:
    """Two labels an item from workers of 55-95% (tests/crowd_labels.py): the items it is at least 95% sure
    of are wrong at most about 5% of the time, and it is sure of a good share of them."""
    frame, truth = crowd_frame(seed)
    answers = label_posterior(frame, TYPICAL)
    sure = answers[answers["confidence"] >= 0.95]
    error = float((sure["label"].to_numpy() != truth.reindex(sure["item_id"]).to_numpy()).mean())
    assert len(sure) >= 100
    assert error <= 0.05 + 0.02


def test_a_bad_typical_weight_says_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="typical worker prior weight"):
        label_posterior(_crowd(3), SkillPrior(typical_weight=-1.0))
    with pytest.raises(ValueError, match="typical worker prior weight"):
        label_posterior(_crowd(3), SkillPrior(typical_weight=float("inf")))


@pytest.mark.parametrize("weight", [1e16, 1e20, 1e306])
def test_a_typical_weight_beyond_the_configs_bound_is_refused_not_read_as_noise(weight: float) -> None:
    """The config stops typical_prior_weight at 100000; SkillPrior (the CLI's and the API's door) must too.
    Above about 1e15 the Dirichlet-multinomial evidence is a difference of gammaln values whose rounding
    error is larger than itself, so an adversary's record reads as typical (share 0.9999 at 1e16, 1.0 at
    1e20, measured on three 85% workers and an adversary, against 0.0 at 12 to 1e12), and at 1e306 gammaln
    overflows: every confidence is NaN (``hitflow aggregate --method skill`` wrote 0.0 for every item)."""
    with pytest.raises(ValueError, match="typical worker prior weight"):
        label_posterior(_crowd(3), SkillPrior(typical_weight=weight))


def test_the_largest_typical_weight_the_config_allows_still_tells_an_adversary_apart() -> None:
    """At the bound itself (100000) the evidence is sound: the adversary of the test above keeps the weak
    prior, and every confidence is a probability."""
    regulars = [{"item_id": f"i{k}", "worker_id": w, "label": LABELS[k % 3]} for k in range(30)
                for w in ("r1", "r2", "r3")]
    wrong = [{"item_id": f"i{k}", "worker_id": "adv", "label": LABELS[(k + 1) % 3]} for k in range(30)]
    frame = pd.DataFrame([*regulars, *wrong, {"item_id": "z", "worker_id": "adv", "label": "B"}])
    answers = label_posterior(frame, SkillPrior(typical_weight=100000.0)).set_index("item_id")
    assert answers["confidence"].between(0, 1).all()
    assert answers.at["z", "label"] == "A"


def test_a_huge_typical_weight_on_the_command_line_is_one_line(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Before: --method skill wrote answers.csv with confidence 0.0 everywhere, and --adaptive replayed with
    every confidence NaN (no item ever stopped)."""
    from flows.cli.main import main

    labels = tmp_path / "labels.csv"
    labels.write_text("item_id,worker_id,label\n" + "".join(
        f"i{k},w{w},{LABELS[(k + (w == 3)) % 3]}\n" for k in range(12) for w in range(4)))
    for args in (["--method", "skill"], ["--adaptive"]):
        code = main(["aggregate", str(labels), "--out", str(tmp_path / "a.csv"), *args,
                     "--typical-prior-weight=1e306"])
        err = capsys.readouterr().err
        assert code == 2 and not (tmp_path / "a.csv").exists(), err
        assert err.startswith("hitflow: ") and err.count("\n") == 1 and "typical worker prior weight" in err


def _regulars_and_spammers() -> pd.DataFrame:
    """Ten workers right 92% of the time and six answering at random, four of them an item on 200 items,
    and item x, which three regulars call A."""
    rng = np.random.default_rng(5)
    rows = []
    for k in range(200):
        for w in rng.choice(16, 4, replace=False):
            right = w < 10 and rng.random() < 0.92
            label = k % 3 if right else (k % 3 + 1 + rng.integers(0, 2)) % 3 if w < 10 else rng.integers(0, 3)
            rows.append({"item_id": f"i{k}", "worker_id": f"w{w}", "label": LABELS[label]})
    rows += [{"item_id": "x", "worker_id": f"w{w}", "label": "A"} for w in range(3)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("weight", [0.0, 12.0])
def test_a_settled_item_is_not_overturned_by_the_judgements_it_may_still_get(weight: float) -> None:
    """The module's promise for ``margin`` and ``vote_weight``: when ``margin >= r * vote_weight`` (less
    log SETTLED_ODDS, adaptive.settled), r more judgements from workers not yet known, all for the
    runner-up, can at best about tie the answer."""
    from postprocess.answers.adaptive import SETTLED_ODDS, settled
    from postprocess.answers.skill_posterior import label_probabilities

    prior = SkillPrior(0.7, 4.0, 20.0, weight)
    frame = _regulars_and_spammers()
    x = label_posterior(frame, prior).set_index("item_id").loc["x"]
    r = max(n for n in range(1, 10) if settled(pd.Series([x.margin]), pd.Series([x.vote_weight]),
                                              pd.Series([n])).iloc[0])
    runner = label_probabilities(frame, prior).loc["x"].drop(x.label).idxmax()
    more = pd.DataFrame([{"item_id": "x", "worker_id": f"new{j}", "label": runner} for j in range(r)])
    after = label_probabilities(pd.concat([frame, more], ignore_index=True), prior).loc["x"]
    assert after[runner] <= SETTLED_ODDS * after[x.label], (r, dict(after))
