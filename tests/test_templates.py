"""Every task template renders from its sample context; hostile text stays inert."""

from __future__ import annotations

import re

import pytest

from flows.core.errors import ConfigError
from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.templates import render, safe_url, sample_context, task_templates
from flows.sim.mturk.market import page_rules

HOSTILE = ['<script>alert("x")</script>', '<img src=x onerror="alert(1)">', "\"'><b>bold</b>", "x" * 3000]


@pytest.mark.parametrize("task", task_templates())
def test_each_template_renders_its_sample(task: str) -> None:
    html = render(f"{task}.html.j2", sample_context(task))
    assert html.startswith("<!DOCTYPE html>") and "</html>" in html
    assert 'id="submit-rules"' in html


def test_caption_page_carries_the_seed_design() -> None:
    ctx = sample_context("caption")
    html = render("caption.html.j2", ctx)
    for phrase in ("at least 8 words", "important to a person who is blind", "DO NOT describe the image quality",
                   "summarize what it says", "DO NOT speculate", "Is there text in the image?",
                   "ASSIGNMENT_ID_NOT_AVAILABLE"):
        assert phrase in html
    names = {f.name for f in form_fields(html)}
    for i in range(len(ctx["items"])):
        assert {f"caption_{i}", f"text_present_{i}", f"image_id_{i}", f"start_ms_{i}", f"end_ms_{i}"} <= names


def test_page_declares_the_config_rules() -> None:
    ctx = sample_context("caption")
    ctx["rules"] = {**ctx["rules"], "min_words": 11, "max_chars": 90, "banned_prefixes": ["Look at"]}
    rules = page_rules(render("caption.html.j2", ctx))
    assert (rules.min_words, rules.max_chars, rules.banned_prefixes) == (11, 90, ("Look at",))


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_item_fields_render_as_text(text: str) -> None:
    ctx = sample_context("caption")
    ctx["items"][0] = {"image_id": text, "file_name": text, "url": "javascript:alert(1)"}
    html = render("caption.html.j2", ctx)
    assert "<script>alert" not in html and "onerror=\"alert" not in html and "<b>bold" not in html
    assert "javascript:" not in html


def test_rules_json_cannot_close_its_script_tag() -> None:
    ctx = sample_context("caption")
    ctx["rules"] = {**ctx["rules"], "canned_text": "</script><script>alert(1)</script>"}
    html = render("caption.html.j2", ctx)
    assert len(re.findall(r"</script>", html)) == html.count("<script")


def test_missing_context_value_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="lacks a value"):
        render("caption.html.j2", {"title": "x"})


@pytest.mark.parametrize(("url", "kept"), [("https://a/b.jpg", True), ("http://a/b.jpg", True), ("/img/b.jpg", True),
                                           ("javascript:alert(1)", False), ("data:text/html,x", False),
                                           ("//evil/b.jpg", False), ("http://[hj:]/a.jpg", False), ("//[x]", False),
                                           ("https://[::1]/b.jpg", True)])
def test_safe_url(url: str, kept: bool) -> None:
    assert (safe_url(url) == url) == kept


def test_description_page_carries_the_seed_guidelines() -> None:
    html = render("describe.html.j2", sample_context("describe"))
    for phrase in ("one sentence", "single sentence under 100 characters", "pay attention to grammar and spelling",
                   "leaving nothing blank", "The dog is wearing a red sombrero.", "This is speculation.",
                   "This could describe any image of any dog."):
        assert phrase in html
    names = {f.name for f in form_fields(html)}
    assert {f"caption_{i}" for i in range(5)} <= names and not any(n.startswith("text_present") for n in names)
    assert page_rules(html).max_chars == 100


def test_qualification_page_asks_every_key_item_once() -> None:
    from flows.core.inputs.answer_key import load_key

    ctx = sample_context("qualification")
    html = render("qualification.html.j2", ctx)
    fields = {f.name: f for f in form_fields(html)}
    key = load_key()
    asked = [fields[f"image_id_{i}"].value for i in range(len(ctx["items"]))]
    assert asked == key["item_id"].tolist()
    for i, section in enumerate(key["section"]):
        expected = ["1", "2"] if section == "judging" else ["correct", "incorrect"]
        assert fields[f"answer_{i}"].options == expected
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
    assert "javascript:" not in html
    for phrase in ("spelling, grammar and judging image descriptions", "Teh quick brown dog",
                   "The train pulls away of the station", "should not make unfounded assumptions"):
        assert phrase in html
