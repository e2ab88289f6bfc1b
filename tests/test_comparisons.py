"""A box that asks to compare two things an item shows gets both named and what differs between them, in a
person's words within the box's limit, not a summary of one of them."""

from __future__ import annotations

import random
import re

from flows.sim.people.comparisons import comparison
from flows.sim.people.item_writing import asked

QUESTION = ("Compare what the two ads ask of applicants (experience, qualifications, hours, travel...). "
            "One or two sentences, 10 to 40 words, saying something about both ads.")
FIRST = ("We are hiring a kitchen porter for a busy hotel in Harrogate. Evening and weekend shifts, 25 hours a week. "
         "No experience needed, full training given. 11.90 GBP an hour.")
SECOND = ("Experienced chef de partie wanted for our fine dining team. Level 3 food hygiene certificate essential, "
          "two years in a similar role and a full driving licence as the site is rural.")


def _copies(text: str, source: str, run: int = 6) -> bool:
    said, shown = re.sub(r"[^a-z0-9]+", " ", text.lower()).split(), " " + re.sub(r"[^a-z0-9]+", " ",
                                                                                   source.lower()) + " "
    return any(f" {' '.join(said[i:i + run])} " in shown for i in range(len(said) - run + 1))


def test_a_compare_box_asks_for_a_comparison() -> None:
    assert asked(QUESTION, "comparison") == "comparison"
    assert asked("How do the two reviews differ? 10 to 30 words", "differences") == "comparison"


def test_a_comparison_names_both_things_and_what_each_asks() -> None:
    texts = ["Kitchen staff", FIRST, SECOND]
    written = [comparison(QUESTION, texts, random.Random(seed), 40) for seed in range(20)]
    for text in written:
        assert "first ad" in text and "second ad" in text, text  # both named, as the box's own noun
        assert 10 <= len(text.split()) <= 40, text
        assert not _copies(text, f"{FIRST} {SECOND}"), text  # the worker's words, not the ads'
        said = text.lower()
        assert any(w in said for w in ("experience", "training", "shifts", "weekend")), text  # of the first ad
        assert any(w in said for w in ("certificate", "licence", "years", "chef")), text  # of the second ad
    assert len(set(written)) >= 5  # varied per worker


def test_an_ad_that_asks_nothing_is_said_to_ask_nothing() -> None:
    vague = "Dynamic team player wanted for a fast-paced environment. Competitive salary. Apply today!"
    text = comparison(QUESTION, [FIRST, vague], random.Random(3), 40)
    second = text.split("second ad", 1)[1]
    assert re.search(r"nothing|no word|not mention", second), text


def test_fewer_than_two_texts_give_no_comparison() -> None:
    assert comparison(QUESTION, [FIRST], random.Random(1), 40) == ""
