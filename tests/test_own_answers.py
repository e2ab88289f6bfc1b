"""Free text in the person's own voice, of the kind the question asks (flows/sim/people/own_answers.py): a reply
to the item's writer, what I would do or change and why, what a text does not tell, how I checked a sum, what a
term means, an opinion with a reason; each from the item's own words, within the page's stated word limits, and
never about a picture on a page that shows none."""

from __future__ import annotations

import random
import re

import pytest

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker
from flows.sim.people.item_writing import asked

PICTURE = re.compile(r"\b(?:picture|photo|image|frame|background|blurr?y)\b", re.I)


@pytest.mark.parametrize(("question", "kind"), [
    ("How would you reply to this customer?", "reply"), ("What would you say to your neighbour?", "reply"),
    ("What would you change about this rule, and why?", "change"), ("How would you improve this notice?", "change"),
    ("What, if anything, would you do about it?", "deed"), ("How would you handle this?", "deed"),
    ("Briefly, how did you check it? Please use 5 to 25 words.", "checked"), ("How did you work it out?", "checked"),
    ("Explain in your own words what this term means.", "meaning"), ("What does 'overdraft' mean?", "meaning"),
    ("Do you think this is a good idea?", "opinion"), ("Are you in favour of this proposal? Why?", "opinion"),
    ("What does this ad not tell you?", "untold"), ("What important information is not given?", "untold"),
    ("How would you feel if this happened to you?", "feeling"), ("Who is most affected by this change?", "who"),
    ("What is the main benefit of the plan?", "weigh"), ("Which part of the plan worries you most?", "weigh"),
    ("Would you support this change? Why or why not?", "opinion"),
    ("How could the school make this plan fairer?", "change"),
    ("What should the council do about it?", "action"),  # someone else's deed, not mine
    ("Rewrite the note so it sounds kinder.", "politer")])
def test_the_kind_of_own_answer_asked_for(question: str, kind: str) -> None:
    assert asked(question, "box") == kind


def _answers(item: str, question: str, field: str = "box", typos: bool = True) -> list[str]:
    html = f"<p>{item}</p><p>{question}</p><textarea name='{field}' required></textarea>"
    fields = form_fields(html)
    out = []
    for p, profile in enumerate(p for p in HONEST_PROFILES if typos or p != "typo_prone"):
        for s in range(3):
            worker = new_worker(profile, {}, random.Random(100 * p + s))
            out.append(fill_unhinted(worker, fields, html, {}, random.Random(10 * p + s))[field])
    return out


def _words(text: str) -> set[str]:
    return {w[:4] for w in re.findall(r"[a-z]{4,}", text.lower())}


@pytest.mark.parametrize(("item", "question", "low", "high", "said"), [
    ("My new lamp arrived with a cracked shade and the switch does not work at all.",
     "How would you reply to this customer? Write 15 to 40 words.", 15, 40, r"\b(?:I|you)\b"),
    ("The family next door have a party with loud music every Friday until 3 am, and you start work early.",
     "What would you do about it? Please write between 10 and 40 words.", 10, 40, r"\bI\b"),
    ("Visitors must sign in at the front desk and may only use the lift between 9 am and 5 pm.",
     "What would you change about this rule, and why? 15 to 45 words.", 15, 45, r"\bbecause|so that|that way|as\b"),
    ("The council plans to plant fifty trees along the ring road to reduce pollution.",
     "Do you think this is a good idea? Give a reason, at most 30 words.", 1, 30, r"\b(?:yes|no)\b"),
])
def test_an_own_answer_is_in_the_voice_asked_within_the_limits_and_about_the_item(
        item: str, question: str, low: int, high: int, said: str) -> None:
    for text in _answers(item, question):
        assert low <= len(text.split()) <= high, text
        assert re.search(said, text, re.I) and _words(text) & _words(item), text
        assert not PICTURE.search(text), text


def test_a_sum_is_checked_with_its_own_numbers_not_by_copying_it() -> None:
    problem = "A crate holds 36 apples. A quarter of them are bruised. How many apples are not bruised?"
    for text in _answers(problem, "How did you check the answer? Use 5 to 20 words."):
        assert 5 <= len(text.split()) <= 20 and "36" in text, text
        assert re.search(r"divid|multipl|took|added|worked", text) and "crate holds" not in text, text


def test_what_a_text_does_not_tell_names_a_detail_it_lacks_and_no_picture() -> None:
    ad = "Friendly cafe in Leeds needs a weekend cook. Apply by email to jobs@example.org."
    for text in _answers(ad, "What would a job seeker want to know that this ad does not tell them? Under 15 words."):
        assert len(text.split()) < 15 and not PICTURE.search(text), text
        assert not re.search(r"\b(?:location|address|how to apply)\b", text), text  # the ad gives those
    steps = "Mix the flour and water. Knead the dough. Leave it to rise. Bake it in the oven."
    for text in _answers(steps, "What important information is not given in these instructions? At most 12 words."):
        assert re.search(r"how (?:long|much)|which tools", text, re.I) and len(text.split()) <= 12, text


def test_a_terms_meaning_names_the_term_and_says_it_in_other_words() -> None:
    item = "<p>Term: <b>deposit</b></p><p>Example: You pay a deposit when you book, and the rest on arrival.</p>"
    for text in _answers(item, "Explain in your own words what this term means. Use 10 to 30 words."):
        assert "deposit" in text.lower() and re.search(r"\bmeans?\b|\bis what\b", text), text
        assert "you pay a deposit when you book" not in text.lower(), text


def test_advice_on_a_plan_is_no_repair_order() -> None:
    plan = "The library will open at 7 am on weekdays from March, so that commuters can borrow books before work."
    for text in _answers(plan, "What advice would you give the librarian about this change? 10 to 30 words."):
        assert 10 <= len(text.split()) <= 30 and "advise" in text and "change" in text, text
        assert not re.search(r"\b(?:inspect|repair|fix)\b", text), text  # nothing in it is broken


@pytest.mark.parametrize(("question", "said"), [
    ("How would you feel if this happened to you? 10 to 30 words.", r"\bI would feel\b"),
    ("Who is most affected by this change, and how? 10 to 30 words.", r"\bcommuters\b"),
    ("What is the main benefit of this change? 10 to 30 words.", r"\bbenefit|best part\b"),
])
def test_feelings_who_and_benefits_are_said_of_the_item(question: str, said: str) -> None:
    plan = "The library will open at 7 am on weekdays from March, so that commuters can borrow books before work."
    for text in _answers(plan, question, typos=False):
        assert re.search(said, text) and _words(text) & _words(plan) and 10 <= len(text.split()) <= 30, text
