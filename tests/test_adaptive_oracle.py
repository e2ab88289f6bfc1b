"""bench.adaptive_oracle.answered_knowing_the_crowd: the used judgements read by their true likelihoods (the
reading bench/adaptive_seeds.py uses to tell an allocation's miss from its answers')."""

from __future__ import annotations

import numpy as np

from bench.adaptive_oracle import _latents, answered_knowing_the_crowd, skill_oracle
from bench.crowd_shapes import HELD_OUT, shaped

DENSE = next(shape for shape in HELD_OUT if shape.name == "dense108")


def test_every_judgement_read_as_the_oracle_reads_them_once_it_has_bought_them_all() -> None:
    # skill_oracle with the whole file as its budget buys every judgement, a round at a time, and answers with
    # the top label of the same posterior: its own loop, the same figure
    frame = shaped(DENSE, 0)
    accuracy, used = skill_oracle(DENSE, 0, share=1.0)
    assert used == 1.0
    assert answered_knowing_the_crowd(DENSE, 0, frame.drop(columns="gold")) == accuracy


def test_no_judgements_answer_every_item_with_the_likeliest_class() -> None:
    truth = _latents(DENSE, 1)[0]
    frame = shaped(DENSE, 1).drop(columns="gold").iloc[:0]
    expected = float((truth == int(np.argmax(DENSE.prior))).mean())
    assert answered_knowing_the_crowd(DENSE, 1, frame) == expected


def test_more_judgements_of_the_same_items_answer_better_here() -> None:
    # dense108 seed 0: two judgements an item against all 39 (0.9722 with every one, bench/adaptive_seeds.py)
    frame = shaped(DENSE, 0).drop(columns="gold")
    first_two = frame[frame.groupby("item_id").cumcount() < 2]
    assert answered_knowing_the_crowd(DENSE, 0, first_two) < answered_knowing_the_crowd(DENSE, 0, frame)
