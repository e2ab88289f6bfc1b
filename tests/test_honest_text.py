"""Honest simulated workers are never blocked by their own words (issue 67, points 3-4): every honest
profile works five page shapes (a caption beside a note, a rating with a reason under a caption two
items share, a sentiment with an optional comment, a comment on a word, a summary at a length asked)
through the simulator and the scaffold's QC and policy, and none is blocked; what they write is of the
kind the box asks, drawn from the item, and no text of theirs stands on two items unless it quotes them."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import pytest

from flows.sim.people.crowd_model import HONEST_PROFILES, normalise
from tests.honest_pages import PAGES, SHAPES, run_shape

COUNTS = {p: 2 for p in HONEST_PROFILES}
TEXT_FIELDS = {"caption": "caption", "rating": "why", "sentiment": "comment", "word": "word_note",
               "summary": "summary"}


def items(shape: str) -> dict[str, dict[str, str]]:
    with (PAGES / f"{shape}_items.csv").open(encoding="utf-8") as f:
        return {r["item_id"]: r for r in csv.DictReader(f)}


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def texts_of(run: dict[str, Any], field: str) -> list[tuple[str, str, str]]:
    return [(w, i, v) for w, i, f, v in run["answers"] if f == field and v]


@pytest.mark.parametrize("shape", SHAPES)
def test_every_honest_profile_works_a_page_shape_unblocked(tmp_path: Path, shape: str) -> None:
    run = run_shape(tmp_path, shape, COUNTS)
    assert run["code"] == 0
    profiles = {v["profile"] for v in run["workers"].values()}
    assert len(profiles) >= 4, profiles  # most honest profiles took work on every shape
    blocked = {w: v for w, v in run["workers"].items() if v["blocked"]}
    assert not blocked
    written = texts_of(run, TEXT_FIELDS[shape])
    assert written
    on_items: dict[str, set[str]] = {}
    for _w, item, text in written:
        on_items.setdefault(normalise(text), set()).add(item)
    rows = items(shape)
    for text, where in on_items.items():  # one text on two items only where those items show the same
        if len(where) > 1:
            shown = {normalise(" ".join(v for k, v in rows[i].items() if k not in ("item_id", "url"))) for i in where}
            assert len(shown) == 1, (text, where)
    check_kind(shape, written, rows)


def check_kind(shape: str, written: list[tuple[str, str, str]], rows: dict[str, dict[str, str]]) -> None:
    """The text is of the kind its box asks, and drawn from its own item."""
    for _w, item, text in written:
        row, said = rows[item], set(words(text))
        own = set(words(" ".join(v for k, v in row.items() if k not in ("item_id", "url"))))
        if shape == "word":
            assert row["word"] in text.lower() or any(w.startswith(row["word"]) for w in said), text
        if shape == "summary":
            source = words(row["passage"])
            assert len(words(text)) < len(source) and len(text) >= 100, text  # shorter, at the length asked
            assert words(text) != source[:len(words(text))]  # never the text's first words
            mine = words(text)
            assert sum(w in set(source) for w in mine) >= 0.7 * len(mine), text  # the passage's words, not filler
            runs = [tuple(mine[k:k + 4]) for k in range(len(mine) - 3)]
            assert len(runs) == len(set(runs)), text  # nothing padded out by repeating itself
        # at least two of the item's own words (typo-prone workers misspell some)
        assert len(said & own) >= 2, (item, text)
