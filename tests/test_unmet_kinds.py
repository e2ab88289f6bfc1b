"""Honest text for kinds of box the simulator had no writer of its own for: a question someone would still have, a
sentence put right against a second text, the parts a record lacks of those its page lists, a fact the item states,
the sentence bearing on a question, the things it names."""

from __future__ import annotations

import random
import re

from flows.core.pages.asks_worker import question_texts
from flows.core.pages.mturk_forms import form_fields, read_page
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.corrections import agreeing, corrected, to_correct
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker
from flows.sim.people.item_parts import missing_part
from flows.sim.people.item_writing import asked

FACTS = "Doors open 18:30, the concert starts 19:15 in Hall B. Tickets on sale from Friday at the Riverside kiosk."
POSTER = ("Doors open at 18:30 for the spring concert. The concert starts at 19:45 in Hall B. Tickets go on sale from "
          "Friday at the Riverside kiosk.")
ASK = "If wrong: rewrite the wrong sentence of the poster so that it agrees with the facts."


def _filled(item: str, question: str, seed: int) -> str:
    html = (f"<input type=hidden name=item_id_0 value=i{seed}><p>{item}</p><p>{question}</p>"
            "<textarea name='answer_0' required></textarea>")
    worker = new_worker(HONEST_PROFILES[0], {}, random.Random(seed))
    return fill_unhinted(worker, form_fields(html), html, {}, random.Random(seed))["answer_0"]


def test_a_correction_puts_right_the_sentence_that_disagrees_with_the_facts_beside_it() -> None:
    texts = ["Facts:", FACTS, "Poster:", POSTER]
    target, version = to_correct(ASK, texts, {})
    assert target == POSTER and FACTS in version
    fixed = corrected(target, random.Random(1), version, one=True)
    assert fixed == "The concert starts at 19:15 in Hall B.", fixed
    swapped = corrected("Buses run via Station Road while Bridge Road is closed.", random.Random(1),
                        "Buses run via Bridge Road while Station Road is closed.", one=True)
    assert swapped == "Buses run via Bridge Road while Station Road is closed.", swapped
    assert agreeing(POSTER.replace("19:45", "19:15"), FACTS, one=True) == ""  # nothing to put right


def test_the_parts_a_page_lists_are_checked_against_the_record() -> None:
    page = "A report can only be used if it has all of these: the date, the place and the reporter's name or initials."
    assert "place" in missing_part("Fox seen in the garden, 4 May 2026. - J. Okoro", random.Random(1), page)
    lacks = missing_part("Fox seen crossing Mill Road, Ely. J. Okoro", random.Random(1), page)
    assert "date" in lacks and "place" not in lacks and len(lacks.split()) >= 3, lacks
    assert missing_part("Fox on Mill Road, Ely, 4 May 2026. J. Okoro", random.Random(1), page,
                        'If nothing is missing, write "complete".') == "complete"


def test_a_box_asking_for_a_question_gets_one_about_the_item() -> None:
    item = "The museum will close its dinosaur gallery for repairs from March until the new roof is finished."
    question = "What question would a visitor still want answered after reading this notice? One question."
    assert asked(question, "q") == "ask"
    for seed in range(4):
        said = _filled(item, question, seed)
        assert said.rstrip().endswith("?") and re.search(r"dinosaur|gallery|repairs|museum|roof", said, re.I), said


def test_facts_bearing_sentences_and_named_things_are_found_in_the_item() -> None:
    item = ("The council will close Mill Lane library on 1 June to save money. A public meeting is planned for "
            "20 May at the town hall in Ashford.")
    assert "20 May" in _filled(item, "What is the date of the public meeting?", 1)
    assert _filled(item, "Copy the sentence that shows why the library is closing.", 2).startswith("The council")
    listed = _filled(item, "List the places named in the text, separated by commas.", 3)
    assert "Mill Lane" in listed and "June" not in listed, listed


def test_a_crowd_elements_short_label_keeps_the_question_above_it() -> None:
    html = ("<crowd-form><p><b>2. If no: rewrite the wrong sentence.</b> Up to 35 words.</p>"
            "<crowd-input name='fixed' label='Corrected sentence'></crowd-input></crowd-form>")
    question = question_texts(read_page(html))["fixed"]
    assert "rewrite the wrong sentence" in question and "Corrected sentence" in question
