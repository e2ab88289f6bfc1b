"""A value beside a box saying there is none ("The text gives no date"): an honest simulated worker gives exactly
one of the two, as such a page's own check asks, and a known tick of the box wins over a value made up."""

from __future__ import annotations

import random

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.pages.none_boxes import none_pairs, settle
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker

ITEM = ('<div><p>{text}</p><p>When must they answer?</p><input type="date" name="due_{k}">'
        '<label><input type="checkbox" name="undated_{k}" value="y"> The text gives no date</label>'
        '<p>How many rooms does it name?</p><input type="number" name="rooms_{k}" min="0" max="20">'
        '<label><input type="checkbox" name="no_rooms_{k}" value="on"> None named</label>'
        '<p>Anything else?</p><label><input type="checkbox" name="urgent_{k}" value="1"> Urgent</label></div>')
PAGE = '<form>{}<input type="submit"></form>'
TEXTS = ("Please reply by 3 March about the flat.", "We have received your letter about the two bedrooms.")


def page() -> str:
    return PAGE.format("".join(ITEM.format(k=k, text=t) for k, t in enumerate(TEXTS)))


def test_pairs_are_read_from_a_box_whose_label_says_none_beside_an_optional_value() -> None:
    pairs = none_pairs(form_fields(page()))
    assert [(v, b) for v, b, _ in pairs] == [("due_0", "undated_0"), ("rooms_0", "no_rooms_0"),
                                               ("due_1", "undated_1"), ("rooms_1", "no_rooms_1")]
    assert pairs[0][2] == "y"


def test_every_honest_worker_gives_the_value_or_ticks_none_never_both_nor_neither() -> None:
    html = page()
    for p, profile in enumerate(HONEST_PROFILES):
        for s in range(4):
            worker = new_worker(profile, {}, random.Random(100 * p + s))
            values = fill_unhinted(worker, form_fields(html), html, {}, random.Random(10 * p + s))
            for value, box in (("due", "undated"), ("rooms", "no_rooms")):
                for k in range(len(TEXTS)):
                    given, ticked = bool(values.get(f"{value}_{k}")), bool(values.get(f"{box}_{k}"))
                    assert given != ticked, (profile, value, k, values)


def test_a_known_tick_of_the_box_clears_the_value_and_an_unknown_one_keeps_it() -> None:
    pairs = [("due_0", "undated_0", "y"), ("due_1", "undated_1", "y")]
    values = {"due_0": "2026-03-03", "undated_0": "y", "due_1": "2026-03-04", "undated_1": "y"}
    settle(values, pairs, {"undated_0": "y"}.get)
    assert values == {"due_0": "", "undated_0": "y", "due_1": "2026-03-04", "undated_1": ""}
