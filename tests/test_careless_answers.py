"""The simulator's careless profiles on a page hitflow did not write, field by field kind: canned abusers paste
stock answers, rushed workers click at random and leave sliders where the page put them, copy pasters paste the
item's own text, constant raters give one extreme."""

from __future__ import annotations

import random

from flows.core.pages.form_spec import slider_start
from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.people.careless_answers import STOCK_ANSWERS
from flows.sim.people.crowd_model import PROFILE_DEFAULTS, Worker

REVIEWS = ["The kettle boils fast and the handle stays cool, I love it.",
           "The lamp flickers and the switch broke after a week of use.",
           "The rucksack is fine: roomy, but the zips are stiff and the straps thin.",
           "The blender is loud, yet it crushes ice in seconds and cleans easily.",
           "The umbrella folded in the first gust of wind, very disappointing.",
           "The tent went up in ten minutes and stayed dry all night long."]
ITEM = """<section><h3>Review {i}</h3><input type="hidden" name="item_id_{i}" value="rev-{i}">
<blockquote>{text}</blockquote>
<p>How does the writer feel?</p>
<label><input type="radio" name="feeling_{i}" value="positive" required> positive</label>
<label><input type="radio" name="feeling_{i}" value="mixed"> mixed</label>
<label><input type="radio" name="feeling_{i}" value="negative"> negative</label>
<p><label for="sure_{i}">How sure are you? (1-7)</label></p>
<input type="range" id="sure_{i}" name="sure_{i}" min="1" max="7" step="1" required>
<fieldset><legend>Which topics does it mention?</legend>
<label><input type="checkbox" name="topics_{i}" value="price"> price</label>
<label><input type="checkbox" name="topics_{i}" value="quality"> quality</label>
<label><input type="checkbox" name="topics_{i}" value="delivery"> delivery</label></fieldset>
<p><label for="why_{i}">Why did you choose this feeling?</label></p>
<textarea id="why_{i}" name="why_{i}" required minlength="15" maxlength="300"></textarea></section>"""


def page(texts: list[str] = REVIEWS) -> str:
    items = "".join(ITEM.format(i=i, text=t) for i, t in enumerate(texts))
    return f'<form action="/submit"><p>Read each review and answer the questions.</p>{items}</form>'


def worker(profile: str, n: int = 0) -> Worker:
    return Worker(f"W{profile}{n}", profile, dict(PROFILE_DEFAULTS[profile]), 1000, 99, skill=0.9)


def fill(w: Worker, seed: int = 0, html: str = "") -> dict[str, str]:
    html = html or page()
    return fill_form(w, form_fields(html), page_rules(html), 0, 100, {}, random.Random(seed), html=html)


def answers(profile: str, field: str, workers: int = 8) -> list[str]:
    """``field`` on every item, worker by worker: each worker's page filled once (it answers every item)."""
    pages = [fill(worker(profile, n), seed=n) for n in range(workers)]
    return [answered[f"{field}_{i}"] for answered in pages for i in range(len(REVIEWS))]


def test_canned_abusers_paste_a_few_stock_answers_whatever_the_item() -> None:
    for n in range(6):
        answered = fill(worker("canned_abuser", n), seed=n)
        texts = [answered[f"why_{i}"] for i in range(len(REVIEWS))]
        stock = [t for t in texts if t in STOCK_ANSWERS]
        assert len(stock) >= len(texts) // 2  # canned_rate 0.8 of the boxes
        assert len(set(stock)) <= 2 and all(len(t) >= 15 for t in stock)  # their habit, long enough for the box
    honest = answers("diligent", "why", 2)
    assert not set(honest) & set(STOCK_ANSWERS)


def test_rushed_workers_click_at_random_and_honest_ones_follow_the_item() -> None:
    def agreement(profile: str) -> float:
        """How often a worker's choice is the one most workers of the profile gave the item (its latent answer
        for careful people; for random clickers, nothing in particular)."""
        pages = [fill(worker(profile, n), seed=n) for n in range(12)]  # a worker's page answers every item
        per_item = [[answered[f"feeling_{i}"] for answered in pages] for i in range(len(REVIEWS))]
        return sum(max(a.count(o) for o in set(a)) for a in per_item) / sum(len(a) for a in per_item)

    assert agreement("diligent") > 0.75
    assert agreement("speeder") < 0.6  # three options: a random click agrees with the commonest about half the time


def test_rushed_workers_leave_a_slider_where_the_page_put_it_half_the_time() -> None:
    """Where the page lets them: an optional slider is left at its start half the time; a required one the page
    refuses at its start, so they drag it anywhere else."""
    optional = page().replace('step="1" required>', 'step="1">')
    pages = [fill(worker("speeder", n), seed=n, html=optional) for n in range(10)]
    slid = [answered[f"sure_{i}"] for answered in pages for i in range(len(REVIEWS))]
    untouched = slid.count("4")  # a 1-7 slider without a value starts at 4
    assert 0.35 * len(slid) < untouched < 0.75 * len(slid)
    assert {s for s in slid if s != "4"} <= {"1", "2", "3", "5", "6", "7"} and len(set(slid)) >= 4
    required = answers("speeder", "sure", 10)
    assert "4" not in required and len(set(required)) >= 4


def test_a_slider_starts_where_a_browser_puts_it() -> None:
    assert slider_start(None, 1, 7, 1) == 4
    assert slider_start(None, 1, 10, 1) == 6  # 5.5 rounds up, as a browser sanitises it
    assert slider_start(35, 0, 100, 5) == 35  # the page's own value


def test_constant_raters_give_one_answer_and_tick_one_problem_on_every_item() -> None:
    for n in range(3):
        values = fill(worker("contrarian", n), seed=n)
        assert len({values[f"feeling_{i}"] for i in range(len(REVIEWS))}) == 1
        assert {values[f"sure_{i}"] for i in range(len(REVIEWS))} == {"1"}
        assert {values[f"topics_{i}"] for i in range(len(REVIEWS))} == {"price"}


def test_copy_pasters_paste_the_items_own_text_where_it_shows_some() -> None:
    values = fill(worker("copy_paster"))
    for i, review in enumerate(REVIEWS):
        assert values[f"why_{i}"] == review



def test_how_careless_text_arrives_in_the_pages_record() -> None:
    """The item's text copied back is a paste from the page itself, a long stock answer a paste from a list kept
    elsewhere, a word or two typed (the telemetry record's truth: typing_model.caption_origin)."""
    from flows.sim.people.typing_model import caption_origin

    paster = worker("copy_paster")
    values = fill(paster)
    assert caption_origin(paster, "rev-0", values["why_0"], canned=False) == "page"
    assert caption_origin(paster, "rev-0", "A sentence it never copied.", canned=False) == "clipboard"
    canned = worker("canned_abuser")
    assert caption_origin(canned, "rev-0", "Nothing is missing, it is good.", canned=False) == "list"
    assert caption_origin(canned, "rev-0", "ok", canned=False) == "typed"
