"""What the tests of our EM models against crowd-kit's share: the label sets, crowd-kit's fit run quietly, rows
as crowd-kit indexes them, and the comparison of two answer tables."""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import pandas as pd

from bench.adult_shaped import adult_shaped
from bench.aggregation_speed import as_crowd_kit_reads
from postprocess.answers.crowdkit_models import _without_package_inits
from tests.crowd_labels import crowd_frame

SETS = {"crowd": lambda: crowd_frame(3, items=300, per_item=3)[0],
        "adult-shaped": lambda: adult_shaped(seed=1, labels=1600, items=200, workers=50, repeats=0)}


def crowd_kit_class(module: str, name: str) -> Any:
    """crowd-kit's class ``name`` of ``crowdkit.aggregation.classification.<module>``: that module alone unless
    the package is loaded already (its __init__ imports nltk and scikit-learn too, ~1.5 s of CPU)."""
    full = f"crowdkit.aggregation.classification.{module}"
    return getattr(sys.modules.get(full) or _without_package_inits(full), name)


def crowd_kit_probas(model: Any, data: pd.DataFrame) -> pd.DataFrame:
    """A crowd-kit model's ``probas_`` on ``data``, its label columns as text."""
    with warnings.catch_warnings():  # crowd-kit 1.4.2 uses pandas' deprecated inplace=
        warnings.simplefilter("ignore")
        probas = model.fit(data).probas_
    probas.columns = probas.columns.astype(str)
    return probas


def task_worker_label(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.rename(columns={"item_id": "task", "worker_id": "worker"})[["task", "worker", "label"]]


def crowd_kit_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """``item_id, worker_id, label`` rows as crowd-kit reads them as it indexes them (bench/aggregation_speed.py)."""
    return as_crowd_kit_reads(task_worker_label(frame))


def assert_same_answers(ours: pd.DataFrame, theirs: pd.DataFrame) -> None:
    """The same items and labels, the same answer on at least 99.5% of items, probabilities within 0.01 on
    average."""
    assert list(ours.columns) == sorted(theirs.columns) and set(ours.index) == set(theirs.index)
    theirs = theirs.reindex(index=ours.index, columns=ours.columns)
    assert np.allclose(ours.sum(axis=1), 1.0)
    assert (ours.idxmax(axis=1) == theirs.idxmax(axis=1)).mean() >= 0.995
    assert np.abs(ours.to_numpy() - theirs.to_numpy()).mean() < 0.01
