"""postprocess/answers/fast_em.py against crowd-kit's own GLAD, MACE and one-coin Dawid-Skene on the same labels:
the same answer on at least 99.5% of items, on synthetic crowds and on Snow 2008's real WSD
labels. The full-size comparison (92,721 labels) is bench/aggregation_speed.py's."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.adult_shaped import adult_shaped
from bench.aggregation_speed import as_crowd_kit_reads
from postprocess.answers import fast_em
from tests.crowd_labels import crowd_frame

SETS = {"crowd": lambda: crowd_frame(3, items=300, per_item=3)[0],
        "adult-shaped": lambda: adult_shaped(seed=1, labels=1600, items=200, workers=50, repeats=0)}


def _crowd_kit(method: str, data: pd.DataFrame, restarts: int = 10) -> pd.DataFrame:
    """crowd-kit's fit; MACE's ``restarts`` all start from the same seed (one is the same as ten, faster)."""
    import crowdkit.aggregation as ck

    model = {"glad": ck.GLAD(n_iter=100), "mace": ck.MACE(n_restarts=restarts, random_state=0),
             "one-coin": ck.OneCoinDawidSkene(n_iter=100)}[method]
    with warnings.catch_warnings():  # crowd-kit 1.4.2 uses pandas' deprecated inplace=
        warnings.simplefilter("ignore")
        probas = model.fit(data).probas_
    probas.columns = probas.columns.astype(str)
    return probas


def _ours(method: str, data: pd.DataFrame) -> pd.DataFrame:
    model = {"glad": fast_em.GLAD(), "mace": fast_em.MACE(random_state=0), "one-coin": fast_em.OneCoinDawidSkene()}
    return model[method].fit(data).probas_


def _as_crowd_kit_reads(frame: pd.DataFrame) -> pd.DataFrame:
    data = frame.rename(columns={"item_id": "task", "worker_id": "worker"})[["task", "worker", "label"]]
    return as_crowd_kit_reads(data)


@pytest.mark.parametrize("name", sorted(SETS))
@pytest.mark.parametrize("method", ["glad", "mace", "one-coin"])
def test_same_answers_as_crowd_kit(name: str, method: str) -> None:
    data = _as_crowd_kit_reads(SETS[name]())
    ours, theirs = _ours(method, data), _crowd_kit(method, data, restarts=1)
    assert list(ours.columns) == sorted(theirs.columns) and set(ours.index) == set(theirs.index)
    theirs = theirs.reindex(index=ours.index, columns=ours.columns)
    assert np.allclose(ours.sum(axis=1), 1.0)
    assert (ours.idxmax(axis=1) == theirs.idxmax(axis=1)).mean() >= 0.995
    assert np.abs(ours.to_numpy() - theirs.to_numpy()).mean() < 0.01


def test_real_wsd_labels_as_crowd_kit(shared_data: Path) -> None:
    raw = pd.read_csv(shared_data / "snow2008-wsd" / "wsd.standardized.tsv", sep="\t", dtype=str)
    data = _as_crowd_kit_reads(raw.rename(columns={"orig_id": "item_id", "!amt_worker_ids": "worker_id",
                                                   "response": "label"}))
    for method in ("glad", "mace", "one-coin"):
        ours = _ours(method, data)
        theirs = _crowd_kit(method, data, restarts=1).reindex(index=ours.index)
        assert (ours.idxmax(axis=1) == theirs[ours.columns].idxmax(axis=1)).mean() >= 0.995, method


def test_progress_is_reported_per_iteration() -> None:
    lines: list[str] = []
    token = fast_em.PROGRESS.set(lines.append)
    try:
        fast_em.MACE(n_iter=7, n_restarts=0).fit(_as_crowd_kit_reads(SETS["crowd"]()))  # the trusting start alone
    finally:
        fast_em.PROGRESS.reset(token)
    assert lines == [f"mace: EM iteration {i} of at most 7" for i in range(1, 8)]


def test_one_label_value_and_one_judgement() -> None:
    data = pd.DataFrame({"task": ["a", "a", "b"], "worker": ["p", "q", "p"], "label": ["x", "x", "x"]})
    for model in (fast_em.GLAD(), fast_em.MACE(), fast_em.OneCoinDawidSkene()):
        probas = model.fit(data).probas_
        assert list(probas.columns) == ["x"] and np.allclose(probas["x"], 1.0)


@pytest.mark.parametrize("name", ["rte", "temp", "wsd"])
def test_mace_answers_do_not_depend_on_the_rows_order_and_are_crowd_kits(name: str) -> None:
    """On Snow 2008's real sets, MACE's answers on rows shuffled three ways are its answers on the file's
    order, and crowd-kit's MACE on the same labels (in the order crowd-kit reads consistently) gives the same
    answer on at least 99.5% of items (before: 98.2% on unsorted rows of a binary set)."""
    from bench.snow_sets import SETS, path_of, read_set

    path = path_of(next(s for s in SETS if s.name == name))
    if path is None:
        pytest.skip(f"needs Snow 2008's {name} labels in ../shared/data (or its HITFLOW_*_LABELS variable)")
    frame = read_set(path)
    data = frame.rename(columns={"item_id": "task", "worker_id": "worker"})[["task", "worker", "label"]]
    answers = _ours("mace", data).idxmax(axis=1)
    theirs = _crowd_kit("mace", _as_crowd_kit_reads(frame), restarts=1).idxmax(axis=1).reindex(answers.index)
    assert (answers == theirs).mean() >= 0.995
    for seed in (1, 2, 3):
        shuffled = _ours("mace", data.sample(frac=1, random_state=seed)).idxmax(axis=1).reindex(answers.index)
        assert (shuffled == answers).all()
