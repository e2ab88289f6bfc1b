"""What a text box asks decides what an honest simulated worker writes: a caption box
gets a description, a "clarify" box names the part of the item it is about, a "why" box gives grounds for
the worker's own answer, a comment on a word uses the word; each in the item's own words."""

from __future__ import annotations

import random

import pytest

from flows.sim.people.choice_reasons import choice_reason
from flows.sim.people.item_writing import asked, framed, spans

POST = "They built a religious building beside the old market and the neighbours complained about the bells."


@pytest.mark.parametrize(("question", "name", "kind"), [
    ("Write a caption for this photo", "caption", "caption"),
    ("Please describe the image", "desc", "caption"),
    ("Clarify what might be discriminatory in the text", "clarification", "clarification"),
    ("Why did you give this rating?", "why", "reason"),
    ("Explain your answer", "explanation", "reason"),
    ("Summarise the abstract in 100 words", "summary", "summary"),
    ("Comment on how the word \"bank\" is used", "note", "word"),
    ("Any comments (optional)", "comment", "remark"),
    ("Your answer", "answer", "answer"),  # the item's own question, answered (asked_details.py)
    ("Your text", "text", ""),
    ("What would you ask the author of this review?", "ask_author", "question"),
    ("Who would find this useful? Why?", "who_useful", "audience"),  # a question mark between who and why
    ("Who would use this app?", "users", "audience"),
    ("A short subject line for the memo (optional)", "subject", "title"),
])
def test_the_kind_asked_comes_from_the_label_and_name(question: str, name: str, kind: str) -> None:
    assert asked(question, name) == kind


def test_each_kind_is_written_in_the_items_words() -> None:
    own = set(POST.lower().replace(".", "").split())
    for seed in range(20):
        rng = random.Random(seed)
        why = choice_reason("offensive", "", spans([POST], rng, 3), rng)
        for text in (framed("clarification", [POST], rng), why, framed("remark", [POST], rng)):
            quoted = text.split('"')[1::2]
            assert quoted and all(set(q.lower().split()) <= own for q in quoted), text  # quotes the item, verbatim
    reasons = [choice_reason("offensive", "", spans([POST], rng, 3), rng) for rng in map(random.Random, range(40))]
    assert any("offensive" in r for r in reasons)  # grounds for the worker's own answer
    assert len(set(reasons)) >= 30  # varied per worker, not a stock sentence
    assert framed("remark", [], random.Random(1)) == "" and spans([], random.Random(1)) == []  # nothing to quote


def test_a_comment_on_a_word_uses_it_even_in_another_form() -> None:
    text = framed("word", ["The baby fell asleep while her father rocked the cradle."], random.Random(2), "rock")
    assert "rock" in text.lower() and "rocked the cradle" in text


def test_the_reading_model_reads_a_cue_word_in_its_forms() -> None:
    from flows.sim.people.content_choice import content_answers

    options = ["positive", "negative", "neutral"]
    assert content_answers(["I loved them from day one"], options) == ["positive"]  # was: no cue read
    assert content_answers(["We were loving every minute of the trip"], options) == ["positive"]
    assert content_answers(["They raised a fund for the school roof"], ["fun", "work"]) is None  # not "fun"


@pytest.mark.parametrize(("question", "word"), [
    ('Comment on how the word "fair" is used in this sentence.', "fair"),
    ("Explain the meaning of the word spring in this sentence", "spring"),
    ("What does the word in bold mean?", ""),  # how the page marks it is not the word
    ("Comment on the word's usage", ""),
    ("Is the term used correctly?", ""),
])
def test_the_word_asked_about(question: str, word: str) -> None:
    from flows.sim.people.item_writing import the_word

    # a word named is commented on; one the page only marks, asked what it means, is explained (own_answers.py)
    kind = "meaning" if not word and "mean" in question else "word"
    assert the_word(question) == word and asked(question, "note") == kind


def test_a_word_the_item_sets_apart_is_the_one_commented_on() -> None:
    from flows.sim.people.item_writing import marked_word

    sentence = 'We sat on the river "bank" and watched the boats.'
    assert marked_word([sentence]) == "bank"
    assert "bank" in framed("word", [sentence], random.Random(1), marked_word([sentence]))


@pytest.mark.parametrize(("sentence", "fixed"), [
    ("The printers on the second floor was replaced on Friday.", "The printers on the second floor were replaced"),
    ("Each of the rooms have a view of the sea.", "Each of the rooms has a view"),
    ("He has went to the shop.", "He has gone to the shop."),
    ("We seen the film last night.", "We saw the film"),
    ("Me and the finance team are moving.", "The finance team and I are moving."),
    ("My husband and me would like a table.", "My husband and I would like"),
    ("There is less people on the train since May.", "There are fewer people on the train"),
    ("She is taller then her brother.", "taller than her"),
    ("There is a cat.", "There is a cat"),  # a right "There is" is no misspelt "Their is"
    ("I recieved the parcel.", "I received the parcel."),
])
def test_a_correction_fixes_the_sentences_mistake(sentence: str, fixed: str) -> None:
    from flows.sim.people.corrections import corrected

    assert corrected(sentence, random.Random(1)).startswith(fixed) or fixed in corrected(sentence, random.Random(1))


def test_a_question_for_the_author_quotes_one_of_the_items_clauses() -> None:
    review = "The hotel room was spotless, but the breakfast ran out of eggs by eight."
    asked_back = {framed("question", [review], random.Random(seed)) for seed in range(12)}
    assert all(q.endswith("?") for q in asked_back) and len(asked_back) >= 5, asked_back
    assert all("the breakfast ran out of eggs by eight" in q or "hotel room was spotless" in q for q in asked_back)


def test_a_who_and_why_says_what_the_item_does_in_its_own_words() -> None:
    from flows.sim.people.item_writing import audience

    text = audience(["ThermoMug", "A travel mug that keeps coffee hot for six hours."], random.Random(3), 10)
    assert "it keeps coffee hot for six hours" in text and "who needs a travel mug" in text, text


def test_a_one_sentence_summary_is_one_sentence_and_a_first_person_text_is_retold() -> None:
    from flows.sim.people.summaries import sentences, summary

    story = ("The council voted to collect rubbish every two weeks. Officials say it saves 400000 pounds a year. "
             "Residents have until March to order a larger bin.")
    assert all(len(sentences(summary([story], random.Random(s), 25, one=True))) == 1 for s in range(10))
    told = summary(["\"I bought these shoes for my first marathon and the sole split after a week of training.\""],
                   random.Random(1), 12)
    assert "they bought" in told.lower() and "sole split" in told and '"' not in told, told
