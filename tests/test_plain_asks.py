"""A box that asks a whole text put plainly ("in plain English", "for a child") asks it told in short, not a sentence
of it corrected; one that names a sentence asks that sentence corrected."""

from __future__ import annotations

from flows.sim.people.item_writing import asked

QUESTION = ("Rewrite the council's decision in plain English, as you would explain it to a neighbour: what was "
            "decided and what happens next. 10 to 35 words. Use your own words; do not copy the letter.")


def test_a_plain_rewrite_of_a_text_is_not_a_correction() -> None:
    assert asked(QUESTION, "plain_version") == "summary"
    assert asked("Rewrite the first sentence without the spelling mistakes.", "fixed") == "correction"
    assert asked("Rewrite the label's first sentence for a child: use everyday words.", "rewrite") == "correction"


def test_a_rewrite_heading_before_a_hint_is_the_boxs_question() -> None:
    from flows.core.pages.asks_worker import question_texts
    from flows.core.pages.mturk_forms import _parse

    html = ("<form><p><b>4. Rewrite the council's decision in plain English</b>: what was decided and what happens "
            "next.</p><p>10 to 35 words, in your own words.</p><textarea name='plain' required></textarea></form>")
    question = question_texts(_parse(html))["plain"]
    assert "decision" in question and "10 to 35 words" in question, question
    assert asked(question, "plain") == "summary"
