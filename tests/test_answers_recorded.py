"""The answers package's outputs on fixed inputs are the recorded ones at a stated precision
(tests/answers_recorded/compare.py: floats to six significant digits, everything else exactly). A case that fails
changed an output: if the change is meant, rewrite the records with ``python -m tests.answers_recorded.cases`` and
say why in the commit."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.answers_recorded.cases import HERE, READABLE, RECORDED, WSD, cases
from tests.answers_recorded.compare import REL, differences, recorded_form

CASES = cases()
RECORDS = json.loads(RECORDED.read_text())


def test_every_case_is_recorded() -> None:
    assert set(CASES) == set(RECORDS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_is_the_recorded_one(name: str) -> None:
    if name.startswith("wsd/") and not WSD.exists():
        pytest.skip(f"needs ../shared/data beside the project ({WSD} is absent)")
    now = json.loads(json.dumps(recorded_form(CASES[name]())))
    changed = differences(RECORDS[name], now)
    assert not changed, f"{name}: the output changed (see the module): " + "; ".join(changed[:5])


@pytest.mark.parametrize("name", sorted(READABLE))
def test_readable_records_are_what_the_package_gives(name: str) -> None:
    """answers.csv's and workers.csv's numbers as written beside the records, floats at the stated precision."""
    now = READABLE[name]()
    kept = pd.read_csv(HERE / name, keep_default_na=False, dtype=str)
    assert list(kept.columns) == list(now.columns) and len(kept) == len(now)
    for column in now.columns:
        if pd.api.types.is_float_dtype(now[column]):
            assert np.allclose(kept[column].replace("", "nan").astype(float).to_numpy(),
                               now[column].to_numpy(dtype=float), rtol=REL, atol=0, equal_nan=True), column
        else:
            assert (kept[column].to_numpy() == now[column].astype(str).to_numpy()).all(), column


def test_the_comparison_ignores_a_last_bit_and_sees_a_change() -> None:
    """One ulp anywhere in a record passes (another CPU's last bits); a change in the sixth digit, a label, a
    dtype or a frame's attrs does not."""
    frame = pd.DataFrame({"x": [0.1, 0.2], "label": ["a", "b"]})
    frame.attrs["temperature"] = {"label": 1.0}
    kept = json.loads(json.dumps(recorded_form(frame)))
    assert not differences(kept, recorded_form(frame.assign(x=[0.1, np.nextafter(0.2, 1)])))
    assert differences(kept, recorded_form(frame.assign(x=[0.1, 0.2000003])))
    assert differences(kept, recorded_form(frame.assign(label=["a", "c"])))
    assert differences(kept, recorded_form(frame.astype({"x": "float32"})))
    retagged = frame.copy()
    retagged.attrs["temperature"] = {"label": 1.5}
    assert differences(kept, recorded_form(retagged))


def test_every_record_still_passes_one_ulp_away() -> None:
    """Every float of every record moved by one ulp (up or down by turns) still compares equal to itself."""
    def nudged(value: object, step: list[int]) -> object:
        if isinstance(value, list):
            return [nudged(v, step) for v in value]
        if isinstance(value, dict):
            return {k: nudged(v, step) for k, v in value.items()}
        if isinstance(value, float) and np.isfinite(value):
            step[0] += 1
            return float(np.nextafter(value, np.inf if step[0] % 2 else -np.inf))
        return value

    for name, record in RECORDS.items():
        assert not differences(record, nudged(record, [0])), name
