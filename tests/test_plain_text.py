"""An honest simulated worker's free text (flows/sim/people/plain_text.py): over generated questions stating limits
(word ranges, at most / at least N words, one word, one sentence, 2-3 sentences, a question mark, a maxlength) and
generated item texts, it meets every limit QC reads, never raises, and twenty workers on one item write twenty texts
that do not all open alike. Also what the writers it replaced did that stays: a box asked only after one answer,
the limits a box's words state, a cut text ending on no stub, an item's text told from the page's prompts."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from flows.core.pages.asks_worker import question_texts
from flows.core.pages.mturk_forms import form_fields, read_page
from flows.custom.custom_text_qc import NAME_IT_WORDS
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.box_conditions import asked_when, left_empty
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker
from flows.sim.people.page_context import page_contexts
from flows.sim.people.plain_text import box_limits, meets, plain, sentence_range
from flows.sim.people.stated_limits import stated, within
from qc.asked_limits import stated_max_words, stated_min_words
from qc.source_copy import source_copy
from qc.submit_rules import count_words

ITEM_WORDS = ["battery", "charger", "refund", "the", "a", "noise", "Paris", "bridge", "river", "and", "was", "is",
              "parcel", "late", "delivery", "broken", "screen", "kettle", "water", "of", ",", ".", "42", "I", "my",
              "quickly", "it's", "well-known", "café"]
ITEMS = st.lists(st.lists(st.sampled_from(ITEM_WORDS), min_size=1, max_size=30).map(" ".join), min_size=1,
                 max_size=3)
ASKS = st.sampled_from(["What do you think?", "Why?", "Describe it.", "Summarise the text.", "Any comments?",
                        "What would you ask the seller?", "Write a reply to the customer."])
LIMITS = st.one_of(
    st.just(""), st.integers(2, 30).flatmap(lambda a: st.integers(a + 1, a + 40).map(lambda b: f"({a}-{b} words)")),
    st.integers(1, 60).map(lambda n: f"At most {n} words."), st.integers(1, 40).map(lambda n: f"At least {n} words."),
    st.sampled_from(["In one word.", "In one sentence.", "Answer in 2-3 sentences.", "One or two sentences.",
                     "End it with a question mark.", "Write one question for the seller.", "In about 25 words."]))


def _box(ask: str, limits: list[str], maxlength: int | None) -> tuple[str, dict[str, object]]:
    return " ".join([ask, *limits]), ({"maxlength": maxlength} if maxlength else {})


@settings(max_examples=300, deadline=None)
@given(ITEMS, ASKS, st.lists(LIMITS, max_size=2), st.one_of(st.none(), st.integers(20, 400)), st.integers(0, 10**6))
def test_honest_text_meets_every_limit_qc_reads(texts: list[str], ask: str, limits: list[str], maxlength: int | None,
                                                 seed: int) -> None:
    question, rule = _box(ask, limits, maxlength)
    box = box_limits(question, rule)
    text = plain(texts, box, random.Random(seed))
    least, most = stated_min_words(question), stated_max_words(question)
    most = box.most or 10**6
    fewest = max(box.least, (box.sentences or [1])[0], 1)
    if (box.high is not None and fewest * 12 > box.high) or most < fewest:
        return  # limits no text meets together (a maxlength too short for the words asked; at most 1 word, 2 sentences)
    assert meets(text, box), (question, box, text)
    assert count_words(text) >= least and (not most or count_words(text) <= most), (question, text)
    if sentence_range(question) == (1, 1):
        assert not re.search(r"[.!?]\s+\S", text), text
    if box.question:
        assert text.endswith("?"), text


def test_the_property_reads_what_qc_reads() -> None:
    box = box_limits("Why? (10-30 words) In one sentence. End it with a question mark.", {"maxlength": 200})
    assert (box.least, box.most, box.high, box.sentences, box.question) == (10, 30, 200, (1, 1), True)
    assert sentence_range("Reply in 2-3 sentences.") == (2, 3) and sentence_range("One or two sentences") == (1, 2)
    assert sentence_range("Write one question of 5 to 20 words.") == (1, 1)
    assert box_limits("In one word, what is it?", {}).most == 1


@settings(max_examples=40, deadline=None)
@given(ITEMS, ASKS, st.lists(LIMITS, max_size=2))
def test_twenty_workers_on_one_item_write_twenty_texts_not_all_opening_alike(texts: list[str], ask: str,
                                                                               limits: list[str]) -> None:
    box = box_limits(" ".join([ask, *limits]), {})
    said = [plain([*texts, "The parcel came late and the kettle inside was broken, so I want a refund."], box,
                  random.Random(k)) for k in range(20)]
    # (a few words: the same from two people is honest there, and QC's same-text rules say so too)
    assert (box.most or 99) <= NAME_IT_WORDS or len({" ".join(t.lower().split()[:2]) for t in said}) >= 8, said
    longer = [t for t in said if count_words(t) > NAME_IT_WORDS]
    assert len(set(longer)) == len(longer), said


def test_no_honest_text_is_called_a_copy_of_its_item() -> None:
    import pandas as pd

    item = ("The parcel came three days late and the kettle inside was broken, the lid cracked and the handle loose. "
            "I have asked twice for a refund and nobody has answered my emails.")
    rows = [{"assignment_id": f"a{k}", "worker_id": f"w{k}", "image_id": "i1", "caption": plain(
        [item], box_limits(q, {}), random.Random(k))} for k in range(30) for q in ("Summarise it.", "(10-30 words)")]
    flags = source_copy(pd.DataFrame(rows), {"item_text": {"i1": [item]}})
    assert flags.empty, flags


def test_a_box_asked_if_no_is_answered_after_a_no_only() -> None:
    assert asked_when("If no, what is wrong?", "No") and asked_when("If not: which part?", "no")
    assert asked_when("If no, what is wrong?", "Yes") is False and asked_when("What is wrong?", "Yes") is None
    html = ("<p>Order 12, Kings Road, Ely, CB7 4AB</p><p>Deliverable?</p><input type=radio name=ok_0 value=yes> Yes"
            "<input type=radio name=ok_0 value=no> No<p>If no, which part is missing? (1 to 6 words)</p>"
            "<input type=text name=part_0>")
    seen = set()
    for k in range(12):
        values = fill_unhinted(new_worker(HONEST_PROFILES[k % len(HONEST_PROFILES)], {}, random.Random(k)),
                               form_fields(html), html, {}, random.Random(k))
        seen.add(values["ok_0"])
        assert bool(values["part_0"].strip()) == (values["ok_0"] == "no"), values
        assert len(values["part_0"].split()) <= 6
    assert seen == {"yes", "no"}


def test_a_correction_box_is_left_empty_exactly_when_the_workers_own_choice_says_fine() -> None:
    question = "Only if it needs a fix: type the English as it should read. Leave it empty if the English is right."
    asks = "Is the English right?"
    assert left_empty(question, "Right, a reader would understand it", asks)
    assert not left_empty(question, "Mostly right, needs a small fix (a word or spelling)", asks)
    assert not left_empty("If it needs fixing, type the corrected line.", "Needs a small fix", asks)


def test_stated_word_limits_in_more_wordings() -> None:
    for question, limits in [("Give a reason (10+ words)", (10, None)), ("Use at least ten words.", (10, None)),
                             ("Your answer must be 20 words or longer", (20, None)),
                             ("No fewer than 15 words, please", (15, None)), ("Maximum: 30 words", (0, 30)),
                             ("In twelve to twenty words", (12, 20))]:
        assert stated(question)[:2] == limits, question


def test_a_text_cut_to_a_word_limit_ends_on_no_stub() -> None:
    cut = within("The lift is closed for two weeks; residents who need help can call the office on 0161.", 9, None)
    assert len(cut.split()) <= 9 and cut == "The lift is closed for two weeks."
    assert not within("Water is off from nine so the boiler can be serviced soon.", 10, None).endswith(" be.")


def test_a_control_shown_on_every_page_of_a_study_is_still_an_items_text() -> None:
    block = ("<input type=hidden name=item_id_{i} value={v}><p>{t}</p><p>What should the team do first?</p>"
             "<textarea name=first_step_{i} required></textarea>")
    control = "The window in room 112 won't close and rain is coming in onto the carpet."
    html = block.format(i=0, v="c1", t=control) + block.format(i=1, v="r7", t="The bins by the canteen smell.")
    contexts = page_contexts(html, frozenset({control, "What should the team do first?"}))
    assert control in contexts["0"].texts and "What should the team do first?" not in contexts["0"].texts


def test_a_crowd_elements_short_label_keeps_the_question_above_it() -> None:
    html = ("<crowd-form><p><b>2. If no: rewrite the wrong sentence.</b> Up to 35 words.</p>"
            "<crowd-input name='fixed' label='Corrected sentence'></crowd-input></crowd-form>")
    question = question_texts(read_page(html))["fixed"]
    assert "rewrite the wrong sentence" in question and "Corrected sentence" in question
