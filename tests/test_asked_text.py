"""An honest simulated worker writes about the item a page shows, within the limits it states: a test question
gets a few words (never the question back, never a caption of a photo the page does not show), a summary is in
new words at about the length asked, a "what is missing" box does not restate the description, a reason names
the item's words, a title is a few of the paragraph's words. The pages are ours, in the shapes of
third-party templates (``tests/pages/asked/``), imported as a user would (``hitflow new --from``)."""

from __future__ import annotations

import csv
import random
import re
from pathlib import Path

import pytest

from flows.campaigns.task_kinds import load_campaign
from flows.core.pages.mturk_forms import form_fields
from flows.custom.custom_task import custom_page, read_custom_items
from flows.custom.scaffold_import import PageNotReady, scaffold_from
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.crowd_model import new_worker

PAGES = Path(__file__).resolve().parent / "pages" / "asked"
PHOTO = re.compile(r"\b(photo|picture|image|box|boat|outdoors|background)\b", re.I)


def filled(tmp_path: Path, shape: str, workers: int = 4) -> list[tuple[dict[str, str], dict[str, str]]]:
    """(item row, a diligent worker's answers) for every item of page ``shape`` and ``workers`` workers."""
    scaffold_from(shape, PAGES / f"{shape}.html", tmp_path, items=PAGES / f"{shape}_items.csv")
    cfg = load_campaign(tmp_path / "config" / f"{shape}.toml")
    out = []
    for k, row in enumerate(read_custom_items(cfg)):
        html = custom_page(cfg, [{**row, "image_id": row["item_id"]}])
        for s in range(workers):
            worker = new_worker("diligent", {}, random.Random(s))
            values = fill_unhinted(worker, form_fields(html), html, {}, random.Random(100 * k + s))
            out.append((row, {n.rsplit("_", 1)[0]: v for n, v in values.items() if n.endswith("_0")}))
    return out


def longest_copied_run(text: str, source: str) -> int:
    a, b = re.findall(r"[a-z']+", text.lower()), re.findall(r"[a-z']+", source.lower())
    runs = {" ".join(b[i:i + n]) for n in range(1, 30) for i in range(len(b) - n + 1)}
    return max((n for n in range(1, 30) for i in range(len(a) - n + 1) if " ".join(a[i:i + n]) in runs), default=0)


@pytest.mark.parametrize("shape", ["quiz", "noimage"])
def test_a_question_gets_a_few_words_never_its_own_words_back(tmp_path: Path, shape: str) -> None:
    field = "answer" if shape == "quiz" else "reply"
    for row, answers in filled(tmp_path, shape):
        text, question = answers[field], row["question"]
        # one of its words, at most (an item that is a question is all the words there are)
        assert text and (len(text.split()) == 1 or text.lower() not in question.lower()) and "?" not in text, text
        assert len(text.split()) <= 4 and not PHOTO.search(text), (question, text)  # no caption of an unshown photo


def test_a_summary_is_in_new_words_at_the_length_asked(tmp_path: Path) -> None:
    for row, answers in filled(tmp_path, "summary"):
        text = answers["summary"]
        assert not text.startswith("Summary:"), text
        assert longest_copied_run(text, row["passage"]) <= 18, text  # was: whole sentences, 46 words and more
        assert 15 <= len(text.split()) <= 50, (len(text.split()), text)  # "about 30 words"


def test_a_missing_detail_is_named_not_the_description_restated(tmp_path: Path) -> None:
    for row, answers in filled(tmp_path, "missing"):
        text = answers["missing"]
        assert text and "alt text" not in text.lower(), text
        assert longest_copied_run(text, row["alt_text"]) <= 2, (row["alt_text"], text)


def test_a_reason_names_the_items_words(tmp_path: Path) -> None:
    for row, answers in filled(tmp_path, "rating"):
        text = answers["why"]
        named = set(re.findall(r"[a-z]{4,}", text.lower())) & set(re.findall(r"[a-z]{4,}", row["review"].lower()))
        assert named and not PHOTO.search(text), text


