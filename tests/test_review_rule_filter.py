"""The review page's rule filter lists rule names, never pieces of a block's reason cut at its commas."""

from __future__ import annotations

import pandas as pd

from flows.review.review_cards import _filtered, rule_names
from postprocess.answers.worker_skill import RULE


def test_a_block_reason_with_commas_in_its_evidence_is_one_rule() -> None:
    reason = f"{RULE} P=0.01 (controls 3/5, items 6, agreeing 9%)"
    assert rule_names(reason) == {RULE}
    assert rule_names(f"caps_lockx3;{reason}") == {"caps_lock", RULE}
    assert rule_names("time_outlier,random_sample") == {"time_outlier", "random_sample"}
    assert rule_names("") == set()


def test_the_filter_finds_the_worker_by_the_rule_of_its_reason() -> None:
    queue = pd.DataFrame({"rules": [f"{RULE} P=0.01 (controls 3/5, items 6, agreeing 9%)", "caps_lockx2"],
                          "batch": [1, 1], "worker_id": ["w1", "w2"], "state": ["open", "open"]})
    assert _filtered(queue, {"rule": RULE})["worker_id"].tolist() == ["w1"]
    assert _filtered(queue, {"rule": "items 6"}).empty
