"""Every method's answer is its own likeliest: no two-label answer reads below 0.5 (postprocess.answers.aggregation's
coherent confidence, calibration's still_likeliest)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.crowd_shapes import Shape, shaped
from postprocess.answers.aggregation import aggregate, aggregate_scored, coherent
from postprocess.answers.calibration import FAVOURS, still_likeliest

# a small crowd of the 3-labels-an-item, 12%-positive product shape: the answers' methods and the skill posterior
# disagree on some of its items
SPARSE = Shape("sparse", 600, 60, 3, ("0", "1"), (0.88, 0.12), top_share=0.05)


def test_coherent_shares_the_probability_where_the_models_disagree() -> None:
    assert coherent(np.array([0.3, 0.8, 0.25]), np.array([0.7, 0.8, 0.5])).tolist() == [0.5, 0.8, 0.375]
    assert still_likeliest(np.array([0.4, 0.3, 0.9]), np.array([0.6, 0.45, 0.95])).tolist() == [0.5, 0.3, 0.9]


@pytest.mark.parametrize("method", ["auto", "mv", "ds", "mace", "skill"])
def test_no_two_label_answer_reads_below_half(method: str) -> None:
    frame = shaped(SPARSE, seed=1).drop(columns="gold")
    answers = aggregate(frame, method).answers
    assert len(answers) == 600
    assert (answers["confidence"] >= 0.5).all(), answers.nsmallest(3, "confidence")


def test_calibrated_answers_stay_coherent() -> None:
    data = shaped(SPARSE, seed=2)
    gold = data.drop_duplicates("item_id")
    controls = gold.iloc[::5][["item_id", "gold"]].rename(columns={"gold": "answer"})
    result, _ = aggregate_scored(data.drop(columns="gold"), "mv", controls=controls)
    below = result.answers["confidence"] < 0.5  # only where the controls' held-out log-loss reads them so, noted
    assert below.any() and not result.answers.attrs["calibration_fit"]["held_at_half"]
    labels = set(data["label"])  # two: each such note names the other one
    named = [FAVOURS + (labels - {answer}).pop() for answer in result.answers["label"][below]]
    assert len(labels) == 2 and all(n.endswith(e) for n, e in zip(result.answers["note"][below], named, strict=True))

