"""Issue 59: QC's per-batch rules made cheaper (flag tables built in one pass, counts by dict passes,
early exits when nothing repeats) return the very flag table of the code before them
(tests/qc_rules_before.py, swapped into the live modules): on seeded campaign-like batches (small
batches of a few workers, repeats, canned text, telemetry, earlier picks of the review sample), on
frames whose ids are not text (pandas' own path), and on real VizWiz captions."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.campaigns.page_text import qc_params
from flows.core.config.config import load_config
from qc.runner import KNOWN_RULES, prepare, run_rules
from qc.submit_rules import CANNED_TEXT
from tests.qc_rules_before import before
from tests.test_qc_same_flags import VIZWIZ_VAL, vizwiz_submissions

ROOT = Path(__file__).resolve().parents[1]
SEEDS = 30
PARAMS = qc_params(load_config(ROOT / "config" / "vizwiz_captions.toml"), seed=1)
TEXTS = ["A white mug on a wooden desk next to a laptop computer.", "A white mug on a wooden desk next to a laptop.",
         "A photo of a can of soup on a kitchen counter.", "A photo of a can of beans on a shelf.",
         "A photo of a can of corn on a table top here.", "THE DOG IS SLEEPING ON THE RED COUCH TODAY.",
         "The image is blurry and the quality is poor.", "This is a bottle of water.", "", "   ",
         CANNED_TEXT, "quality issues are too severe to recognize visual content", "dog",
         "A very wonderful view and worth seeing at all times, my friend", "Two cats. They sleep."]


def telemetry(caption: str, rng: random.Random) -> str:
    """A page's record for one caption: typed, pasted from outside (after leaving the tab) or blank."""
    n = len(caption)
    how = rng.choice(["typed", "typed", "pasted", "fast", "none"])
    if how == "none":
        return ""
    pasted = [[9000, n, "x"]] if how == "pasted" else []
    f = {"typed": 0 if pasted else n, "del": 0, "keys": 0 if pasted else n + 2, "first_ms": 3000,
         "active_ms": 100 if how == "fast" else 20000, "paste": pasted, "paste_n": len(pasted),
         "paste_x": n if pasted else 0, "paste_p": 0, "drop": 0, "copy": 0, "cut": 0, "focus": [], "len": n}
    return json.dumps({"v": 1, "loads": 1, "vis": [[8500, "h"], [8900, "v"]] if pasted else [], "f": {"caption_0": f}})


def batch(seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A campaign-like batch: workers doing assignments of a few images each, with a page's params."""
    rng = random.Random(seed)
    workers = [f"W{k}" for k in range(rng.randint(1, 8))]
    images = [str(28000 + k) for k in range(rng.randint(1, 15))]
    rows = []
    for a in range(rng.randint(0, 14)):
        worker, time_s = rng.choice(workers), rng.choice([rng.lognormvariate(5, 0.6), 5.0, float("nan")])
        for image in rng.sample(images, rng.randint(1, min(5, len(images)))):
            caption = rng.choice(TEXTS)
            rows.append({"assignment_id": f"A{a}", "worker_id": worker, "image_id": image, "caption": caption,
                         "work_time_s": time_s, "telemetry": telemetry(caption, rng), "telemetry_field": "caption_0"})
    raw = pd.DataFrame(rows, columns=["assignment_id", "worker_id", "image_id", "caption", "work_time_s",
                                      "telemetry", "telemetry_field"])
    if seed % 3 == 0:
        raw = raw.drop(columns=["telemetry", "telemetry_field"])
    ids = sorted(set(raw["assignment_id"]))
    params = {**PARAMS, "seed": seed, "random_sample_share": rng.choice([0.0, 0.05, 0.3, 1.0]),
              "sampled_before": rng.sample(ids, min(len(ids), rng.randint(0, 2))),
              "decided": rng.sample(ids, min(len(ids), rng.randint(0, 3))),
              "shared_template_min_images": rng.choice([2, 4]), "lone_min_captions": rng.choice([2, 3]),
              "near_template_words": rng.choice([3, 5]), "near_template_consensus": rng.choice([0.05, 0.5])}
    return raw, params


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
            "paste_external", "typing_cadence"} <= found, found


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
