"""hitflow's stand-in for MTurk's crowd-entity-annotation in a real Chromium: a person picks a label,
selects words of the text and presses the label button; the page posts the element's documented
output, ``{"entities": [{"label", "startOffset", "endOffset"}]}``, offsets into the element's text, which
passes the page's own rules when read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import html_question
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_page, custom_spec
from flows.custom.scaffold import scaffold
from qc.form_constraints import check_form
from tests.test_browser_flickr import mine

pytestmark = pytest.mark.browser
# the labels as an item column holding JSON, passed through to_json as Ground Truth pages do: a JSON string
LABELS = '[{"label": "person", "fullDisplayName": "Person"}, {"label": "place", "fullDisplayName": "Place"}]'
TEXT = "Nadia Petrova opened a bakery in Porto with help from Harbour Bank."
PAGE = """{% extends "_crowd_page.html.j2" %}{% block item %}
<crowd-entity-annotation name="names_{{ i }}" header="Mark every name"
  labels="{{ item.labels | tojson | forceescape }}"
  text="{{ item.sentence }}"></crowd-entity-annotation>
{% endblock %}"""


def select(page, words: str) -> None:
    """Select these words of the shown text, as a person's drag across them does."""
    page.eval_on_selector(".crowd-entity-text", """(p, words) => {
        const walk = document.createTreeWalker(p, NodeFilter.SHOW_TEXT), at = p.textContent.indexOf(words);
        const r = document.createRange();
        let seen = 0, n;
        while ((n = walk.nextNode())) {  /* the words may run across a mark and the text after it */
            const len = n.textContent.length;
            if (seen <= at && at <= seen + len) { r.setStart(n, at - seen); }
            if (seen <= at + words.length && at + words.length <= seen + len) { r.setEnd(n, at + words.length - seen); }
            seen += len;
        }
        getSelection().removeAllRanges(); getSelection().addRange(r); }""", words)


def test_a_person_labels_selected_words_and_the_page_posts_the_documented_shape(tmp_path: Path, sim, client,
                                                                                page) -> None:
    scaffold("ner", tmp_path)
    (tmp_path / "config" / "ner.html.j2").write_text(PAGE, encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "ner.toml")
    rows = [{"item_id": "s1", "file_name": "", "url": "", "payload": json.dumps({"sentence": TEXT, "labels": LABELS})}]
    hit_id = client.create_hit(Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=3600,
                               LifetimeInSeconds=86400, MaxAssignments=1, AutoApprovalDelayInSeconds=3600,
                               Question=html_question(custom_page(cfg, page_items(rows))))["HIT"]["HITId"]
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=AENTITY1")
    page.wait_for_selector("crowd-entity-annotation .crowd-entity-text")
    assert page.inner_text(".crowd-entity-text") == TEXT
    assert page.locator("crowd-entity-annotation option").all_inner_texts() == ["Person", "Place"]
    label = page.locator("crowd-entity-annotation button", has_text="Label the selection")
    page.select_option("crowd-entity-annotation select", "place")
    page.locator(".crowd-entity-text").scroll_into_view_if_needed()
    box = page.locator(".crowd-entity-text").bounding_box()
    page.mouse.dblclick(box["x"] + 3, box["y"] + box["height"] / 2)  # a real double-click: "Nadia", mislabelled
    label.click()
    page.locator("ul.crowd-entities button", has_text="Remove").first.click()  # ... and taken back
    page.select_option("crowd-entity-annotation select", "person")
    select(page, "Nadia Petrova ")  # a space after a selection is not part of the name
    label.click()
    select(page, "Petrova opened")  # overlaps a labelled name: refused, as the element does
    label.click()
    page.select_option("crowd-entity-annotation select", "place")
    select(page, "Porto")  # the text is now split around the first mark; offsets still count the whole text
    label.click()
    assert page.locator(".crowd-entity-text mark").count() == 2
    page.click("#submit-btn")
    page.wait_for_load_state()
    answer = mine(client, hit_id, "AENTITY1")
    spans = json.loads(answer["names_0"])["entities"]
    assert [(TEXT[e["startOffset"]:e["endOffset"]], e["label"]) for e in spans] == \
        [("Nadia Petrova", "person"), ("Porto", "place")]
    assert check_form(custom_spec(cfg, page_items(rows)), answer) == []


def test_a_browser_driven_simulated_worker_marks_its_spans_through_the_stand_in(tmp_path: Path, browser) -> None:
    """The simulated crowd's answer for the element (flows/sim/people/entity_spans.py), worked into the page by
    selecting and labelling as a person does, is what the page posts; the stand-in's own buttons
    ("Remove") are not among the page buttons a browser worker presses at random."""
    import random

    from flows.sim.pages.browser_worker import work_page
    from flows.sim.people.entity_spans import entities

    scaffold("ner", tmp_path)
    (tmp_path / "config" / "ner.html.j2").write_text(PAGE, encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "ner.toml")
    rows = [{"item_id": "s1", "file_name": "", "url": "", "payload": json.dumps({"sentence": TEXT, "labels": LABELS})}]
    html = custom_page(cfg, page_items(rows))
    intent = entities(TEXT, ["person", "place"], "diligent", True, random.Random(3))
    assert len(json.loads(intent)["entities"]) == 2  # Nadia Petrova, Porto (no label means a company)
    for seed in range(3):
        posted = work_page(browser, html, {"assignmentId": "A1"}, {"names_0": intent}, random.Random(seed))
        assert posted is not None
        assert json.loads(posted["taskAnswers"])[0]["names_0"] == json.loads(intent)
