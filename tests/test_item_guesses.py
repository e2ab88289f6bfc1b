"""A question that asks the worker's guess about the item ("What do you think happens next?", "What do you think is
the most likely cause of this behaviour?") is about the item, not the worker: the import keeps every text rule on its
box (the repeat, copy and length rules a question about the worker leaves off), and the simulator writes it as work
on the item in the worker's own style, so a careless profile's text shows. Asked of the worker's own life or of a
topic, "what do you think" stays a question about the worker."""

from __future__ import annotations

import random
import tomllib

import pytest

from flows.core.pages.asks_worker import topic
from flows.core.pages.crowd_elements import FormField
from flows.custom.scaffold_import import field_qc_table, free_text_fields
from flows.sim.people.worker_questions import about_worker

STORY = """<crowd-form><input type="hidden" name="item_id_{{ i }}" value="o-1">
<div>The lighthouse keeper had not seen a ship in forty days when the lamp went out by itself.</div>
<p><strong>What do you think happens next?</strong> (1 or 2 sentences, at most 40 words)</p>
<crowd-text-area name="what_next_{{ i }}" rows="3" max-length="280" required></crowd-text-area></crowd-form>"""


@pytest.mark.parametrize("question", [
    "What do you think happens next?",
    "What do you think happens next? (1 or 2 sentences, at most 40 words)",
    "What do you think is the most likely cause of this behaviour?",
    "What do you think the people who signed up for the trip should do now?",
    "What do you think of this proposal?",
])
def test_a_guess_about_the_item_is_not_about_the_worker(question: str) -> None:
    assert topic(question) == ""
    box = FormField("guess_0", "textarea", attrs={"required": ""})
    assert all(about_worker(box, question, f"A{n:03d}", random.Random(n)) is None for n in range(10))


@pytest.mark.parametrize("question", [
    "What do you think?", "What do you think about solar cooking?", "What do you think of this HIT?",
    "What do you think would help you cycle more often?", "What would make cooking easier for you?",
])
def test_what_the_worker_thinks_of_a_topic_or_of_their_own_life_is_about_them(question: str) -> None:
    assert topic(question) == "opinion"


def test_the_import_keeps_the_repeat_and_length_rules_on_a_guess_about_the_item() -> None:
    (field, control, asks, stated), = free_text_fields(STORY)
    assert (field, asks, stated[1]) == ("what_next", "", 40)
    table = tomllib.loads(field_qc_table(field, control, asks, stated))["qc"]["fields"]["what_next"]
    assert "ignore" not in table and table["max_words"] == 40
