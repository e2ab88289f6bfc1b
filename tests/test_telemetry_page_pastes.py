"""A logged paste is from the page when it matches a copy on the page after whitespace is collapsed,
or is part of the page's own text (docs/telemetry.md, "Raw event logs")."""

from __future__ import annotations

import json

from qc.telemetry import event_log_record
from tests.keylog_batch import passage

T = "2026-03-02T09:00:{:02d}+00:00"


def pasted(log: list[list[object]], page_text: str = "") -> dict:
    field = event_log_record(json.dumps(log), "summary", page_text)["f"]["summary"]
    return {k: field[k] for k in ("paste_n", "paste_x", "paste_p")} | {"where": [p[2] for p in field["paste"]]}


def test_a_copied_passage_pasted_with_other_whitespace_is_from_the_page() -> None:
    text = passage(3)[:735]
    assert len(text) == 735 and text == text.strip()
    pasting = text + "\n"  # the copy kept 735 characters, the paste brought 736
    got = pasted([["focus", "", T.format(0)], ["copy", text], ["paste", pasting, T.format(5)]])
    assert got == {"paste_n": 1, "paste_x": 0, "paste_p": 736, "where": ["p"]}
    inner = text.replace(". ", ".\n", 3)  # line breaks inside the selection differ too
    assert pasted([["copy", inner, T.format(0)], ["paste", text, T.format(3)]])["where"] == ["p"]


def test_a_paste_of_the_pages_own_text_without_a_copy_is_from_the_page() -> None:
    shown = passage(2)
    piece = shown.split(". ")[1] + "."
    log = [["focus", "", T.format(0)], ["paste", f"  {piece}\n", T.format(4)]]
    assert pasted(log, page_text=f"art-2\n{shown}")["where"] == ["p"]
    assert pasted(log)["where"] == ["x"]  # the same paste, the page's text unknown: from outside


def test_text_that_is_not_the_pages_stays_an_outside_paste() -> None:
    shown = passage(3)
    piece = shown.split(". ")[0]
    for outside in (piece + " and then some words of my assistant.", "A different passage altogether.",
                    piece.replace(" ", "", 1)):  # not the same words: a space missing joins two of them
        got = pasted([["copy", piece, T.format(0)], ["paste", outside, T.format(2)]], page_text=shown)
        assert got["where"] == ["x"] and got["paste_x"] == len(outside), outside
