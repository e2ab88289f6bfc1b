"""The answers package's outputs on fixed inputs are the recorded ones, float for float (issue 66: recorded
outputs in tests/answers_recorded/ replace tests/answers_v1, the frozen copy of the package kept as the oracle
of its CPU pass, so that one implementation remains). A case that fails changed an output: if the change is
meant, rewrite the records with ``python -m tests.answers_recorded.cases`` and say why in the commit."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.answers_recorded.cases import HERE, READABLE, RECORDED, WSD, cases, digest

CASES = cases()
RECORDS = json.loads(RECORDED.read_text())


def test_every_case_is_recorded() -> None:
    assert set(CASES) == set(RECORDS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_is_the_recorded_one(name: str) -> None:
    if name.startswith("wsd/") and not WSD.exists():
        pytest.skip(f"needs ../shared/data beside the project ({WSD} is absent)")
    assert digest(CASES[name]()) == RECORDS[name], f"{name}: the output changed (see the module)"


@pytest.mark.parametrize("name", sorted(READABLE))
def test_readable_records_are_what_the_package_gives(name: str) -> None:
    """answers.csv's and workers.csv's numbers as written beside the digests, each float read back exactly."""
    now = READABLE[name]()
    kept = pd.read_csv(HERE / name, keep_default_na=False, dtype=str)
    assert list(kept.columns) == list(now.columns) and len(kept) == len(now)
    for column in now.columns:
        if pd.api.types.is_float_dtype(now[column]):
            assert np.array_equal(kept[column].replace("", "nan").astype(float).to_numpy(),
                                  now[column].to_numpy(dtype=float), equal_nan=True), column
        else:
            assert (kept[column].to_numpy() == now[column].astype(str).to_numpy()).all(), column


def test_the_digest_tells_the_last_bit() -> None:
    """The records compare float for float: one ulp, a dtype or an attr changes the digest."""
    frame = pd.DataFrame({"x": [0.1, 0.2]})
    assert digest(frame) == digest(frame.copy())
    assert digest(frame) != digest(frame.assign(x=[0.1, np.nextafter(0.2, 1)]))
    assert digest(frame) != digest(frame.astype({"x": "float32"}))
    tagged = frame.copy()
    tagged.attrs["temperature"] = {"label": 1.0}
    assert digest(frame) != digest(tagged)
