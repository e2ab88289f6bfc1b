"""The cluster bootstrap behind ``make bench-qc-real``'s intervals (bench/qc_bootstrap.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bench.qc_bootstrap import heldout_interval, per_image_counts


def frame(images: int, rejected_every: int) -> pd.DataFrame:
    """Held-out images only, five captions each; every ``rejected_every``-th caption rejected."""
    n = images * 5
    return pd.DataFrame({"image_id": [str(2 * (k // 5) + 1) for k in range(n)], "tune": False,
                         "is_precanned": [k % 7 == 6 for k in range(n)],
                         "rejected": [k % rejected_every == 0 for k in range(n)]})


def test_counts_are_per_image_and_leave_canned_and_the_other_half_out() -> None:
    data = frame(4, 3)
    data.loc[0, "tune"] = True
    counts = per_image_counts(data, np.ones(len(data), dtype=bool), tune=False)
    assert counts.shape == (4, 4)
    kept = ~data["is_precanned"] & ~data["tune"]
    assert counts[:, 1].sum() == (kept & data["rejected"]).sum()
    assert counts[:, 3].sum() == (kept & ~data["rejected"]).sum()
    assert (counts[:, 0] == counts[:, 1]).all() and (counts[:, 2] == counts[:, 3]).all()  # all flagged


@pytest.mark.parametrize(("flag_rejected", "flag_accepted_every", "meets"), [
    (True, 0, 1.0),      # every rejected, no accepted flagged: every resample meets both targets
    (False, 0, 0.0),     # nothing flagged: none does
    (True, 2, 0.0),      # half the accepted flagged: far over 3%
])
def test_interval_brackets_the_estimate(flag_rejected: bool, flag_accepted_every: int, meets: float) -> None:
    data = frame(200, 4)
    accepted_hit = (np.arange(len(data)) % flag_accepted_every == 1) if flag_accepted_every else False
    flagged = np.where(data["rejected"], flag_rejected, accepted_hit).astype(bool)
    found = heldout_interval(data, flagged, resamples=300)
    assert found["recall_ci"][0] <= found["recall"] <= found["recall_ci"][1]
    assert found["false_ci"][0] <= found["false"] <= found["false_ci"][1]
    assert found["meets_target"] == meets
    assert heldout_interval(data, flagged, resamples=300) == found  # seeded: the same figures every run


def test_a_mixed_flagging_has_a_real_width() -> None:
    data = frame(300, 4)
    rng = np.random.default_rng(1)
    flagged = np.where(data["rejected"], rng.random(len(data)) < 0.9, rng.random(len(data)) < 0.02)
    found = heldout_interval(data, flagged, resamples=500)
    low, high = found["recall_ci"]
    assert 0.0 < high - low < 0.2 and low < 0.9 < high
