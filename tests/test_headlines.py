"""A numbered headline question ("4. Write a headline ...") asks for a title: its number says nothing."""

from __future__ import annotations

from flows.sim.people.item_writing import asked


def test_a_numbered_headline_question_asks_for_a_title() -> None:
    assert asked("4. Write a headline for the bulletin. 4 to 12 words. Say what weather and where (or when).",
                 "headline") == "title"
