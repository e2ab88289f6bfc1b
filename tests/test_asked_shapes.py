"""An honest simulated worker answers in the shape a box's own words ask, on pages of our own: a name of the stated
words that never holds the question's words, hashtags with '#', emoji only, a list of the stated count, an amount in
words, the item put in the past tense, a line whose words start with the sound asked, a present and why."""

from __future__ import annotations

import random
import re

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.asked_shapes import echoes_ask
from flows.sim.people.crowd_model import new_worker
from flows.sim.people.made_texts import number_words

LINE = '<input type="text" name="answer_0" maxlength="80" required>'
TEXTAREA = '<textarea name="answer_0" required></textarea>'


def answers(item: str, ask: str, seeds: int = 6, box: str = LINE, after: str = "") -> list[str]:
    """A diligent worker's answer to ``ask`` about ``item`` (a box under it, ``after``: a hint below the box)."""
    html = (f'<form><input type="hidden" name="item_id_0" value="x"><div class="item">{item}</div>'
            f"<p><b>{ask}</b></p>{box}{after}"
            '<p>Did you enjoy this task?</p><input type="radio" name="fun_0" value="yes"> Yes</form>')
    return [fill_unhinted(new_worker("diligent", {}, random.Random(s)), form_fields(html), html, {},
                          random.Random(7 * s + 1))["answer_0"] for s in range(seeds)]


def test_a_name_of_the_stated_words_never_holds_the_questions_words() -> None:
    swatch = '<div style="background: #2E5E8C; height: 90px"></div><p>Colour family: <b>blue</b> (#2E5E8C)</p>'
    for said in answers(swatch, 'Make up a name for this paint. 2 to 4 words. Don\'t use the word "blue".'):
        assert 2 <= len(said.split()) <= 4 and not re.search(r"\d|\bwords?\b|\bblue\b", said, re.I), said


def test_three_hashtags_are_three_tags_from_the_post() -> None:
    post = ("Cracking morning at the Hexham 10k! 14 Harriers ran, three PBs and Sue took first in her age group. "
            "Cake in the clubhouse was well earned.")
    for said in answers(post, "Suggest three hashtags for this post.",
                        after="<p>Each hashtag starts with # and has no spaces in it. Put a space between them.</p>"):
        tags = said.split()
        assert len(tags) == 3 and all(re.fullmatch(r"#\w+", t) for t in tags), said
        assert any(t[1:].lower() in post.lower() for t in tags), said


def test_emoji_only_within_the_stated_count() -> None:
    plot = ("Two city accountants inherit a goat farm in Wales and must win the village show within a month, "
            "despite never having touched a goat.")
    for said in answers(plot, "Retell the plot in 3 to 6 emoji (emoji only, no words)"):
        assert not re.search(r"[A-Za-z0-9]", said) and 3 <= len(said.split()) <= 6 and "🐐" in said, said


def test_a_list_of_three_is_three_short_parts_separated_as_asked() -> None:
    site = "A quiet woodland site beside a river, with campfires allowed in the fire pits."
    for said in answers(site, "Three sounds you would hear at night here (separated by commas)"):
        parts = [p.strip() for p in said.split(",")]
        assert len(parts) == 3 and all(1 <= len(p.split()) <= 3 for p in parts) and len(set(parts)) == 3, said


def test_an_amount_in_words_is_the_items_amount_not_the_examples() -> None:
    cheque = "Pay: J. Okafor ______ pounds <b>£120.50</b>"
    ask = ('Write the amount in words, as you would on the "pounds" line. For example, for £42.15 you might write '
           '"Forty-two pounds and 15p". No more than 15 words.')
    for said in answers(cheque, ask):
        assert said.lower().startswith("one hundred and twenty pounds") and "50" in said, said
        assert len(said.split()) <= 15 and "forty" not in said.lower(), said
    assert number_words(2316) == "two thousand three hundred and sixteen" and number_words(45) == "forty-five"


def test_a_rewrite_the_page_asks_in_the_past_tense_puts_the_verbs_in_the_past() -> None:
    page = "<p>Rewrite each live update as it would appear in tomorrow's paper: past tense, one sentence.</p>"
    for update, past in (("The mayor cuts the ribbon on the new footbridge at noon.", "cut"),
                         ("Town councillors vote 14 to 9 to ban cars from the High Street.", "voted"),
                         ("Trains between Guildford and Waterloo are cancelled this evening.", "were")):
        for said in answers(page + f"<p>LIVE: {update}</p>", "Rewritten for tomorrow's paper:", seeds=3):
            assert f" {past} " in f" {said} ", said
            assert said.split()[:2] == update.split()[:2], said  # the update's own words kept


def test_a_line_on_one_sound_has_most_words_starting_with_it() -> None:
    ask = ("Now make up your own tongue twister (not this one) with 6 to 12 words, where most of the words start "
           'with the sound "s".')
    for said in answers("Six sleek swans swam swiftly southwards.", ask, box=TEXTAREA):
        words = re.findall(r"[a-z]+", said.lower())
        assert 6 <= len(words) <= 12 and sum(w.startswith("s") for w in words) > len(words) / 2, said
        assert "swans" not in words, said


def test_a_present_is_suggested_with_why_it_suits_the_person() -> None:
    note = "My best mate Jen has just moved into her first flat. She loves baking bread and listens to old records."
    for said in answers(note + " Budget: £20", "Suggest ONE present and say why it would suit them",
                        box=TEXTAREA,
                        after="<p>Name one thing you could buy within the budget, and say why. 15 to 40 words.</p>"):
        assert re.search(r"\bbecause\b", said) and "baking" in said and 15 <= len(said.split()) <= 40, said


def test_a_box_the_simulator_cannot_answer_never_gets_its_own_words_back() -> None:
    ask = "How do you think people who live there say it? Write it the way it sounds."
    for said in answers("<p>Place name: <b>Worcester</b></p>", ask):
        assert not echoes_ask(said, ask) and "live there" not in said, said
    assert echoes_ask("2 to 4 words", "Make up a name for this paint. 2 to 4 words.")
    assert not echoes_ask("Harbour Mist", "Make up a name for this paint. 2 to 4 words.")
