"""A headline box that asks where or when gets a headline naming the item's place (else its time), from the
item's own words, within the box's limit; a box that does not ask keeps the plain headline."""

from __future__ import annotations

import random

from flows.sim.people.headlines import placed
from flows.sim.people.summaries import headline

QUESTION = "Write a headline for the radio bulletin. 4 to 12 words. Say what happened and where (or when)."
TEXTS = ["Issued by the county council for North Devon, valid from Fri 08:00",
         "Flood alert upgraded to a warning. River levels are rising quickly after two days of rain."]


def test_a_headline_asked_where_names_the_items_place() -> None:
    for seed in range(10):
        title = placed(headline(TEXTS, random.Random(seed), 4, 12), TEXTS, QUESTION, 12)
        assert "North Devon" in title, title
        assert 4 <= len(title.split()) <= 12, title
        assert "flood" in title.lower(), title  # still the item's news


def test_a_time_when_the_item_names_no_place() -> None:
    texts = ["Dense fog is expected to form overnight, with visibility below 100 metres in places."]
    assert placed("Dense fog expected to form", texts, QUESTION, 12).endswith("overnight")


def test_a_headline_that_already_says_where_or_when_is_kept() -> None:
    assert placed("Flood warning for North Devon rivers", TEXTS, QUESTION, 12) == "Flood warning for North Devon rivers"
    assert placed("Gales expected on Friday", TEXTS, QUESTION, 12) == "Gales expected on Friday"
    assert placed("Flood alert upgraded", TEXTS, "A title, 4 to 8 words.", 8) == "Flood alert upgraded"
    long = "Flood alert upgraded to a warning on the main river"
    assert placed(long, TEXTS, QUESTION, 11) == long  # no room left for a place within the limit


def test_a_numbered_headline_question_asks_for_a_title() -> None:
    from flows.sim.people.item_writing import asked

    assert asked("4. Write a headline for the bulletin. 4 to 12 words. Say what weather and where (or when).",
                 "headline") == "title"
