"""The simulated crowd answers the item, not the page: honest text is about the
item's own text, never the page's instructions or headings, never a copy of another field's answer;
optional fields are left empty at realistic rates; honest answers stay within the page's rules."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_page, custom_spec
from flows.custom.scaffold import scaffold
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.people.crowd_model import PROFILE_DEFAULTS, Worker
from flows.sim.people.item_answers import copies, short_phrase
from qc.form_constraints import check_form

INSTRUCTIONS = "Look at each photo carefully. Describe what it shows in your own words and answer the questions."
PAGE = """{% extends "_custom_page.html.j2" %}
{% block instructions %}<p>""" + INSTRUCTIONS + """</p>{% endblock %}
{% block item %}
<h2>Photo {{ i + 1 }}: what do you see?</h2>
<img src="{{ item.image_url | safe_url }}" alt="photo">
<p class="note">{{ item.note }}</p>
<input type="text" name="title_{{ i }}" required maxlength="60">
<textarea name="description_{{ i }}" required minlength="20" maxlength="300"></textarea>
<textarea name="comment_{{ i }}" maxlength="200"></textarea>
<label><input type="radio" name="mood_{{ i }}" value="calm"> calm</label>
<label><input type="radio" name="mood_{{ i }}" value="busy"> busy</label>
{% endblock %}"""
NOTES = ["A red bicycle leaning against a garden fence in the morning sun.",
         "A kitchen table with two mugs of coffee, a newspaper and a bowl of apples.",
         "A crowded train platform at night with a yellow train arriving."]
HONEST = ("diligent", "typo_prone")


def one_item_pages(tmp_path: Path) -> tuple[list[str], list[dict]]:
    """Pages of ONE item each (images_per_hit = 1), where the instructions sit in the item's part."""
    scaffold("p5", tmp_path)
    (tmp_path / "config" / "p5.html.j2").write_text(PAGE, encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "p5.toml")
    pages, specs = [], []
    for k, note in enumerate(NOTES):
        rows = [{"item_id": f"photo-{k}", "file_name": "", "url": "", "payload": json.dumps(
            {"image_url": f"https://example.org/{k}.jpg", "note": note})}]
        pages.append(custom_page(cfg, page_items(rows)))
        specs.append(custom_spec(cfg, page_items(rows)))
    return pages, specs


def answers(html: str, profile: str, n: int) -> list[dict[str, str]]:
    out = []
    for k in range(n):
        w = Worker(f"W{profile}{k}", profile, dict(PROFILE_DEFAULTS[profile]), 1000, 99, skill=0.9)
        out.append(fill_form(w, form_fields(html), page_rules(html), 0, 100, {}, random.Random(k), html=html))
    return out


@pytest.fixture(scope="module")
def filled(tmp_path_factory) -> list[tuple[str, dict, list[dict[str, str]]]]:
    pages, specs = one_item_pages(tmp_path_factory.mktemp("p5"))
    return [(note, spec, answers(html, profile, 40)) for note, html, spec in zip(NOTES, pages, specs, strict=True)
            for profile in HONEST]


def words(text: str) -> set[str]:
    return {w.strip(".,").lower() for w in text.split() if len(w) > 3}


def test_honest_text_is_about_the_item_never_the_instructions_or_headings(filled) -> None:
    for note, _, given in filled:
        for a in given:
            for name in ("title_0", "description_0"):
                text = a[name]
                assert words(text) & words(note), (name, text, note)  # about the item
                assert not words(text) & {"carefully", "questions", "describe", "words"}, text  # not the page


def test_no_field_copies_another_fields_answer(filled) -> None:
    for _, _, given in filled:
        for a in given:
            texts = [t for t in (a["title_0"], a["description_0"], a.get("comment_0", "")) if t]
            assert not any(copies(t, texts[:k] + texts[k + 1:]) for k, t in enumerate(texts)), texts
            assert len(a["title_0"]) <= 60 and not a["description_0"].startswith(a["title_0"])


def test_optional_fields_are_often_left_empty_and_required_ones_never(filled) -> None:
    given = [a for _, _, many in filled for a in many]
    empty_comment = sum(a.get("comment_0", "") == "" for a in given) / len(given)
    no_mood = sum("mood_0" not in a for a in given) / len(given)
    # honest profiles answer an optional one-click choice at >= 95% (CHOICE_SKIP)
    assert 0.5 <= empty_comment < 1.0 and 0.0 < no_mood <= 0.05, (empty_comment, no_mood)
    assert all(a["title_0"] and a["description_0"] for a in given)


def test_honest_answers_stay_within_the_pages_rules(filled) -> None:
    for _, spec, given in filled:
        assert all(check_form(spec, a) == [] for a in given)


def test_a_title_is_a_phrase_of_what_the_item_shows() -> None:
    assert short_phrase("In the photo, a red bicycle leaning against a garden fence in the morning sun.", 60) == \
        "Red bicycle leaning against a garden fence"
    assert len(short_phrase("A kitchen table with two mugs of coffee", 12)) <= 12
