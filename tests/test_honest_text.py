"""Honest simulated workers are never blocked by their own words: every honest
profile works five page shapes (a caption beside a note, a rating with a reason under a caption two
items share, a sentiment with an optional comment, a comment on a word, a summary at a length asked)
through the simulator and the scaffold's QC and policy, and none is blocked; what they write is at the
length the box asks, drawn from the item, and no text of theirs stands on two items unless it quotes them."""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
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


@pytest.fixture(scope="module")
def shape_run(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, Any]]:
    """Each shape's campaign on COUNTS, run once for the module: the shape's test below reads it, and the rating
    one is the first of test_one_seed_one_dataset's two runs (each test ran its own, ~1 s of CPU a run)."""
    runs: dict[str, dict[str, Any]] = {}

    def run(shape: str) -> dict[str, Any]:
        if shape not in runs:
            runs[shape] = run_shape(tmp_path_factory.mktemp(shape), shape, COUNTS)
        return runs[shape]
    return run


@pytest.mark.parametrize("shape", SHAPES)
def test_every_honest_profile_works_a_page_shape_unblocked(shape_run: Callable[[str], dict[str, Any]],
                                                           shape: str) -> None:
    run = shape_run(shape)
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
    """The text is at the length its box asks, and drawn from its own item."""
    for _w, item, text in written:
        row, said = rows[item], set(words(text))
        own = set(words(" ".join(v for k, v in row.items() if k not in ("item_id", "url"))))
        if shape == "summary":
            source = words(row["passage"])
            assert len(words(text)) < len(source) and len(text) >= 100, text  # shorter, and the box's minimum
            assert 15 <= len(text.split()) <= 40, text  # "about 25 words": whole sentences, so roughly
            assert words(text) != source[:len(words(text))]  # never the text's first words
            mine = words(text)
            runs = [tuple(mine[k:k + 4]) for k in range(len(mine) - 3)]
            assert len(runs) == len(set(runs)), text  # nothing padded out by repeating itself
        # at least two of the item's own words (typo-prone workers misspell some)
        assert len(said & own) >= 2, (item, text)


AUDIO = """{% extends "_custom_page.html.j2" %}
{% block instructions %}<p>Listen to each clip and write down what is said.</p>{% endblock %}
{% block item %}<audio controls src="{{ item.url }}"></audio>
<label>What is said in the clip? <textarea name="heard_{{ i }}" required></textarea></label>{% endblock %}
"""


def test_a_field_no_one_can_read_is_said_content_blind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Clips the simulator cannot hear: its text there is of its own making, and the dry run and the report
    say so for that field."""
    from flows.cli.main import main
    from tests.honest_pages import crowd_file, shape_config

    config = shape_config(tmp_path, "caption")
    (tmp_path / "config" / "caption.html.j2").write_text(AUDIO, encoding="utf-8")
    assert main(["run", str(config), "--dry-run"]) == 0
    said = capsys.readouterr().out
    assert "simulated answers for heard are content-blind on 4 of the first page's 4 items" in said
    assert main(["run", str(config), "--no-prefect", "--db", str(tmp_path / "a.db"), "--out", str(tmp_path / "runs"),
                 "--crowd", str(crowd_file(tmp_path, {"diligent": 4}))]) == 0
    summary = (tmp_path / "runs" / "caption" / "summary.txt").read_text(encoding="utf-8")
    assert "simulated text for heard is content-blind: 12 of its items show no text of their own" in summary


def test_one_seed_one_dataset(tmp_path: Path, shape_run: Callable[[str], dict[str, Any]]) -> None:
    """The new text kinds draw only from the seeded schedule: the same run twice writes the same answers."""
    first = shape_run("rating")  # the module's run, in a folder of its own
    second = run_shape(tmp_path / "b", "rating", COUNTS)
    assert first["answers"] and sorted(first["answers"]) == sorted(second["answers"])


@pytest.mark.parametrize("shape", ["rating", "word"])
def test_items_shown_twice_are_quoted_not_templated(tmp_path: Path, shape: str) -> None:
    """An items file whose rows repeat under other ids: honest workers quote the same text on both, and no
    batch is held for it (on main at 1e84480 shared_template would have blocked most of the batch)."""
    run = run_shape(tmp_path, shape, COUNTS, copies=4, per_item=4)
    assert run["code"] == 0 and not run["held"], run["held"]
    assert not [w for w, v in run["workers"].items() if v["blocked"]]
