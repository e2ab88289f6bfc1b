"""Free text in the kind the question asks: "what should X do first?" gets one instruction about the thing at
fault; "what is wrong with it?" names where a shorter text says otherwise than the longer one it stands for; a
reason for a choice takes the choice's side (a no gets grounds for no) in the item's kind (a picture's sight);
a <label> right after a radio button names that choice; "which part is missing?" names the part the page says an
item gives; a box asked "if no" is answered after a no and left empty after a yes."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.asked_details import action, fault
from flows.sim.people.choice_reasons import choice_reason
from flows.sim.people.corrections import asked_when
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker
from flows.sim.people.descriptions import description
from flows.sim.people.item_parts import missing_part
from flows.sim.people.item_writing import asked
from flows.sim.people.page_context import page_contexts


@pytest.mark.parametrize(("question", "kind"), [
    ("What should the caretaker do first? One sentence.", "action"),
    ("Suggest the next step for this request.", "action"),
    ("How should the agent handle this ticket?", "action"), ("What is the first thing the nurse should do?", "action"),
    ("What makes it hard to see?", "reason"), ("What is wrong with this sentence?", "fault"),
    ("The caption does not match the photo's notes. What is wrong with it?", "fault"),
    ("Describe the problem with this listing.", "fault"),
    ("Comment on the word \"advice\" as these sentences use it.", "word"),  # a word, not advice asked for
    ("Spot the mistake and give the sentence back with it fixed.", "correction")])
def test_the_kind_of_text_asked_for(question: str, kind: str) -> None:
    assert asked(question, "box") == kind


def test_an_action_is_one_instruction_about_the_thing_at_fault() -> None:
    report = "The lift in block C stopped between floors twice this week and the alarm button does nothing."
    texts = [action(["Report:", report], random.Random(seed)) for seed in range(12)]
    for text in texts:
        assert re.match(r"(?:Repair|Fix|Send)\b", text) and "lift" in text, text  # a verb that fits, the thing
        assert len(re.findall(r"[.!?](?:\s|$)", text)) == 1 and 6 <= len(text.split()) <= 30
    assert len(set(texts)) > 2


@pytest.mark.parametrize(("note", "named"), [
    ("Icy patches near the top and a fallen pine blocking the shortcut.", "icy patches"),
    ("Coffee spilled all over the floor by the fridge; it's sticky.", "coffee"),
    ("Wasps nest in the wall by the quarry entrance, my son got stung.", "wasps"),
    ("The sink is blocked and water is coming over the edge onto the floor.", "the sink")])
def test_an_action_names_the_troubles_object(note: str, named: str) -> None:
    said = action([note], random.Random(3))
    assert named in said.lower() and len(re.findall(r"[.!?](?:\s|$)", said)) == 1, said


def test_a_report_of_no_trouble_asks_for_no_action() -> None:
    said = action(["Lovely views today, trail in great shape all the way up."], random.Random(1))
    assert said.startswith("No action needed") and re.search("trail|views", said), said


@pytest.mark.parametrize(("source", "checked", "named"), [
    ("The library will open on Sundays from March, the council said.", "The library will close on Sundays.",
     {"close", "open"}),
    ("Forty volunteers cleaned the beach on Saturday.", "Four volunteers cleaned the beach on Saturday.",
     {"four", "forty"})])
def test_a_fault_names_what_the_shorter_text_says_otherwise(source: str, checked: str, named: set[str]) -> None:
    for seed in range(6):
        text = fault([source, checked], random.Random(seed))
        assert named & set(re.findall(r"\w+", text.lower())), text
        assert checked.lower() not in text.lower()  # not the text said again


def test_a_no_to_can_you_read_it_gets_grounds_for_no_in_a_pictures_terms() -> None:
    for seed in range(10):
        rng = random.Random(seed)
        no = choice_reason("Not at all", "Can you read the words on the sign?", ["Bridge Street"], rng, 5,
                           image=True, most=25)
        yes = choice_reason("Yes, easily", "Can you read the words on the sign?", ["Bridge Street"], rng, 5,
                            image=True, most=25)
        assert re.search(r"does not let me read|small|blur|glare|dark|angle|cut off|covered", no, re.I), no
        assert not re.search(r"small|blur|glare|too dark|cut off", yes, re.I), yes
        assert len(no.split()) <= 25 and len(yes.split()) <= 25


def test_a_label_after_a_radio_button_names_it_and_the_reason_says_so() -> None:
    html = ("<img src='s.jpg'><p>Photo taken on Mill Road.</p><p>Can you read the sign?</p>"
            "<input type=radio name=r_0 value=y id=a required><label for=a>Yes, easily</label>"
            "<input type=radio name=r_0 value=n id=b><label for=b>Not at all</label>"
            "<p>Explain what makes the sign easy or hard to read (5 to 25 words).</p>"
            "<textarea name=why_0 required></textarea>")
    assert form_fields(html)[0].labels == {"y": "Yes, easily", "n": "Not at all"}
    for p, profile in enumerate(HONEST_PROFILES):
        values = fill_unhinted(new_worker(profile, {}, random.Random(p)), form_fields(html), html, {},
                               random.Random(p))
        label = {"y": "Yes, easily", "n": "Not at all"}[values["r_0"]]
        assert label.lower() in values["why_0"].lower() or len(values["why_0"].split()) >= 5, values
        assert not re.search(r"\b[yn]\b", values["why_0"]) and len(values["why_0"].split()) <= 25, values


def test_a_fault_in_a_lone_sentence_is_its_slip() -> None:
    text = fault(["Note:", "She recieved the parcel on Monday morning."], random.Random(3))
    assert "recieved" in text and "received" in text, text


@pytest.mark.parametrize(("request_text", "part"), [
    ("Hi, could I come in on Monday at 9.15am? Call me on 07700 900123.", ""),
    ("Hi, could I come in on Monday? Call me on 07700 900123.", "time"),
    ("Any chance of 3pm on the 14th? Thanks, Priya", "phone"),
    ("Can I come at 10:30? My number is 0161 496 0000.", "date")])
def test_a_missing_part_is_one_the_page_says_an_item_gives(request_text: str, part: str) -> None:
    page = "Each appointment request should give a date, a time and a phone number. If not, what is missing?"
    said = missing_part(request_text, random.Random(1), page).lower()
    assert part in said and (said or not part) and len(said.split()) <= 6, said


def test_amounts_a_page_asks_for_are_quantities_not_a_price() -> None:
    page = "The note gives the amounts, times and temperatures used. What does it leave out?"
    said = missing_part("Mixed 5 mL of buffer with the sample and left it at 37 C for 10 min.", random.Random(1), page)
    assert "price" not in said.lower(), said


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
    assert seen == {"yes", "no"}


WORDS = ["the", "gate", "by", "a", "of", "it", "and", "is", "was", "stopped", "leaks", "to", "in", "lamp", "on",
         "for", "with", "broken", "keeps", "at", "Road", "12", "Flat", "SW3", "4ND", ",", "Leeds", "if", "no", "not",
         "upstairs", "fine", "great", "wasps", "Icy"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=9).map(" ".join), min_size=1, max_size=3),
       st.integers(0, 99))
def test_an_action_and_a_fault_never_break_on_an_items_words(texts: list[str], seed: int) -> None:
    """A note whose trouble ends in small words only ("the gate is by the") still gets one sentence."""
    said = action(texts, random.Random(seed))
    assert said == "" or (said.endswith(".") and said[0].isupper())
    assert isinstance(fault(texts, random.Random(seed)), str)
    assert len(missing_part(" ".join(texts), random.Random(seed)).split()) <= 6
    assert asked_when(" ".join(texts), texts[0]) in (True, False, None)
    said = description(f"Describe the {texts[0]}: what it shows.", texts, texts[-1], random.Random(seed))
    assert said == "" or said.endswith(".")


def test_a_description_names_the_thing_asked_about_and_the_items_words() -> None:
    said = description("Describe the shelf briefly: what is on it.", ["Photo taken in the soup aisle of Fairmart."],
                       "Mostly empty", random.Random(1))
    assert re.match(r"(?:The |A |It is the )?[Ss]helf in the soup aisle\W+mostly empty", said), said
    assert description("Describe the photo in a sentence.", ["A dog"], "", random.Random(1)) == ""


QUESTION_WORDS = ["If", "no,", "not:", "Describe", "the", "what", "should", "do", "first?", "which", "part", "is",
                  "missing", "wrong?", "Why?", "explain", "your", "rating", "(1", "to", "6", "words)", "sign", ":",
                  "needs", "a", "date,", "time", "and", "name.", "how", "clearly", "visible"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(QUESTION_WORDS), min_size=1, max_size=14).map(" ".join),
       st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join), st.integers(0, 99))
def test_a_page_of_any_words_is_filled_without_breaking(question: str, item: str, seed: int) -> None:
    """A page whose question and item are any run of the words the simulator reads acts by (an "if no", a
    "describe the", a part the page says an item needs) is filled: every honest profile, one value a box."""
    html = (f"<p>{item}</p><p>Is it fine?</p><input type=radio name=ok_0 value=yes> Yes"
            f"<input type=radio name=ok_0 value=no> No<p>{question}</p><input type=text name=box_0 required>")
    for profile in HONEST_PROFILES:
        values = fill_unhinted(new_worker(profile, {}, random.Random(seed)), form_fields(html), html, {},
                               random.Random(seed))
        assert isinstance(values.get("box_0", ""), str)


def test_a_control_shown_on_every_page_of_a_study_is_still_an_items_text() -> None:
    """Every page of a Prolific study shows the same control beside its own item: the control's text is on
    every page, yet on a page of several items it sits in one item's part only, so it is that item's."""
    block = ("<input type=hidden name=item_id_{i} value={v}><p>{t}</p><p>What should the team do first?</p>"
             "<textarea name=first_step_{i} required></textarea>")
    control = "The window in room 112 won't close and rain is coming in onto the carpet."
    html = block.format(i=0, v="c1", t=control) + block.format(i=1, v="r7", t="The bins by the canteen smell.")
    contexts = page_contexts(html, frozenset({control, "What should the team do first?"}))
    assert control in contexts["0"].texts and "What should the team do first?" not in contexts["0"].texts


CLAIMS = ["The kettle stopped heating last week, although the light still comes on.",
          "My speaker crackles at any volume now after three years of use.",
          "The zip on the backpack broke the first time I opened it.",
          "Water got into the phone when it fell in the bath.",
          "The blender motor smells of burning and then cuts out.",
          "The strap of the watch tore at the buckle after a month."]


def test_honest_reasons_for_a_decision_differ_item_to_item_and_cite_the_item() -> None:
    page = ("<p>Not covered: drops, water damage, normal wear.</p><p>{claim}</p><p>What should we do?</p>"
            "<input type=radio name=d_0 value=approve id=a required><label for=a>Approve (repair or replace)</label>"
            "<input type=radio name=d_0 value=deny id=b><label for=b>Deny (not covered)</label>"
            "<p>Why? Between 8 and 30 words, e.g. \"The screen cracked after the phone was dropped, which is "
            "impact damage and not covered.\"</p><textarea name=why_0 required></textarea>")
    by_text: dict[str, set[int]] = {}
    for p, profile in enumerate(HONEST_PROFILES):
        worker = new_worker(profile, {}, random.Random(p))
        for k, claim in enumerate(CLAIMS):
            html = page.format(claim=claim)
            why = fill_unhinted(worker, form_fields(html), html, {}, random.Random(10 * k + p))["why_0"]
            by_text.setdefault(" ".join(why.lower().split()).rstrip(".!?"), set()).add(k)
            assert 8 <= len(why.split()) <= 30 and "impact damage" not in why, why
            if profile != "typo_prone":  # (its typos may land on the very words it quotes)
                own = {w for w in re.findall(r"[a-z]{4,}", claim.lower())}
                assert own & set(re.findall(r"[a-z]{4,}", why.lower())), why
    assert all(len(items) == 1 for items in by_text.values()), [t for t, i in by_text.items() if len(i) > 1]
