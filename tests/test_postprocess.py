"""Spell-correction rules and the VizWiz dataset format."""

from __future__ import annotations

import pandas as pd
import pytest

from postprocess.dataset import canned_per_image, canned_table, difficulty, text_detected, vizwiz_parts
from postprocess.report_data import blocking_vs_truth
from postprocess.spellcheck import spellcheck_frame
from qc.submit_rules import CANNED_TEXT


def fix(captions: list[str], workers: list[str] | None = None, **kw) -> pd.DataFrame:
    frame = pd.DataFrame({"caption": captions})
    if workers:
        frame["worker_id"] = workers
    return spellcheck_frame(frame, **kw)


@pytest.mark.parametrize(("caption", "expected"), [
    ("A bottle on teh tabel.", "A bottle on the table."),
    ("Teh bottle sits on a table.", "The bottle sits on a table."),  # sentence start keeps its capital
    ("A Duracell battery next to a Dell laptop.", "A Duracell battery next to a Dell laptop."),
    ("A reciept reading 3pm and 12oz on a box.", "A receipt reading 3pm and 12oz on a box."),
    ("A TV remote on a sofa, teh end!", "A TV remote on a sofa, the end!"),
    ("A plate of entrée food.", "A plate of entrée food."),
])
def test_spellcheck_cases(caption: str, expected: str) -> None:
    assert fix([caption]).iloc[0]["caption_corrected"] == expected


def test_edits_listed_and_original_kept() -> None:
    out = fix(["A bottle on teh tabel."])
    assert out.iloc[0]["caption"] == "A bottle on teh tabel."
    assert out.iloc[0]["edits"] == "teh->the; tabel->table"


def test_words_three_workers_used_are_kept() -> None:
    caps = ["A cofee pot on a counter in a kitchen."] * 3 + ["A cofee pot on a table."]
    kept = fix(caps, ["w1", "w2", "w3", "w1"], min_workers=3)
    assert (kept["caption_corrected"] == kept["caption"]).all()
    two = fix(caps[:2], ["w1", "w2"], min_workers=3)
    assert (two["caption_corrected"] != two["caption"]).all()


def test_canned_captions_untouched() -> None:
    frame = pd.DataFrame({"caption": ["Qualty issues", "teh cat sat on teh mat"], "is_precanned": [True, False]})
    out = spellcheck_frame(frame)
    assert out.iloc[0]["caption_corrected"] == "Qualty issues" and out.iloc[0]["edits"] == ""


def captions_frame() -> pd.DataFrame:
    rows = []
    for img, canned_n in (("1", 0), ("2", 2), ("3", 5), ("4", 3)):
        for k in range(5):
            canned = k < canned_n
            rows.append({"assignment_id": f"a{k}", "worker_id": f"W{k}", "batch": 1, "image_id": img,
                         "caption": CANNED_TEXT if canned else "A dog on a couch", "is_precanned": canned,
                         "caption_corrected": CANNED_TEXT if canned else "A dog on a couch",
                         "text_present": "yes" if (img == "1" and k < 3) or (img == "2" and k < 2) else "no",
                         "is_rejected": False})
    return pd.DataFrame(rows)


def test_text_detected_is_strict_majority() -> None:
    detected = text_detected(captions_frame())
    assert detected["1"] == 1 and detected["2"] == 0 and detected["3"] == 0


def test_difficulty_levels_follow_the_paper() -> None:
    levels = difficulty(captions_frame()).set_index("image_id")["difficulty"].to_dict()
    assert levels == {"1": "easy", "2": "medium", "3": "all_canned", "4": "difficult"}


def test_canned_distribution_table() -> None:
    table = canned_table(canned_per_image(captions_frame()))
    assert list(table["images"]) == [1, 0, 1, 1, 0, 1] and table["share"].sum() == pytest.approx(1.0)


def test_vizwiz_json_shape() -> None:
    items = pd.DataFrame({"image_id": ["1", "2", "3", "4", "5"], "file_name": [f"f{i}.jpg" for i in range(5)]})
    images, annotations = vizwiz_parts(captions_frame(), items)
    data = {"images": images, "annotations": annotations}
    assert [i["id"] for i in data["images"]] == [1, 2, 3, 4]  # item 5 has no captions
    assert len(data["annotations"]) == 20 and data["annotations"][0]["image_id"] == 1
    assert {a["is_precanned"] for a in data["annotations"]} == {0, 1}
    assert [i["difficulty"] for i in data["images"]] == ["easy", "medium", "all_canned", "difficult"]


def test_blocking_vs_truth_rates() -> None:
    truth = pd.DataFrame({"worker_id": ["a", "b", "c", "d", "e", "f", "g"],
                          "profile": ["diligent", "diligent", "speeder", "low_approval", "typo_prone", "diligent",
                                      "speeder"],
                          "gate": ["passed", "passed", "passed", "refused", "passed", "passed", "passed"]})
    blocked = pd.DataFrame({"worker_id": ["b", "c"], "batch": [1, 1], "rules": ["x", "y"]})
    work = pd.DataFrame({"worker_id": ["a", "b", "c"], "assignments": [3, 2, 4]})
    table = blocking_vs_truth(truth, blocked, work).set_index("profile")
    assert table.loc["diligent", "rate"] == 0.5 and table.loc["speeder", "rate"] == 1.0
    assert table.loc["low_approval", "gated_out"] == 1 and table.loc["low_approval", "rate"] == 1.0
    assert table.loc["typo_prone", "worked"] == 0 and table.loc["typo_prone", "rate"] == 0.0  # nobody to judge
    # let in, but no work was left: never reached, not "gated out", and not counted as caught
    assert table.loc["diligent", "gated_out"] == 0 and table.loc["diligent", "never_reached"] == 1
    assert table.loc["speeder", "never_reached"] == 1 and table.loc["speeder", "rate"] == 1.0
    # each row's rate in words: 0.0 on a bad profile is never "caught", and nobody met is neither
    assert table.loc["diligent", "meaning"] == "1 of 2 wrongly blocked"
    assert table.loc["speeder", "meaning"] == "1 of 1 caught (blocked or gated out)"
    assert table.loc["typo_prone", "meaning"] == "never met: nothing to judge"
    missed = blocking_vs_truth(truth, blocked.iloc[:1], work).set_index("profile")
    assert missed.loc["speeder", "meaning"] == "none of 1 caught"
    assert missed.loc["diligent", "meaning"] == "1 of 2 wrongly blocked"


def test_blocking_vs_truth_without_gate_says_nobody_was_gated() -> None:
    """The old table counted every worker without work as gated out and, for bad profiles, caught."""
    truth = pd.DataFrame({"worker_id": ["a", "b"], "profile": ["diligent", "speeder"]})
    empty = pd.DataFrame({"worker_id": [], "batch": [], "rules": []})
    work = pd.DataFrame({"worker_id": [], "assignments": []})
    table = blocking_vs_truth(truth, empty, work).set_index("profile")
    assert list(table["gated_out"]) == [0, 0] and list(table["never_reached"]) == [1, 1]
    assert table.loc["speeder", "rate"] == 0.0
