"""A campaign's own page in a real Chromium: the page refuses to submit while a control's constraint
fails, its verdict on every field equals the server's (qc/form_constraints.py over the rules
derived from the same controls), and what it finally submits passes the server's check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import html_question
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_page, custom_spec
from flows.custom.scaffold import scaffold
from qc.form_constraints import check_field, check_form
from tests.test_browser_flickr import mine

pytestmark = pytest.mark.browser

PAGE = """{% extends "_custom_page.html.j2" %}
{% block item %}
<img src="{{ item.image_url | safe_url }}" alt="photo"><p>{{ item.note }}</p>
<textarea name="description_{{ i }}" required minlength="20" maxlength="200"></textarea>
<input type="text" name="code_{{ i }}" pattern="[A-Z]{3}-[0-9]{2}">
<input type="number" name="people_{{ i }}" min="0" max="10" step="2" required>
<input type="radio" name="has_text_{{ i }}" value="yes" required><input type="radio" name="has_text_{{ i }}" value="no">
<input type="checkbox" name="problems_{{ i }}" value="blurry" data-min-selections="1">
<input type="checkbox" name="problems_{{ i }}" value="none">
<input type="checkbox" name="consent_{{ i }}" value="agree" required>
<select name="setting_{{ i }}" required><option value="">choose</option><option value="indoor">in</option></select>
<input type="email" name="contact_{{ i }}">
<input type="range" name="score_{{ i }}" min="1" max="7" value="4" required>
{% endblock %}"""
# (field, how it is set, value): each the page and the server judge alike.
CASES = [
    ("description_0", "fill", ""), ("description_0", "fill", "too short"),
    ("description_0", "fill", "A long enough description of the photo."),
    ("code_0", "fill", "ab-12"), ("code_0", "fill", "ABC-123"), ("code_0", "fill", "ABC-12"), ("code_0", "fill", ""),
    ("people_0", "fill", "3"), ("people_0", "fill", "12"), ("people_0", "fill", ""), ("people_0", "fill", "4"),
    ("has_text_0", "check", ""), ("has_text_0", "check", "yes"),
    ("problems_0", "check", ""), ("problems_0", "check", "none"), ("problems_0", "check", "blurry|none"),
    ("consent_0", "check", ""), ("consent_0", "check", "agree"),
    ("setting_0", "select", ""), ("setting_0", "select", "indoor"),
    ("contact_0", "fill", "not-an-address"), ("contact_0", "fill", "a@example.org"), ("contact_0", "fill", ""),
    ("score_0", "fill", "4"), ("score_0", "fill", "6"), ("score_0", "fill", "4"),  # a required slider at its start
]
VALID = {"description_0": "A long enough description of the photo.", "code_0": "ABC-12", "people_0": "4",
         "has_text_0": "yes", "problems_0": "none", "consent_0": "agree", "setting_0": "indoor", "score_0": "6"}


@pytest.fixture
def custom_hit(tmp_path: Path, client) -> tuple[str, dict]:
    scaffold("browser_task", tmp_path)
    (tmp_path / "config" / "browser_task.html.j2").write_text(PAGE, encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "browser_task.toml")
    rows = [{"item_id": "photo-1", "file_name": "", "url": "", "payload": json.dumps(
        {"image_url": "https://ivc.ischool.utexas.edu/a.jpg", "note": "<b>A red bus</b> in the rain."})}]
    html = custom_page(cfg, page_items(rows))
    hit_id = client.create_hit(Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=3600,
                               LifetimeInSeconds=86400, MaxAssignments=1, AutoApprovalDelayInSeconds=3600,
                               Question=html_question(html))["HIT"]["HITId"]
    return hit_id, custom_spec(cfg, page_items(rows))


def set_field(page, name: str, how: str, value: str) -> None:
    if how == "fill":
        page.fill(f"[name={name}]", value)
    elif how == "select":
        page.select_option(f"select[name={name}]", value)
    else:
        for box in page.query_selector_all(f"input[name={name}]"):
            box.set_checked(box.get_attribute("value") in value.split("|"))


def in_page(page, name: str) -> tuple[bool, str]:
    """(every control of the field valid, the value the form would submit for it)."""
    return tuple(page.evaluate(
        """(name) => { const form = document.getElementById("hit-form");
             const els = Array.from(form.elements).filter((e) => e.name === name);
             return [els.every((e) => e.validity.valid), new FormData(form).getAll(name).join("|")]; }""", name))


def test_page_refuses_while_a_constraint_fails_and_agrees_with_the_server(sim, client, page, custom_hit) -> None:
    hit_id, spec = custom_hit
    rules = {f["name"]: f for f in spec["fields"]}
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=ACUSTOM1")
    page.wait_for_selector("#item-0")
    assert "<b>A red bus</b>" in page.inner_text("#item-0")  # item text shows as text
    page.click("#submit-btn")
    assert page.url.startswith(f"{sim.url}/mturk/preview") and page.inner_text("#form-error")  # refused
    assert not client.list_assignments_for_hit(HITId=hit_id)["Assignments"]
    for name, how, value in CASES:
        set_field(page, name, how, value)
        valid, submitted = in_page(page, name)
        assert valid == (check_field(rules[name], submitted) == ""), (name, value, submitted)
    for name, value in VALID.items():
        set_field(page, name, "fill" if name in ("description_0", "code_0", "people_0", "score_0") else
                  "select" if name == "setting_0" else "check", value)
    set_field(page, "problems_0", "check", "")
    page.click("#submit-btn")
    assert page.url.startswith(f"{sim.url}/mturk/preview")  # one checkbox group still short of its minimum
    set_field(page, "problems_0", "check", "none")
    page.click("#submit-btn")
    page.wait_for_load_state()
    answer = mine(client, hit_id, "ACUSTOM1")
    assert check_form(spec, answer) == [] and answer["image_id_0"] == "photo-1"
    assert answer["description_0"] == VALID["description_0"] and answer["people_0"] == "4"


WHEN_PAGE = """{% extends "_custom_page.html.j2" %}
{% block item %}
<p>{{ item.note }}</p>
<input type="radio" name="match_{{ i }}" value="yes" required><input type="radio" name="match_{{ i }}" value="no">
<textarea name="why_{{ i }}" data-required-when="match=no"></textarea>
{% endblock %}"""


def test_a_box_required_when_another_answer_is_given_is_required_there_in_the_browser_and_on_the_server(
        sim, client, page, tmp_path: Path) -> None:
    scaffold("when_task", tmp_path)
    (tmp_path / "config" / "when_task.html.j2").write_text(WHEN_PAGE, encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "when_task.toml")
    rows = [{"item_id": f"s-{k}", "file_name": "", "url": "", "payload": json.dumps({"note": f"Summary {k}."})}
            for k in (1, 2)]
    hit_id = client.create_hit(Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=3600,
                               LifetimeInSeconds=86400, MaxAssignments=1, AutoApprovalDelayInSeconds=3600,
                               Question=html_question(custom_page(cfg, page_items(rows))))["HIT"]["HITId"]
    spec = custom_spec(cfg, page_items(rows))
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=AWHEN1")
    page.wait_for_selector("#item-1")
    required = "(n) => document.querySelector(`[name=${n}]`).required"
    set_field(page, "match_0", "check", "yes")
    set_field(page, "match_1", "check", "no")  # the second item's own answer, not the first's
    assert [page.evaluate(required, "why_0"), page.evaluate(required, "why_1")] == [False, True]
    page.click("#submit-btn")
    assert page.url.startswith(f"{sim.url}/mturk/preview")  # refused: item 2 said no and left why blank
    assert check_form(spec, {"match_0": "yes", "why_0": "", "match_1": "no", "why_1": ""}) != []  # so does the server
    page.fill("[name=why_1]", "It says the meeting moved to Friday; the article says Monday.")
    page.click("#submit-btn")
    page.wait_for_load_state()
    answer = mine(client, hit_id, "AWHEN1")
    assert check_form(spec, answer) == [] and answer["match_1"] == "no" and answer["why_0"] == ""
