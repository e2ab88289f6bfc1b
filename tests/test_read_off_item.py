"""What an honest simulated worker reads off a text item for a number box or a group of ticks: the figure the
item states for the quantity asked, and the aspects its text speaks of."""

from __future__ import annotations

import random

import pytest

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker
from flows.sim.people.stated_figures import stated_figure

DIARY = "Went to bed late again and slept from 11pm to 6:30am, then had three cups of coffee at work."
REVIEW = "The curry was delicious, but at £19 it felt overpriced and we waited forty minutes for a table."


@pytest.mark.parametrize(("question", "text", "figure"), [
    ("Hours slept", DIARY, 7.5), ("How many cups of coffee?", DIARY, 3.0), ("Total paid (£)", REVIEW, 19.0),
    ("How long did they sleep, in hours?", "Asleep 10:30pm until 7am.", 8.5),
    ("Age of the runner", "A 64-year-old finished first.", 64.0),
    ("Rating out of 10", DIARY, None), ("Hours slept", "I slept badly.", None),  # nothing stated: not made up
])
def test_the_figure_stated_for_the_quantity_asked(question: str, text: str, figure: float | None) -> None:
    assert stated_figure(question, [text]) == figure


def page(text: str, controls: str) -> str:
    return f"<html><body><p>Entry:</p><blockquote>{text}</blockquote>{controls}</body></html>"


def test_an_honest_number_box_follows_the_item() -> None:
    html = page(DIARY, '<p>Hours slept</p><input type="number" name="hours" min="0" max="24" step="0.5" required>')
    got = [fill_unhinted(new_worker(p, {}, random.Random(s)), form_fields(html), html, {}, random.Random(s))["hours"]
           for p in HONEST_PROFILES for s in range(5)]
    assert sum(g == "7.5" for g in got) >= 0.8 * len(got), got


def test_honest_ticks_follow_what_the_review_mentions() -> None:
    boxes = "".join(f'<label><input type="checkbox" name="about_{label.split()[0].lower()}"> {label}</label>'
                    for label in ("Price", "Staff", "Food", "Cleanliness", "Waiting time"))
    html = page(REVIEW, f"<p>Which aspects does this review mention?</p>{boxes}")
    said = {"about_price", "about_food", "about_waiting"}
    agree = []
    for p in HONEST_PROFILES:
        for s in range(5):
            values = fill_unhinted(new_worker(p, {}, random.Random(s)), form_fields(html), html, {}, random.Random(s))
            agree += [bool(values[name]) == (name in said) for name in values]
    assert sum(agree) >= 0.85 * len(agree)  # the item's text, with an honest person's few slips
