"""``share_flags`` (qc/worker_share.py): the per-worker share step of canned_overuse,
quality_words_rate and consensus_rate, on hand-counted captions, and the three rules' own
comparisons and details at their thresholds."""

from __future__ import annotations

import pandas as pd
import pytest

from qc.flags import FLAG_COLUMNS
from qc.runner import prepare, run_rules
from qc.submit_rules import CANNED_TEXT
from qc.worker_share import share_flags

# worker: (flagged captions, counted captions)
COUNTS = {"AT": (2, 4), "FEW": (2, 2), "OVER": (3, 5), "THIRDS": (2, 3), "UNDER": (1, 3)}


def captions() -> pd.DataFrame:
    rows = [(w, k < n_flagged) for w, (n_flagged, n) in COUNTS.items() for k in range(n)]
    return pd.DataFrame(rows[::-1], columns=["worker_id", "flagged"])  # out of order: the output sorts


def row(worker: str, value: float, detail: str) -> dict[str, object]:
    return {"worker_id": worker, "rule": "habit", "value": value, "threshold": 0.5, "assignment_id": "",
            "image_id": "", "detail": detail}


def test_at_the_threshold_counts_unless_strictly_and_few_captions_do_not() -> None:
    found = share_flags(captions(), "habit", 0.5, "show it", min_captions=3)
    assert list(found.columns) == FLAG_COLUMNS
    # AT 2/4 = 0.5 reaches 0.5; OVER 3/5 = 0.6; THIRDS 2/3 = 0.667; UNDER 1/3 no; FEW 2/2 has 2 < 3 captions
    assert found.to_dict("records") == [row("AT", 0.5, "2 of 4 captions show it"),
                                        row("OVER", 0.6, "3 of 5 captions show it"),
                                        row("THIRDS", 0.667, "2 of 3 captions show it")]


def test_strictly_leaves_out_a_share_equal_to_the_threshold() -> None:
    found = share_flags(captions(), "habit", 0.5, "show it", strictly=True)
    # min_captions 1: FEW 2/2 = 1.0 counts now; AT's 0.5 does not exceed 0.5
    assert found.to_dict("records") == [row("FEW", 1.0, "2 of 2 captions show it"),
                                        row("OVER", 0.6, "3 of 5 captions show it"),
                                        row("THIRDS", 0.667, "2 of 3 captions show it")]


def test_no_captions_no_flags() -> None:
    found = share_flags(pd.DataFrame({"worker_id": [], "flagged": []}), "habit", 0.5, "show it")
    assert found.empty and list(found.columns) == FLAG_COLUMNS


GOOD = "A small brown dog runs across the green grass in a park."


@pytest.mark.parametrize(("n_canned", "flagged"), [(2, False), (3, True)])
def test_canned_overuse_exceeds_its_share_and_says_how_many(n_canned: int, flagged: bool) -> None:
    texts = [CANNED_TEXT] * n_canned + [GOOD] * (4 - n_canned)
    df = prepare(pd.DataFrame({"assignment_id": "a", "worker_id": "W", "image_id": [f"i{k}" for k in range(4)],
                               "caption": texts, "work_time_s": 10.0}))
    found = run_rules(df, {}, ["canned_overuse"])
    # 2 of 4 is exactly canned_share 0.5: not over-use; 3 of 4 is
    assert found[["worker_id", "value", "threshold", "detail"]].to_dict("records") == (
        [{"worker_id": "W", "value": 0.75, "threshold": 0.5, "detail": "3 of 4 captions canned"}] if flagged else [])


@pytest.mark.parametrize(("n_worded", "n", "flagged"), [(1, 4, False), (2, 4, True), (3, 3, True)])
def test_quality_words_rate_reaches_its_share_with_three_captions(n_worded: int, n: int, flagged: bool) -> None:
    texts = ["A blurry photo of a red mug"] * n_worded + ["A red mug on a wooden table"] * (n - n_worded)
    df = prepare(pd.DataFrame({"assignment_id": "a", "worker_id": "W", "image_id": [f"i{k}" for k in range(n)],
                               "caption": texts, "work_time_s": 10.0}))
    found = run_rules(df, {"quality_words_rate_share": 0.5}, ["quality_words_rate"])
    # 2 of 4 is exactly the share: flagged (>=); 1 of 4 is under it
    want = [{"worker_id": "W", "value": round(n_worded / n, 3), "threshold": 0.5,
             "detail": f"{n_worded} of {n} captions name image quality"}]
    assert found[["worker_id", "value", "threshold", "detail"]].to_dict("records") == (want if flagged else [])
