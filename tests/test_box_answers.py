"""Honest text that answers the box's own question: a correction of the text its question names, a reason for the
choice its question names, a copied run broken, what is confusing in a text."""

from __future__ import annotations

import random
import re

from flows.sim.people.choice_reasons import choice_reason, named_choice, said_together
from flows.sim.people.corrections import corrected, left_empty, to_correct
from flows.sim.people.item_writing import asked
from flows.sim.people.own_words import uncopied

QUESTION = "Only if it needs a fix: type the English as it should read. Leave it empty if the English is right."


def test_a_correction_rewrites_the_text_its_question_names_not_the_version_beside_it() -> None:
    texts = ["Hotel Sol y Mar (Spanish)", "Habitación con vistas al mar", "Habitation with sights to the sea"]
    labels = {texts[0]: "Hotel", texts[1]: "Original", texts[2]: "Our English"}
    target, version = to_correct(QUESTION, texts, labels)
    assert (target, version) == (texts[2], texts[1])
    fixed = corrected(target, random.Random(1), version)
    assert fixed != target and "sea" in fixed and "Hotel" not in fixed


def test_a_correction_box_is_left_empty_exactly_when_the_workers_own_choice_says_fine() -> None:
    asks = "Is the English right?"
    assert left_empty(QUESTION, "Right, a reader would understand it", asks)
    assert not left_empty(QUESTION, "Mostly right, needs a small fix (a word or spelling)", asks)
    assert not left_empty("If it needs fixing, type the corrected line.", "Needs a small fix", asks)


def test_a_reason_names_the_choice_its_question_names_not_the_last_one() -> None:
    choices = [("Which of these groups would enjoy it? Tick all that apply.", said_together(["Students", "Parents"])),
               ("How long is the talk?", "Short")]
    asks, chosen = named_choice(choices, "Why did you pick those groups?") or ("", "")
    assert chosen == "Students and Parents"
    text = choice_reason(chosen, f"Why did you pick those groups? {asks}", ["hands-on exercises"], random.Random(2), 5)
    assert "Students and Parents" in text and " they " in text and "Short" not in text
    assert named_choice(choices, "Any other comments?") is None


def test_a_copied_run_is_broken_as_a_person_rewrites_it() -> None:
    source = "I was told that three cables would arrive on Monday morning."
    assert "3" in uncopied("They were told that three cables would arrive on Monday morning.", source)


def test_a_question_whether_any_wording_is_confusing_asks_what_is_unclear() -> None:
    assert asked("Optional: is any wording in the letter confusing? Say which, in up to 25 words.", "c") == "unclear"


def test_a_reason_for_a_decision_on_a_text_cites_that_texts_own_clause_not_the_pages_example() -> None:
    from flows.sim.people.choice_reasons import told_grounds

    asks = ('Why? Between 8 and 30 words, e.g. "The screen cracked after the phone was dropped, which is impact '
            'damage and not covered." What should we do with this claim? Not covered: normal wear. Ask for more '
            'information if it is unclear.')
    claims = ["The kettle stopped heating last week. I have only used it for tea.",
              "The strap of my watch tore at the buckle after a month.",
              "The fan rattles loudly on every setting."]
    record = "Product: Desk fan · Bought: 2025-01-02 · Claim received: 2026-02-03 · Order no.: F-1"  # the longer text
    reasons = [choice_reason("Deny (not covered)", asks, ["x y"], random.Random(k), 8, most=30,
                             told=told_grounds([record, c])) for k, c in enumerate(claims)]
    for reason, claim in zip(reasons, claims, strict=True):
        assert "impact damage" not in reason and "reader learns" not in reason and "(not covered)" not in reason
        assert "Deny" in reason and 8 <= len(reason.split()) <= 30, reason
        assert len(set(reason.lower().split()) & set(claim.lower().split()) - {"the", "a", "i"}) >= 2, reason
    assert "Order no" not in reasons[2] and "rattles" in reasons[2]  # the claim's prose, not its record line
    short = choice_reason("Report it to the IT security team at once", "Which should you do?", [], random.Random(1),
                          3, most=16, told=told_grounds(["Your mailbox is full and will be deleted today."]))
    assert len(short.split()) <= 16 and re.search(r"mailbox is full", short), short
