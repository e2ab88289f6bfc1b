"""The output-speed work: QC's per-batch rules made cheaper (flag tables built in one pass, counts by dict passes,
early exits when nothing repeats) return the very flag table of the code before them
(bench/qc_flags_before.py, swapped into the live modules): on seeded campaign-like batches (small
batches of a few workers, repeats, canned text, telemetry, earlier picks of the review sample), on
frames whose ids are not text (pandas' own path), and on real VizWiz captions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from bench.qc_batch_speed import PARAMS
from bench.qc_batch_speed import campaign_batch as batch
from bench.qc_flags_before import assignment_times as old_times
from bench.qc_flags_before import before
from qc import timing_rules
from qc.runner import KNOWN_RULES, prepare, run_rules
from tests.test_qc_same_flags import VIZWIZ_VAL, vizwiz_submissions

SEEDS = 13  # seeds 0-12: the last is the first by which every rewritten rule has flagged something


def same_as_before(frame: pd.DataFrame, params: dict[str, Any], rules: tuple[str, ...] = KNOWN_RULES) -> pd.DataFrame:
    new = run_rules(frame, params, rules)
    with before():
        old = run_rules(frame, params, rules)
    pd.testing.assert_frame_equal(new, old, check_dtype=True)
    return new


def test_campaign_like_batches_get_the_flags_they_got_before() -> None:
    found: set[str] = set()
    for seed in range(SEEDS):
        raw, params = batch(seed)
        found |= set(same_as_before(prepare(raw), params)["rule"])
    # each rewritten rule had something to find, so the comparison covers its output, not only its exits
    assert {"canned_lone_use", "canned_lone_nonuse", "duplicate_text", "random_sample", "shared_template",
            "near_template", "canned_overuse", "quality_words_rate", "consensus", "consensus_rate",
            "paste_external", "untyped_text", "switch_then_paste", "typing_cadence"} <= found, found


def test_ids_that_are_not_text_take_pandas_path_to_the_same_flags() -> None:
    """Unprepared frames (numbers for ids, a missing worker) and frames lacking a column: the rules'
    own pandas path, or the same rule_error row."""
    for seed in range(1, 4):
        raw, params = batch(seed)
        if raw.empty:
            continue
        frame = prepare(raw)
        odd = frame.assign(image_id=pd.factorize(frame["image_id"])[0],
                           assignment_id=pd.factorize(frame["assignment_id"])[0])
        odd.loc[odd.index[0], "worker_id"] = None
        same_as_before(odd, params)
        for column in ("worker_id", "image_id", "is_precanned", "assignment_id"):
            same_as_before(frame.drop(columns=[column]), params)


def test_real_vizwiz_captions_get_the_flags_they_got_before(shared_data: Path) -> None:
    source = shared_data / VIZWIZ_VAL
    if not source.is_file():
        pytest.skip(f"needs {source}")
    raw = vizwiz_submissions(source)
    params = {**PARAMS, "consensus_threshold": 0.02, "shared_template_min_images": 2}
    for part in (raw.iloc[:3000], raw.iloc[3000:3300]):  # a big batch and a campaign-sized one
        flags = same_as_before(prepare(part.reset_index(drop=True)), params)
        assert {"duplicate_text", "shared_template", "caps_lock", "quality_words", "random_sample"} <= set(
            flags["rule"])


def test_assignment_times_are_the_rows_drop_duplicates_kept() -> None:
    """Each assignment's first row, index and all (time_outlier reads only the values)."""
    for seed in range(SEEDS):
        raw, _ = batch(seed)
        frame = prepare(raw)
        frame.loc[frame.index[::3], "work_time_s"] = range(len(frame.index[::3]))  # rows of one assignment differ
        pd.testing.assert_frame_equal(timing_rules.assignment_times(frame), old_times(frame))
