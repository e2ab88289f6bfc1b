"""Boxes whose options the item names ("Who offered to help?" over the people at a meeting): an honest simulated
worker ticks the ones the item's sentences say the question of, not every name shown, and never a box saying
"nobody" with a name."""

from __future__ import annotations

import json
import random
from pathlib import Path

from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_page
from flows.custom.scaffold import scaffold
from flows.sim.pages.choice_answers import exclusive
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.people.content_choice import named_in_answer
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker

PAGE = """{% extends "_custom_page.html.j2" %}
{% block item %}<p>{{ item.notes }}</p><p>Attending: {{ item.a }}, {{ item.b }}, {{ item.c }}</p>
<h4>Which people volunteered for a job? Tick every one that did.</h4>
<label><input type="checkbox" name="helpers_{{ i }}" value="{{ item.a }}"> {{ item.a }}</label>
<label><input type="checkbox" name="helpers_{{ i }}" value="{{ item.b }}"> {{ item.b }}</label>
<label><input type="checkbox" name="helpers_{{ i }}" value="{{ item.c }}"> {{ item.c }}</label>
<label><input type="checkbox" name="helpers_{{ i }}" value="none"> No one volunteered</label>{% endblock %}
"""
ROWS = [("w1", "The hall roof needs sweeping before winter. Ivo will hire a ladder on Saturday. Mina said she could "
         "not help this month. Petra offered to bake for the fundraiser.", "Ivo Brandt", "Mina Sol", "Petra Lund"),
        ("w2", "The committee talked about the noisy boiler for an hour. Nothing was decided and the matter waits "
         "for the landlord's reply.", "Omar Haddad", "Lea Fink", "Ravi Menon")]
COLUMNS = ["notes", "a", "b", "c"]
GOLD = [{"Ivo Brandt", "Petra Lund"}, {"none"}]


def test_the_item_says_who_and_an_honest_worker_follows_it(tmp_path: Path) -> None:
    scaffold("helpers", tmp_path)
    (tmp_path / "config" / "helpers.html.j2").write_text(PAGE, encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "helpers.toml")
    rows = [{"item_id": k, "file_name": "", "url": "", "payload": json.dumps(dict(zip(COLUMNS, r, strict=True)))}
            for k, *r in ROWS]
    html = custom_page(cfg, page_items(rows))
    right = given = 0
    for n, profile in enumerate(HONEST_PROFILES * 4):
        worker = new_worker(profile, {}, random.Random(n))
        said = fill_form(worker, form_fields(html), page_rules(html), 0, 300, {}, random.Random(n), html=html)
        for k, gold in enumerate(GOLD):
            ticked = {t for t in said.get(f"helpers_{k}", "").split("|") if t}
            assert not ("none" in ticked and len(ticked) > 1), (profile, ticked)
            right, given = right + (ticked == gold), given + 1
    assert right >= 0.5 * given, (right, given)  # a slip a box aside, the item's own answer (all names: none)


def test_the_question_must_ask_something_of_the_names_the_item_gives() -> None:
    names = ["Ivo Brandt", "Mina Sol", "Petra Lund"]
    texts = [ROWS[0][1], "Attending: Ivo Brandt, Mina Sol, Petra Lund"]
    assert named_in_answer(texts, names, "Who volunteered? Tick all that apply.") == [True, False, True]
    assert named_in_answer(texts, names, "Tick all that apply.") is None  # asks nothing of them: not this rule
    assert named_in_answer(texts, [*names, "Zoe Park"], "Who volunteered?") is None  # not all the item's names
    assert exclusive("none", "No one volunteered") and exclusive("x", "Nobody agreed") and not exclusive("a", "Ivo")
