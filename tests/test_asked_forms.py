"""A box whose asking sentence asks for a new piece of text about the item gets it in the form asked, from the item's
relevant part and within the stated limits: a quote copied word for word, a line that rhymes with the word named, what
a joke plays on, a message to someone the item names, the worker's own hurdle with a piece of advice."""

from __future__ import annotations

import random
import re

from flows.sim.people.asked_about import asked_form, rhymes

REVIEW = ("Took me about an hour and a half on my own. The instructions were clear, just pictures but every step made "
          "sense. Arrived with one panel cracked. Once I had everything it went together in under an hour.")


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'-]+", text.lower())


def test_a_quote_is_an_unbroken_run_of_the_item_within_the_stated_words() -> None:
    q = "3. Copy the phrase from the review that best shows how easy it was to put together, between 3 and 15 words."
    said = asked_form(q, [REVIEW], random.Random(1), 3, 15)
    assert 3 <= len(_words(said)) <= 15 and " ".join(_words(said)) in " ".join(_words(REVIEW)), said
    assert "together" in said  # the sentence sharing the question's words, not the first one


def test_a_line_asked_to_rhyme_with_line_2_ends_on_a_rhyme_and_repeats_no_line() -> None:
    q = "Write the missing fourth line. It must rhyme with the last word of line 2. No more than 12 words."
    lines = ["Today you're turning thirty-two", "And we have baked your favourite cake", "So make a wish"]
    for seed in range(10):
        said = asked_form(q, lines, random.Random(seed), 0, 12)
        assert _words(said)[-1].endswith("ake") and _words(said)[-1] != "cake" and len(_words(said)) <= 12, said
    assert rhymes("year")[:3] and all(w.endswith("ear") for w in rhymes("year"))
    assert all(w.endswith("orning") or w.endswith("rning") for w in rhymes("morning"))


def test_an_explained_joke_names_the_word_its_punchline_plays_on_without_repeating_it() -> None:
    q = "Explain the joke to a learner who didn't get it. Write one or two sentences, between 5 and 30 words."
    jokes = {"Why did the scarecrow win an award? Because he was outstanding in his field.": "field",
             "What do you call a bear with no teeth? A gummy bear.": "gummy",
             "I would tell you a joke about construction, but I'm still working on it.": "working on"}
    for joke, word in jokes.items():
        said = asked_form(q, [joke], random.Random(2), 5, 30)
        assert f'"{word}"' in said and 5 <= len(_words(said)) <= 30, said


def test_a_message_to_someone_names_them_and_one_thing_they_did_in_new_words() -> None:
    q = "Write a thank-you text to Tom. Mention one specific thing they did. No more than 30 words."
    note = ("Tom's first shift. He drove the van on the afternoon delivery round, eleven parcels to housebound "
            "clients, and was back before four.")
    for seed in range(6):
        said = asked_form(q, ["Sat 4 May", note], random.Random(seed), 0, 30)
        assert said.startswith("Thank you, Tom,") and "drove" in said and len(_words(said)) <= 30, said
        runs = {tuple(_words(note)[k:k + 8]) for k in range(len(_words(note)) - 7)}
        assert not any(tuple(_words(said)[k:k + 8]) in runs for k in range(len(_words(said)) - 7)), said


def test_what_makes_advice_hard_for_you_is_said_in_the_workers_own_voice() -> None:
    q = "What, if anything, makes this hard for you? Answer in one sentence of no more than 20 words."
    for seed in range(8):
        said = asked_form(q, ["Turn your central heating thermostat down by one degree."], random.Random(seed), 0, 20)
        assert re.search(r"\b(?:I|me|my)\b", said) and "heating" in said and len(_words(said)) <= 20, said


def test_a_question_asking_none_of_these_forms_is_left_to_the_other_writers() -> None:
    assert asked_form("What is the main point of the review?", [REVIEW], random.Random(1), 0, 20) == ""
    assert asked_form("Explain your answer.", [REVIEW], random.Random(1), 0, 20) == ""


def test_a_new_example_sentence_uses_the_cards_word_without_copying_its_example() -> None:
    q = "Write a new example sentence of your own that uses the word correctly. Between 6 and 25 words."
    card = ["to follow a slow, winding course rather than a straight one",
            "Found in: “The river meanders through the valley for twenty miles before it reaches the sea.”"]
    for seed in range(6):
        said = asked_form(q, card, random.Random(seed), 6, 25)  # (no one-word text: the example's rare word)
        example = _words(card[1])
        runs = {tuple(example[k:k + 8]) for k in range(len(example) - 7)}
        assert "meanders" in _words(said) and 6 <= len(_words(said)) <= 25, said
        assert not any(tuple(_words(said)[k:k + 8]) in runs for k in range(len(_words(said)) - 7)), said