def test_a_clue_is_a_reason_and_every_box_keeps_its_stated_most(tmp_path: Path) -> None:
    for row, answers in filled(tmp_path, "clue"):
        clue, notes = answers["clue"], answers["notes"]
        assert 3 <= len(clue.split()) <= 12 and longest_copied_run(clue, row["notice"]) <= 5, clue  # a phrase quoted
        assert 1 <= len(notes.split()) <= 6, notes


def test_a_question_asked_in_a_legend_above_a_hint_is_answered_with_a_question(tmp_path: Path) -> None:
    for row, answers in filled(tmp_path, "seller"):
        text = answers["to_seller"]
        assert text.rstrip().endswith("?") and 4 <= len(text.split()) <= 20, text
        assert longest_copied_run(text, row["ad"]) < len(row["ad"].split()) // 2, text  # not the ad pasted back


def test_a_page_whose_fields_live_in_a_browser_template_is_not_called_ready(tmp_path: Path, capsys) -> None:
    from flows.cli.main import main

    code = main(["new", "must", "--dir", str(tmp_path), "--from", str(PAGES / "mustache.html")])
    out, err = capsys.readouterr()
    assert code == 1 and "next: hitflow run" not in out + err
    assert "mustache.html:6: field 'politeness' is inside a <script type=\"text/html\">" in err
    with pytest.raises(PageNotReady):
        scaffold_from("must2", PAGES / "mustache.html", tmp_path)


def test_the_fixtures_items_are_ours_and_small() -> None:
    for items in PAGES.glob("*_items.csv"):
        with items.open(encoding="utf-8", newline="") as f:
            assert 2 <= len(list(csv.DictReader(f))) <= 8, items


def test_a_give_back_names_the_workers_behaviour_when_it_is_the_workers(capsys) -> None:
    from flows.sim.pages.browser_check import say_refused

    say_refused("HITs of type T1", "rule_breaker")
    breaker = capsys.readouterr().err
    assert "rule_breaker" in breaker and "left required fields empty" in breaker
    assert "open the page in Chromium" not in breaker  # that advice is for a page defect
    say_refused("HITs of type T1", "speeder")
    assert not capsys.readouterr().err  # said once for the page's bad workers
    say_refused("HITs of type T1", "diligent")
    honest = capsys.readouterr().err
    assert "open the page in Chromium and submit it as a person would" in honest and "T1" in honest
    say_refused("HITs of type T1", "diligent")
    assert not capsys.readouterr().err


def test_a_key_log_the_pages_script_writes_into_a_hidden_box_is_no_typed_text(tmp_path: Path) -> None:
    """The page hides its key-log box by its own style and its script writes it: nobody types there, so
    the text rules (untyped_text among them) never judge it; the summary beside it stays free text."""
    from flows.custom.custom_task import custom_spec, field_kinds

    scaffold_from("keylog", PAGES / "keylog.html", tmp_path, items=PAGES / "keylog_items.csv")
    cfg = load_campaign(tmp_path / "config" / "keylog.toml")
    row = read_custom_items(cfg)[0]
    kinds = field_kinds(custom_spec(cfg, [{**row, "image_id": row["item_id"]}]))
    assert kinds["summary"] == "text" and kinds["keylog"] != "text", kinds
    assert "[qc.fields.keylog]" not in (tmp_path / "config" / "keylog.toml").read_text(encoding="utf-8")


def test_a_title_is_short_and_names_the_paragraph_not_the_instructions(tmp_path: Path) -> None:
    for row, answers in filled(tmp_path, "title"):
        text = answers["title"]
        assert 2 <= len(text.split()) <= 8 and "paragraph" not in text.lower(), text
        said = re.findall(r"[a-z']+", row["paragraph"].lower())
        # its words, as a title puts them
        assert set(re.findall(r"[a-z']+", text.lower())) <= {*said, "to", "and"}, text
        assert not text.endswith(".") and text.split()[-1].lower() not in ("the", "a", "to", "of", "and"), text


def test_a_form_reading_worker_types_nothing_into_a_box_the_page_hides(tmp_path: Path) -> None:
    for _, answers in filled(tmp_path, "keylog", workers=2):
        assert answers["summary"] and not answers.get("keylog"), answers
