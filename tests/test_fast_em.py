"""postprocess/answers/fast_em.py against crowd-kit's own GLAD and one-coin Dawid-Skene on the same labels: the
same answer on at least 99.5% of items, on synthetic crowds and on Snow 2008's real WSD labels. The full-size
comparison (92,721 labels) is bench/aggregation_speed.py's; MACE's tests are tests/test_mace_em.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from postprocess.answers import fast_em
from tests.crowd_kit_parity import SETS, assert_same_answers, crowd_kit_fit, crowd_kit_rows


def _crowd_kit(method: str, data: pd.DataFrame) -> pd.DataFrame:
    """crowd-kit's fit, recorded (tests/crowd_kit_parity.py)."""
    module, name = {"glad": ("glad", "GLAD"), "one-coin": ("dawid_skene", "OneCoinDawidSkene")}[method]
    return crowd_kit_fit(module, name, data, n_iter=100)


def _ours(method: str, data: pd.DataFrame) -> pd.DataFrame:
    model: fast_em.GLAD | fast_em.OneCoinDawidSkene = (fast_em.GLAD() if method == "glad"
                                                        else fast_em.OneCoinDawidSkene())
    return model.fit(data).probas_


@pytest.mark.parametrize("name", sorted(SETS))
@pytest.mark.parametrize("method", ["glad", "one-coin"])
def test_same_answers_as_crowd_kit(name: str, method: str) -> None:
    data = crowd_kit_rows(SETS[name]())
    assert_same_answers(_ours(method, data), _crowd_kit(method, data))


def test_real_wsd_labels_as_crowd_kit(shared_data: Path) -> None:
    raw = pd.read_csv(shared_data / "snow2008-wsd" / "wsd.standardized.tsv", sep="\t", dtype=str)
    data = crowd_kit_rows(raw.rename(columns={"orig_id": "item_id", "!amt_worker_ids": "worker_id",
                                                   "response": "label"}))
    for method in ("glad", "one-coin"):
        ours = _ours(method, data)
        theirs = _crowd_kit(method, data).reindex(index=ours.index)
        assert (ours.idxmax(axis=1) == theirs[ours.columns].idxmax(axis=1)).mean() >= 0.995, method


def test_progress_is_reported_per_iteration() -> None:
    lines: list[str] = []
    token = fast_em.PROGRESS.set(lines.append)
    try:
        fast_em.OneCoinDawidSkene(n_iter=7, tol=-np.inf).fit(crowd_kit_rows(SETS["crowd"]()))  # never stops early
    finally:
        fast_em.PROGRESS.reset(token)
    assert lines == [f"one-coin: EM iteration {i} of at most 7" for i in range(1, 8)]


def test_one_label_value_and_one_judgement() -> None:
    data = pd.DataFrame({"task": ["a", "a", "b"], "worker": ["p", "q", "p"], "label": ["x", "x", "x"]})
    for model in (fast_em.GLAD(), fast_em.OneCoinDawidSkene()):
        probas = model.fit(data).probas_
        assert list(probas.columns) == ["x"] and np.allclose(probas["x"], 1.0)
