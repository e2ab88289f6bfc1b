"""A box whose asking sentence asks for a quote of the item gets its relevant part copied word for word, within the
stated limits; other questions are left to the other writers."""

from __future__ import annotations

import re

from flows.sim.people.asked_about import asked_form

REVIEW = ("Took me about an hour and a half on my own. The instructions were clear, just pictures but every step made "
          "sense. Arrived with one panel cracked. Once I had everything it went together in under an hour.")


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'-]+", text.lower())


def test_a_quote_is_an_unbroken_run_of_the_item_within_the_stated_words() -> None:
    q = "3. Copy the phrase from the review that best shows how easy it was to put together, between 3 and 15 words."
    said = asked_form(q, [REVIEW], 3, 15)
    assert 3 <= len(_words(said)) <= 15 and " ".join(_words(said)) in " ".join(_words(REVIEW)), said
    assert "together" in said  # the sentence sharing the question's words, not the first one


def test_a_question_asking_none_of_these_forms_is_left_to_the_other_writers() -> None:
    assert asked_form("What is the main point of the review?", [REVIEW], 0, 20) == ""
    assert asked_form("Explain your answer.", [REVIEW], 0, 20) == ""
