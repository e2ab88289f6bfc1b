"""Many small fields under the models that are fitted one field at a time (postprocess.answers.same_shape fits
each shape of field once) give each field the answers it gets alone: from the aggregation of that field by itself,
an independent coding and fit, and from the one-field path (postprocess.answers.one_field) on the same codes.
Floats compared to 12 decimal places; MACE's against its field alone to 4 (``ALONE``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from postprocess.answers import same_shape
from postprocess.answers.aggregation import aggregate
from postprocess.answers.field_parts import coded
from postprocess.answers.judgements import judgements
from postprocess.answers.one_field import field_answers
from postprocess.answers.skill_prior import SkillPrior

PLACES = 1e-12
FLOATS = ["confidence", "posterior"]
EXACT = ["item_id", "label", "method", "judgements", "note", "confidence_source"]
FITTED = ["ds", "glad", "mace", "one-coin"]
# MACE draws its restarts' starts per worker in the order of their codes' texts, which differs between a field coded
# alone and the same field among others (w9 and w10 among twelve workers), and stops when a round raises its bound
# by less than 1e-9 a label: the two fits stop ~1e-6 apart (so on main before fields of a shape were fitted once)
ALONE = {"mace": 1e-4}


def small_fields(seed: int = 7, fields: int = 30) -> pd.DataFrame:
    """Fields of one item (two for some), each labelled by one to three of twelve workers (past ten, codes in text order
    are not in number order), from two label sets written in either order, rows shuffled: shapes repeat, under
    other item, worker and label names and in other orders."""
    rng = np.random.default_rng(seed)
    rows = []
    for f in range(fields):
        values = [["yes", "no"], ["maybe", "no", "yes"]][rng.integers(2)]
        for i in range(1 + (rng.random() < 0.3)):
            for w in rng.choice(12, size=rng.integers(1, 4), replace=False):
                rows.append((f"i{rng.integers(30)}-{i}", f"w{w}", values[rng.integers(len(values))], f"q{f}"))
    frame = pd.DataFrame(rows, columns=["item_id", "worker_id", "label", "field"])
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _assert_same(got: pd.DataFrame, want: pd.DataFrame, places: float = PLACES) -> None:
    got = got.sort_values("item_id", kind="stable").reset_index(drop=True)
    want = want.sort_values("item_id", kind="stable").reset_index(drop=True)
    for column in EXACT:
        assert list(got[column]) == list(want[column]), column
    np.testing.assert_allclose(got[FLOATS].to_numpy(float), want[FLOATS].to_numpy(float), rtol=0, atol=places)


@pytest.mark.parametrize("method", FITTED)
def test_fields_of_one_shape_answer_as_each_field_alone(method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    frame = small_fields()
    fits: list[str] = []
    fit = same_shape.field_answers
    monkeypatch.setattr(same_shape, "field_answers", lambda *a: fits.append(a[2]) or fit(*a))
    together = aggregate(frame, method).answers
    assert 0 < len(fits) < frame["field"].nunique() * 0.75  # shapes repeat: fewer fits than fields
    assert together["field"].nunique() == frame["field"].nunique()
    for field, part in frame.groupby("field"):
        _assert_same(together[together["field"] == field], aggregate(part, method).answers, ALONE.get(method, PLACES))


@pytest.mark.parametrize("method", [*FITTED, "auto"])
def test_shaped_answers_are_the_one_field_paths(method: str) -> None:
    """Each field's answers and per-judgement figures (which make the workers' table) as its own fit gives them."""
    data = judgements(small_fields(seed=11, fields=20))
    codes = coded(data)
    fields = codes.field_rows()
    methods = [method if method != "auto" else ("ds" if f % 2 else "one-coin") for f in range(len(fields))]
    shaped = same_shape.shaped_answers(codes, fields, methods, 0, SkillPrior())
    for rows, chosen, got in zip(fields, methods, shaped, strict=True):
        alone = field_answers(codes, rows, chosen, 0, SkillPrior())
        _assert_same(pd.DataFrame(got.answers), pd.DataFrame(alone.answers))
        assert list(got.answers["field"]) == list(alone.answers["field"])
        assert np.array_equal(got.rows, alone.rows)
        np.testing.assert_allclose(got.posterior, alone.posterior, rtol=0, atol=PLACES)
        assert np.array_equal(got.agrees, alone.agrees)
        assert got.temperature == pytest.approx(alone.temperature, abs=PLACES)
