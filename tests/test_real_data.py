"""hitflow's rules, spell-corrector and readers over the real VizWiz data in ../shared/data."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from flows.platforms.submission_formats import read_submissions
from postprocess.spellcheck import spellcheck_frame
from qc.runner import prepare, run_rules
from qc.submit_rules import CANNED_TEXT

TOKEN = re.compile(r"[^\W_][\w'’]*")


@pytest.fixture(scope="module")
def vizwiz(request) -> pd.DataFrame:
    from tests.conftest import SHARED_DATA

    path = SHARED_DATA / "vizwiz-captions-v1-val" / "VizWiz_Captions_v1_val_updated.json"
    if not path.is_file():
        pytest.skip(f"needs ../shared/data beside the project ({path} is absent)")
    annotations = pd.DataFrame(json.loads(path.read_text())["annotations"])
    return annotations


def test_caption_rules_over_real_captions(vizwiz: pd.DataFrame) -> None:
    frame = prepare(pd.DataFrame({"assignment_id": vizwiz["id"].astype(str), "worker_id": "w",
                                  "image_id": vizwiz["image_id"].astype(str), "caption": vizwiz["caption"]}))
    # Canned captions found by text, counted independently of is_canned.
    exact = int((vizwiz["caption"].str.strip().str.rstrip(".").str.lower() == CANNED_TEXT.rstrip(".").lower()).sum())
    assert int(frame["is_precanned"].sum()) == exact > 2000
    flags = run_rules(frame, {}, ["min_words", "one_sentence", "banned_prefix"])
    accepted = vizwiz.loc[vizwiz["is_rejected"] == 0, "id"].astype(str)
    flagged_accepted = flags[flags["assignment_id"].isin(set(accepted))]["assignment_id"].nunique()
    # The real page enforced these rules; released, accepted captions almost all pass them.
    assert flagged_accepted / len(accepted) < 0.005
    assert set(flags["rule"]) <= {"min_words", "one_sentence", "banned_prefix"}


def test_spellcheck_over_real_captions_keeps_structure(vizwiz: pd.DataFrame) -> None:
    sample = vizwiz[vizwiz["is_rejected"] == 0].sample(800, random_state=1)
    frame = pd.DataFrame({"caption": sample["caption"].values, "worker_id": [f"w{i % 50}" for i in range(800)]})
    out = spellcheck_frame(frame, min_workers=3)
    changed = out[out["edits"] != ""]
    assert 0 < len(changed) < len(out) * 0.3
    for row in out.itertuples():
        before, after = TOKEN.findall(row.caption), TOKEN.findall(row.caption_corrected)
        assert len(before) == len(after)
        assert re.sub(r"[\w'’]", "", row.caption) == re.sub(r"[\w'’]", "", row.caption_corrected)
        for old, new in zip(before, after, strict=True):
            if old != new:
                assert not any(c.isdigit() for c in old) and not old.isupper()


def test_pilot_results_file_is_parsed(shared_data: Path) -> None:
    frame = read_submissions(shared_data / "vizwiz-captions-pilot-hits" / "hit.results")
    assert len(frame) == 50 and frame["assignment_id"].nunique() == 10 and frame["worker_id"].nunique() == 10
    first = frame[frame["assignment_id"] == "345LHZDEDYC0RFJKJY8RHIYW1MEU3M"]
    assert list(first["image_id"])[:2] == ["VizWiz_v2_000000036268.jpg", "VizWiz_test_000000021235.jpg"]
    assert list(first["caption"])[1] == "a box of amys brand 3 cheese penne marinara"
    assert list(first["text_present"]) == ["N", "Y", "N", "Y", "Y"]
    assert first["work_time_s"].iloc[0] == 101.0  # 16:20:50 -> 16:22:31 CDT
    assert prepare(frame)["is_precanned"].sum() == 12
