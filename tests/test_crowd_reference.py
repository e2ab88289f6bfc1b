"""bench/crowd_reference.py's posterior and bench/crowd_shapes.hidden: the draws behind a shaped crowd, read back."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bench.crowd_reference import expected_right, reference
from bench.crowd_shapes import Shape, hidden, shaped

SHAPE = Shape("even", 300, 40, 7, ("no", "yes"), (0.5, 0.5))


def test_the_hidden_draws_are_the_crowds() -> None:
    """Honest workers are right more often on the items drawn easy than on those drawn hard, and spammers give one
    label: read from the frame, not from the draws."""
    frame, drawn = shaped(SHAPE, seed=1), hidden(SHAPE, seed=1)
    right = (frame["label"] == frame["gold"]).to_numpy()
    kind = drawn.workers["kind"].reindex(frame["worker_id"]).to_numpy()
    easy = (drawn.items["difficulty"].reindex(frame["item_id"]) < 0.2).to_numpy()
    honest = kind == "honest"
    assert right[honest & easy].mean() > right[honest & ~easy].mean() + 0.05
    assert (frame[kind == "spammer"].groupby("worker_id")["label"].nunique() == 1).all()


def test_the_reference_answers_beat_the_vote() -> None:
    """Its answers are right more often than the crowd's majority, and it expects of them what they get within a
    few items (its posterior is the generator's)."""
    frame, posterior = shaped(SHAPE, seed=2), reference(SHAPE, seed=2)
    gold = frame.drop_duplicates("item_id").set_index("item_id")["gold"]
    assert np.allclose(posterior.sum(axis=1), 1.0)
    answers = posterior.idxmax(axis=1)
    counts = frame.groupby(["item_id", "label"]).size().unstack(fill_value=0)
    vote = counts.idxmax(axis=1)
    right = int((answers == gold.reindex(answers.index)).sum())
    assert right > int((vote == gold.reindex(vote.index)).sum())
    assert abs(expected_right(posterior, answers) - right) < 3 * np.sqrt(len(answers) * 0.25)
    assert expected_right(posterior, pd.Series(dtype=str)) == 0.0


def test_only_two_classes() -> None:
    with pytest.raises(ValueError, match="two classes"):
        reference(Shape("four", 20, 5, 3, ("a", "b", "c", "d"), (0.25,) * 4))
