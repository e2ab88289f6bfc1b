"""A question of a kind no writer names is answered from the part of the item it asks about
(flows/sim/people/asked_about.py), within the box's limits, never from the page's prose."""

from __future__ import annotations

import random
import re

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.pages.page_common import common_among, page_chunks
from flows.sim.people.asked_about import answer_about, bearing_part
from flows.sim.people.crowd_model import new_worker

LOST = """<form><p>Staff write a note for every item handed in at our stations.</p>
<p><b>Found:</b> {place}, {day}</p><p><b>Staff note:</b> <i>{note}</i></p>
<p><b>What would the owner type into the search box to find it?</b> (2 to 6 words)</p>
<input type="text" name="search_words" required></form>"""
NOTES = [("York station, platform 3", "Tue 4 March", "Red Brompton folding bike, front light missing"),
         ("Bus 42, upper deck", "Mon 3 March", "iPhone in pink glitter case, screen cracked top corner"),
         ("Leeds station, platform 8", "Wed 5 March", "Grey knitted beanie with pompom, name tag inside")]


def test_a_question_that_names_none_of_the_items_words_is_answered_from_its_main_text() -> None:
    pages = [LOST.format(place=place, day=day, note=note) for place, day, note in NOTES]
    refs = [(str(k), page_chunks(html)) for k, html in enumerate(pages)]  # the page's prose: on every page
    for k, ((place, _day, note), html) in enumerate(zip(NOTES, pages, strict=True)):
        for seed in range(4):
            said = fill_unhinted(new_worker("diligent", {}, random.Random(seed)), form_fields(html), html, {},
                                 random.Random(10 * k + seed), common=common_among(refs, str(k)))["search_words"]
            assert 2 <= len(said.split()) <= 6 and said.split()[0].strip(".,") in note, said
            assert place.split(",")[0] not in said, said  # (the stated "6" is no word of the question)


def test_the_part_bearing_on_the_question_is_the_one_sharing_its_rarer_words() -> None:
    texts = ["The pool opens at 7am on weekdays.", "Towels cost £2 to hire at the front desk.",
             "Children under 8 must be with an adult in the pool."]
    assert bearing_part("How much does it cost to hire a towel?", texts) == texts[1]
    assert bearing_part("Who has to come with young children?", texts) == texts[2]


def test_a_quoted_term_is_said_of_in_its_context_without_copying_the_text() -> None:
    clause = ("A non-refundable deposit of 25% of the total fee is payable on signing. "
              "The balance is due no later than seven days before the event.")
    question = 'In this clause, what does "balance" mean? Explain it in your own words. Between 5 and 20 words.'
    for seed in range(6):
        said = answer_about(question, [clause], random.Random(seed), 20)
        assert said.lower().startswith(("balance", "here balance", "in this text balance")), said
        assert "seven days" in said and "deposit" not in said and len(said.split()) <= 20, said
        assert "the balance is due no later than" not in said.lower(), said  # no run of the clause copied
        assert re.search(r"\bmeans\b", said), said
