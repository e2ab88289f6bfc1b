"""Free text that answers the question asked, read from the page's own words: a select's options are named by
the text a person sees; a rating's reason is said in its scale's end words; "justify it in a sentence" asks for
a reason; a politer rewrite asks for the note as a favour; a two-part question gets a sentence per part; "who
would you give it to, and what makes it a fit" asks who and why; more common slips are corrected."""

from __future__ import annotations

import random
import re

import pytest

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.asked_details import asked_parts, open_answer
from flows.sim.people.choice_reasons import anchors, choice_reason
from flows.sim.people.corrections import corrected, politer
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker
from flows.sim.people.item_writing import asked


def test_a_selects_options_are_labelled_with_the_text_a_person_sees() -> None:
    html = ("<select name=s><option value=''>Pick<option value=a1>Cheerful <b>mood</b></option>"
            "<option value=a2>Grumpy<option>Calm</select>")
    (f,) = form_fields(html)
    assert f.options == ["a1", "a2", "Calm"]  # the blank placeholder is no answer
    assert f.labels == {"a1": "Cheerful mood", "a2": "Grumpy", "Calm": "Calm"}


def test_a_scales_ends_are_read_from_its_labels_or_the_words_beside_it() -> None:
    assert anchors(["1 = very blurry", "2", "3", "4", "5 = perfectly clear"]) == "very blurry|perfectly clear"
    assert anchors(["Rate it. 1 = painfully slow  5 = lightning fast"]) == "painfully slow|lightning fast"
    assert anchors(["1", "2", "3"]) == ""


@pytest.mark.parametrize(("value", "level", "said"), [("1", 0.0, "is very dull"), ("4", 0.75, "closer to gripping"),
                                                      ("3", 0.5, "between very dull and gripping")])
def test_a_ratings_reason_is_said_in_the_scales_end_words(value: str, level: float, said: str) -> None:
    text = choice_reason(value, "How good is the plot?", ["the long middle part"], random.Random(1), 8, level,
                         "very dull|gripping")
    assert said in text and text.split()[0].strip(",") in ("I", value) and len(text.split()) >= 8


@pytest.mark.parametrize(("question", "kind"), [
    ("Please justify the number you gave in a sentence or two.", "reason"),
    ("Describe what happened, in your own words.", "summary"),
    ("Rewrite the message so it sounds friendlier.", "politer"),
    ("Rewrite the sentence correctly.", "correction"),
    ("What is the buyer upset about, and how could the seller fix it?", "open"),
    ("Who would you give this to as a present, and what makes it a good fit?", "audience"),
    ("Which audience is this ad aimed at?", "audience"), ("Tell us who you think would buy this.", "audience"),
    ("Make this line sound less bossy.", "politer"), ("Please rephrase the note in a friendlier tone", "politer"),
    ("Briefly describe the main complaint in the review.", "summary"),
    ("Describe the sort of household that would find it most useful.", "audience")])
def test_the_kind_of_text_asked_for(question: str, kind: str) -> None:
    assert asked(question, "box") == kind


def test_a_politer_rewrite_asks_for_the_same_thing_as_a_favour() -> None:
    text = politer("Your timesheet is late again. Fix it now!", random.Random(2))
    assert re.search(r"please|would you|could you", text, re.I) and re.search(r"thank|appreciate", text, re.I)
    assert "timesheet is late" in text and "fix it" in text.lower() and not re.search(r"\bnow\b|!.", text)


@pytest.mark.parametrize(("wrong", "right"), [
    ("There going home early.", "They're going home early."), ("Your leaving too soon.", "You're leaving too soon."),
    ("The mens coats were wet.", "The men's coats were wet."), ("It was to late.", "It was too late.")])
def test_more_common_slips_are_corrected(wrong: str, right: str) -> None:
    assert corrected(wrong, random.Random(0)) == right


def test_a_noun_after_your_is_no_slip() -> None:
    assert not corrected("Your morning walk is long.", random.Random(0)).startswith("You're")


def test_a_two_part_question_gets_a_sentence_for_each_part() -> None:
    question = "What went wrong for the guest, and what should the hotel do about it?"
    assert asked_parts(question) == ["What went wrong for the guest", "what should the hotel do about it"]
    text = open_answer(question, ["The heating was broken all week and nobody came to look at it."],
                       random.Random(3))
    first, second = re.split(r"(?<=\.)\s", text)
    assert "heating" in first and second.startswith("The hotel should")


def test_a_reason_names_the_selects_visible_option_and_the_scales_subject() -> None:
    html = ("<p>A photo of a harbour at dawn</p><p>How well can you see the boats?</p><select name=q_0 required>"
            "<option value=v1>1 - hidden in fog</option><option value=v2>2</option><option value=v3>3</option>"
            "<option value=v4>4 - crystal sharp</option></select><p>Why that score? At least 10 words.</p>"
            "<textarea name=why_0 required></textarea>")
    for p, profile in enumerate(HONEST_PROFILES):
        values = fill_unhinted(new_worker(profile, {}, random.Random(p)), form_fields(html), html, {},
                               random.Random(p))
        assert re.search(r"fog|sharp", values["why_0"]) and not re.search(r"\bv\d\b", values["why_0"]), values
        assert len(values["why_0"].split()) >= 10


def test_a_text_cut_to_a_word_limit_ends_on_no_stub() -> None:
    from flows.sim.people.stated_limits import within

    cut = within("The lift is closed for two weeks; residents who need help can call the office on 0161.", 9, None)
    assert len(cut.split()) <= 9 and cut == "The lift is closed for two weeks."
    assert not within("Water is off from nine so the boiler can be serviced soon.", 10, None).endswith(" be.")


def test_a_where_and_how_often_question_gets_a_place_and_a_frequency() -> None:
    text = open_answer("Where would you use this, and how often?", ["A lunchbox with three trays and a seal."],
                       random.Random(4))
    first, second = re.split(r"(?<=\.)\s", text)
    assert first.startswith("I would use it ") and re.search(r"week|morning|evening|weekend", second)


@pytest.mark.parametrize(("question", "limits"), [
    ("Give a reason (10+ words)", (10, None)), ("Use at least ten words.", (10, None)),
    ("Your answer must be 20 words or longer", (20, None)), ("No fewer than 15 words, please", (15, None)),
    ("Maximum: 30 words", (0, 30)), ("In twelve to twenty words", (12, 20))])
def test_stated_word_limits_in_more_wordings(question: str, limits: tuple[int, int | None]) -> None:
    from flows.sim.people.stated_limits import stated

    assert stated(question)[:2] == limits


def test_a_where_part_names_the_place_the_items_text_gives() -> None:
    text = open_answer("What is on, and where is it held?", ["A quiz night is held on Friday in the upstairs hall "
                                                              "of the Swan Inn, with prizes."], random.Random(5))
    assert text.endswith("in the upstairs hall of the Swan Inn.") and "Friday." not in text
