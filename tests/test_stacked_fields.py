"""Many small fields answered together (postprocess.answers.stacked_answers, skill_fields) give each field the answers
it gets alone: from the aggregation of that field by itself, from the one-field path the other models take
(postprocess.answers.one_field), and, for the skill posterior, from skill_posterior.label_probabilities fitted to
the field alone. Floats compared to 12 decimal places (the stacked sums are meant to be the same additions)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from postprocess.answers.aggregation import aggregate
from postprocess.answers.field_parts import coded
from postprocess.answers.judgements import judgements
from postprocess.answers.one_field import field_answers
from postprocess.answers.skill_fields import Stack, probabilities
from postprocess.answers.skill_posterior import label_probabilities
from postprocess.answers.skill_prior import SkillPrior
from postprocess.answers.unchecked import unchecked

PLACES = 1e-12
FLOATS = ["confidence", "posterior"]
EXACT = ["label", "method", "judgements", "note", "confidence_source"]


def many_fields(seed: int = 3, fields: int = 20) -> pd.DataFrame:
    """Fields of 1-6 items, 1-4 workers of 14 (shared across fields; past ten, codes in text order are not in
    number order) and 1-3 label values, and two of 60 items by six workers whose hard items split (so their
    temperature is fitted, not 1)."""
    rng = np.random.default_rng(seed)
    rows = []
    for f in range(fields):
        items, workers, values = rng.integers(1, 7), rng.integers(1, 5), rng.integers(1, 4)
        for i in range(items):
            for w in rng.choice(14, size=rng.integers(1, workers + 1), replace=False):
                rows.append((f"i{i}", f"w{w}", ["yes", "no", "maybe"][rng.integers(values)], f"q{f}"))
    rng = np.random.default_rng([seed, 2])  # the big fields' own draws, whatever the small fields took
    for big in ("big", "big2"):
        truth = rng.integers(0, 2, 60)
        for w in range(6):
            wrong = rng.random(60) < np.where(np.arange(60) % 2, 0.5, 0.03)
            given = (truth + wrong) % 2
            rows += [(f"i{i}", f"w{w}", ["yes", "no"][g], big) for i, g in enumerate(given)]
    return pd.DataFrame(rows, columns=["item_id", "worker_id", "label", "field"])


def _assert_same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    got, want = got.reset_index(drop=True), want.reset_index(drop=True)
    assert list(got["item_id"]) == list(want["item_id"])
    for column in EXACT:
        assert list(got[column]) == list(want[column]), column
    np.testing.assert_allclose(got[FLOATS].to_numpy(float), want[FLOATS].to_numpy(float), rtol=0, atol=PLACES)


@pytest.mark.parametrize("method", ["auto", "mv", "skill"])
def test_many_small_fields_answer_as_each_field_alone(method: str) -> None:
    frame = many_fields()
    together = aggregate(frame, method)
    assert together.answers["field"].nunique() == frame["field"].nunique()
    for field, part in frame.groupby("field"):
        alone = aggregate(part, method)
        _assert_same(together.answers[together.answers["field"] == field], alone.answers)
        assert together.answers.attrs["temperature"][field] == pytest.approx(alone.answers.attrs["temperature"][field])
        assert together.answers.attrs["method_choice"].get(field) == alone.answers.attrs["method_choice"].get(field)
    assert {together.answers.attrs["temperature"][f] > 1 for f in ("big", "big2")} == {True}  # tempering was fitted


CROWD = SkillPrior(crowd_weight=4.0)  # each field's crowd accuracy fitted to it
TYPICAL = SkillPrior(crowd_weight=4.0, typical_weight=2.0)  # and each field's typical worker


@pytest.mark.parametrize(("method", "prior"), [("mv", SkillPrior()), ("skill", SkillPrior()), ("skill", CROWD),
                                               ("skill", TYPICAL), ("mv", TYPICAL)])
def test_stacked_answers_are_the_one_field_paths(method: str, prior: SkillPrior) -> None:
    """The one-field path (the models that do not stack take it) answers each field as the stack does."""
    data = judgements(many_fields(seed=5))
    codes = coded(data)
    got = aggregate(data, method, prior=prior).answers
    for f, rows in enumerate(codes.field_rows()):
        alone = field_answers(codes, rows, method, 0, prior)
        want = pd.DataFrame(alone.answers).sort_values("item_id", kind="stable")
        _assert_same(got[got["field"] == codes.field_ids[f]], unchecked(want, data))  # as aggregate reports it


@pytest.mark.parametrize("prior", [SkillPrior(), CROWD, TYPICAL, SkillPrior(typical_weight=5.0)])
def test_stacked_skill_posterior_is_each_fields_own(prior: SkillPrior) -> None:
    """skill_fields.probabilities over a stack of fields is label_probabilities of each field alone."""
    data = judgements(many_fields(seed=7))
    parts = [part for _, part in data.groupby("field", sort=True) if part["label"].nunique() <= 2]
    stacked, item_field = [], []
    items = workers = 0
    for f, part in enumerate(parts):
        item_ids, item = np.unique(part["item_id"].to_numpy(str), return_inverse=True)
        worker = np.unique(part["worker_id"].to_numpy(str), return_inverse=True)[1]
        label = np.unique(part["label"].to_numpy(str), return_inverse=True)[1]
        stacked.append((item + items, worker + workers, label))
        item_field.append(np.full(len(item_ids), f))
        items, workers = items + len(item_ids), workers + int(worker.max()) + 1
    item, worker, label = (np.concatenate([s[c] for s in stacked]) for c in range(3))
    stack = Stack(item, worker, label, np.concatenate(item_field), 2)
    posterior, temperatures = probabilities(stack, prior)
    for f, part in enumerate(parts):
        own = label_probabilities(part, prior)
        np.testing.assert_allclose(posterior[stack.item_field == f][:, :own.shape[1]], own.to_numpy(), rtol=0,
                                   atol=PLACES)
        assert temperatures[f] == pytest.approx(own.attrs["temperature"])
    assert (temperatures > 1).sum() == 2  # the two big fields' are fitted
