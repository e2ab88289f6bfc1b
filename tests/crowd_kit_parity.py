"""What the tests of our EM models against crowd-kit's share: the label sets, crowd-kit's fit run quietly or read
from its recorded output, rows as crowd-kit indexes them, and the comparison of two answer tables.

crowd-kit's GLAD, MACE and Dawid-Skene cost 1-4 s of CPU a fit (pandas a step), ~25 s for the suite's comparisons,
and give the same output for the same rows, options and crowd-kit version: that output is recorded in
tests/crowd_kit_recorded/ (one file per fit, named by a digest of the three) and read back. Rows, options or a
version without a record are fitted live. ``make bench-crowd-kit-parity`` fits every one live and checks it against
its record (HITFLOW_CROWD_KIT=live); HITFLOW_CROWD_KIT=record writes the records again."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import sys
import warnings
from importlib.metadata import version
from pathlib import Path
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


RECORDED = Path(__file__).resolve().parent / "crowd_kit_recorded"


def _record_path(module: str, name: str, options: dict[str, Any], data: pd.DataFrame) -> Path:
    key = json.dumps([version("crowd-kit"), module, name, sorted(options.items())]).encode()
    digest = hashlib.sha256(key + data.to_csv().encode()).hexdigest()[:20]
    return RECORDED / f"{name}-{digest}.json.gz"


def _write_record(path: Path, probas: pd.DataFrame) -> None:
    table = {"index": probas.index.tolist(), "index_name": probas.index.name, "columns": probas.columns.tolist(),
             "columns_name": probas.columns.name, "data": probas.to_numpy().tolist()}
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(gzip.compress(json.dumps(table).encode(), mtime=0))


def _read_record(path: Path) -> pd.DataFrame:
    table = json.loads(gzip.decompress(path.read_bytes()))
    return pd.DataFrame(table["data"], index=pd.Index(table["index"], name=table["index_name"]),
                        columns=pd.Index(table["columns"], name=table["columns_name"]))


def crowd_kit_fit(module: str, name: str, data: pd.DataFrame, **options: Any) -> pd.DataFrame:
    """crowd-kit's ``probas_`` of ``<module>.<name>(**options)`` fitted on ``data``, label columns as text: its
    recorded output when there is one (json keeps each float exactly), else fitted live (module docstring)."""
    path, mode = _record_path(module, name, options, data), os.environ.get("HITFLOW_CROWD_KIT", "")
    if mode not in ("live", "record") and path.is_file():
        return _read_record(path)
    probas = crowd_kit_probas(crowd_kit_class(module, name)(**options), data)
    if mode == "record":
        _write_record(path, probas)
    elif mode == "live" and path.is_file():  # the bench's check: the record is crowd-kit's output, bit for bit
        pd.testing.assert_frame_equal(_read_record(path), probas, check_exact=True, check_index_type=False)
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
