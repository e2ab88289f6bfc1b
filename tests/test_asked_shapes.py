"""An honest simulated worker answers in the shape a box's own words ask, on pages of our own: hashtags with '#',
emoji only, a list of the stated count; and never the box's own words back."""

from __future__ import annotations

import random
import re

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.asked_shapes import echoes_ask
from flows.sim.people.crowd_model import new_worker

LINE = '<input type="text" name="answer_0" maxlength="80" required>'
TEXTAREA = '<textarea name="answer_0" required></textarea>'


def answers(item: str, ask: str, seeds: int = 6, box: str = LINE, after: str = "") -> list[str]:
    """A diligent worker's answer to ``ask`` about ``item`` (a box under it, ``after``: a hint below the box)."""
    html = (f'<form><input type="hidden" name="item_id_0" value="x"><div class="item">{item}</div>'
            f"<p><b>{ask}</b></p>{box}{after}"
            '<p>Did you enjoy this task?</p><input type="radio" name="fun_0" value="yes"> Yes</form>')
    return [fill_unhinted(new_worker("diligent", {}, random.Random(s)), form_fields(html), html, {},
                          random.Random(7 * s + 1))["answer_0"] for s in range(seeds)]


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
        assert not re.search(r"[A-Za-z0-9]", said) and 3 <= len(said.split()) <= 6, said
    for said in answers("Bake sale on Saturday 🎂 at the church hall ☕", "Sum it up in 3 to 5 emoji"):
        assert said.split()[:2] == ["🎂", "☕"] and 3 <= len(said.split()) <= 5, said


def test_a_box_the_simulator_cannot_answer_never_gets_its_own_words_back() -> None:
    ask = "How do you think people who live there say it? Write it the way it sounds."
    for said in answers("<p>Place name: <b>Worcester</b></p>", ask):
        assert not echoes_ask(said, ask) and "live there" not in said, said
    assert echoes_ask("2 to 4 words", "Make up a name for this paint. 2 to 4 words.")
    assert not echoes_ask("Harbour Mist", "Make up a name for this paint. 2 to 4 words.")


def test_a_list_of_three_is_three_of_the_items_things_separated_as_asked() -> None:
    site = "A quiet woodland site beside a river, with campfires allowed in the fire pits."
    for said in answers(site, "Three things you would pack for a night here (separated by commas)"):
        parts = [p.strip() for p in said.split(",")]
        assert len(parts) == 3 and all(1 <= len(p.split()) <= 3 for p in parts) and len(set(parts)) == 3, said
        assert all(p in site.lower() for p in parts), said
