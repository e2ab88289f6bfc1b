"""The last-edges work pt 7: what a campaign's own captions tell spell-correction.

Each rule is checked through ``spellcheck_frame`` on small campaigns over the real English list;
every test but the last failed on the code before it (the last guards the new two-edit rule).
"""

from __future__ import annotations

import pandas as pd

from flows.core.outputs.spelling_cache import spelling_index
from postprocess.spell_campaign import has_inner_capital, is_compound
from postprocess.spellcheck import spellcheck_frame


def _campaign(lines: list[str], filler: str, times: int) -> pd.DataFrame:
    """``lines`` by one worker each, then ``filler`` ``times`` times by 40 other workers."""
    rows = [(f"typist{k}", line) for k, line in enumerate(lines)]
    rows += [(f"w{k % 40}", filler) for k in range(times)]
    return pd.DataFrame(rows, columns=["worker_id", "caption"])


def _fixed(frame: pd.DataFrame, rows: int) -> list[str]:
    return spellcheck_frame(frame, min_workers=3, index=spelling_index())["caption_corrected"].tolist()[:rows]


def test_the_campaigns_own_words_are_the_likelier_corrections() -> None:
    """"blck" is one edit from "back" (commoner in general text) and from "black": in captions
    that say "black" all the time, "black" is meant. Before: "back"."""
    lines = ["A blck mug on a desk.", "A balck cat on a sofa."]
    assert _fixed(_campaign(lines, "A black phone on a black table.", 30), 2) == [
        "A black mug on a desk.", "A black cat on a sofa."]
    # a campaign that never writes "black" gets the list's choice, as before
    assert _fixed(_campaign(lines, "The back of a box.", 30), 2)[0] == "A back mug on a desk."


def test_a_shared_typo_is_read_against_the_neighbour_the_campaign_uses() -> None:
    """"issuse" typed by three workers was kept: its list-chosen neighbour "issue" is never written
    here, but "issues" (also one edit away) is, forty times as often."""
    lines = ["A list of issuse on paper."] * 3
    assert _fixed(_campaign(lines, "A magazine with back issues.", 120), 3) == ["A list of issues on paper."] * 3
    # written as often as its neighbour, a word stays campaign vocabulary
    assert _fixed(_campaign(lines, "A magazine with back issues.", 4), 1) == ["A list of issuse on paper."]


def test_two_typos_in_a_long_word_are_corrected_towards_a_word_the_campaign_writes() -> None:
    lines = ["A bag of frozen vegtealbes.", "A tin of mixed vegtealbes."]
    assert _fixed(_campaign(lines, "Fresh vegetables in a bowl.", 30), 2) == [
        "A bag of frozen vegetables.", "A tin of mixed vegetables."]
    # without the campaign's evidence, a long unknown word is left as typed: it is more often a
    # compound or a brand than a word with two typos ("barcodes" is not "arcades")
    assert _fixed(_campaign(lines, "Fresh fruit in a bowl.", 30), 1) == ["A bag of frozen vegtealbes."]
    assert _fixed(_campaign(lines, "Fresh vegetables in a bowl.", 5), 1) == ["A bag of frozen vegtealbes."]


def test_compounds_of_two_common_words_are_left_as_typed() -> None:
    """Before: "chapstick" -> "chopstick", "backsplash" -> "backslash" (real VizWiz captions)."""
    lines = ["A tube of chapstick.", "A tiled backsplash behind a sink."]
    assert _fixed(_campaign(lines, "A photo of a kitchen.", 30), 2) == lines
    index = spelling_index()
    assert is_compound("chapstick", index) and is_compound("backsplash", index) and not is_compound("tabel", index)
    # but a compound one edit from a word the campaign writes far more often is its typo
    typo = ["Someon holding a cup."]
    assert _fixed(_campaign(typo, "Someone is holding a phone.", 30), 1) == ["Someone holding a cup."]
    assert _fixed(_campaign(typo, "A photo of a kitchen.", 30), 1) == typo


def test_names_with_a_capital_inside_and_two_letter_tokens_are_left_as_typed() -> None:
    """Before: "iPods" -> "pods", "iHome" -> "home", "pk" -> "ok", "vw" -> "vow"."""
    assert has_inner_capital("iPods") and has_inner_capital("YouTube") and not has_inner_capital("Dell")
    lines = ["Two iPods on an iHome dock.", "A pk of gum beside a vw key."]
    assert _fixed(_campaign(lines, "A photo of a desk.", 30), 2) == lines
    assert _fixed(_campaign(["A bottle on teh tabel."], "A desk.", 3), 1) == ["A bottle on the table."]


def test_a_part_joined_by_a_hyphen_is_left_as_typed() -> None:
    """Before: "pre-made" -> "are-made", "tri-fold" -> "try-fold" (real VizWiz captions)."""
    lines = ["A pre-made pot pie.", "A black tri-fold wallet."]
    assert _fixed(_campaign(lines, "A photo of a desk.", 30), 2) == lines
    assert _fixed(_campaign(["A pre-made pie on teh table."], "A desk.", 30), 1) == ["A pre-made pie on the table."]


def test_a_capitalised_first_word_is_corrected_only_towards_a_word_the_campaign_uses() -> None:
    """Before: "Lenovo displays ..." -> "Lenore displays ...", "Tekapo ..." -> "Tempo ..." (VizWiz)."""
    lines = ["Lenovo displays its tablets here.", "Tekapo lake on a postcard.", "Teh cat is on a mat."]
    assert _fixed(_campaign(lines, "The dog is on the sofa.", 30), 3) == [*lines[:2], "The cat is on a mat."]


def test_a_rare_word_no_caption_uses_is_not_a_correction() -> None:
    """Before: "glycemic" -> "glyceric", "goreng" -> "goring", "acai" -> "alai" (VizWiz captions)."""
    lines = ["A low glycemic snack bar.", "A packet of goreng noodles.", "A bowl of acai berries."]
    assert _fixed(_campaign(lines, "A photo of a desk.", 30), 3) == lines
    # a rare word the campaign itself writes is a correction
    typed = _campaign(["A jar of glycerc acid."], "Glyceric acid in a jar.", 30)
    assert _fixed(typed, 1) == ["A jar of glyceric acid."]


def test_the_two_edit_rule_leaves_plain_forms_of_accented_words_alone() -> None:
    """"attaches" is two edits from "attached": valid English, so it stays however often the
    campaign writes "attached" (the new long-word rule first rewrote it on VizWiz captions)."""
    lines = ["A clip that attaches to a belt."]
    assert _fixed(_campaign(lines, "A tag attached to a bag.", 40), 1) == lines
