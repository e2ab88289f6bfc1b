"""Quoting what the page shows with an item is no template: two items under one
caption, and honest workers who quote it on both, are not flagged by shared_template or duplicate_text;
one item's caption pasted onto other items still is. Nor is one answer on two items that show one text
under two names (qc/shown_text.py's shown_as)."""

from __future__ import annotations

import pandas as pd

from qc.consensus_rules import shared_template
from qc.shown_text import quotes_own_item, shown_as
from qc.worker_rules import duplicate_text

SOUP = "A bowl of tomato soup next to a slice of toasted bread."
SHOWN = {"r03": [SOUP], "r07": [SOUP], "r04": ["Commuters waiting on a crowded platform for the morning train."],
         "r05": ["A hot air balloon drifting over green hills at sunrise."]}


def frame(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame([{"assignment_id": f"a{k}", "worker_id": w, "image_id": i, "caption": t, "is_precanned": False}
                         for k, (w, i, t) in enumerate(rows)])


def test_quoting_a_caption_two_items_show_is_not_a_template() -> None:
    quote = f'The caption says "{SOUP[:-1].lower()}", and that is what the photo shows.'
    df = frame([("W1", "r03", quote), ("W1", "r07", quote), ("W2", "r03", SOUP), ("W2", "r07", SOUP)])
    assert quotes_own_item(df["caption"].tolist(), df["image_id"].tolist(), {"item_text": SHOWN}) == [True] * 4
    without = shared_template(df, {})
    assert set(without["worker_id"]) == {"W1", "W2"}  # the rule as it was: one text on two images
    assert set(duplicate_text(df, {})["worker_id"]) == {"W1", "W2"}
    assert shared_template(df, {"item_text": SHOWN}).empty
    assert duplicate_text(df, {"item_text": SHOWN}).empty


def test_one_items_caption_pasted_on_others_is_still_a_template() -> None:
    df = frame([("P", "r03", SOUP), ("P", "r04", SOUP), ("P", "r05", SOUP), ("Q", "r04", SOUP)])
    flagged = shared_template(df, {"item_text": SHOWN})
    assert sorted(flagged["image_id"]) == ["r04", "r04", "r05"]  # not r03, whose caption it is
    dup = duplicate_text(df, {"item_text": SHOWN})
    assert list(dup["worker_id"]) == ["P"] and int(dup["value"].iloc[0]) == 2  # r04 and r05


def test_a_short_run_of_common_words_is_no_quote() -> None:
    said = ["The photo is next to nothing special.", "soup"]
    assert quotes_own_item(said, ["r03", "r03"], {"item_text": SHOWN}) == [False, False]


def test_words_in_quotation_marks_from_the_item_are_a_quote() -> None:
    said = ['Mostly "tomato soup", which decides it.', 'Mostly "tomato soup", which decides it.',
            'Mostly "green hills", which decides it.']
    assert quotes_own_item(said, ["r03", "r07", "r03"], {"item_text": SHOWN}) == [True, True, False]
    df = frame([("W1", "r03", said[0]), ("W2", "r07", said[1])])
    assert shared_template(df, {"item_text": SHOWN}).empty
    assert len(shared_template(df, {})) == 2


def test_a_short_answer_in_a_row_of_its_items_text_is_about_that_item() -> None:
    shown = {"n1": ["A new cafe opened near the old mill; its owner hired six people."],
             "n2": ["A new cafe opened near the old mill; its owner praised the library."], "n3": ["Roadworks."],
             "n4": ["The council voted to close the swimming pool for repairs this winter."]}
    said = ["New cafe opened.", "New cafe opened.", "New cafe opened.", "Cafe near mill"]
    assert quotes_own_item(said, ["n1", "n2", "n3", "n1"], {"item_text": shown}) == [True, True, False, False]
    df = frame([("H", "n1", said[0]), ("H", "n2", said[1]), ("T", "n3", said[2]), ("T", "n1", "Cafe near mill"),
                ("T", "n4", "Cafe near mill")])
    flagged = shared_template(df, {"item_text": shown, "shared_template_min_images": 2})
    assert set(flagged["worker_id"]) == {"T"}  # a headline both items' own words make is no template


REVIEW = "I love it: it heats up fast and the handle stays cool. Excellent value."
REVIEWS = {"t1": [f"The toaster: {REVIEW}"], "t2": [f"The blender: {REVIEW}"],
           "t3": [f"The stainless steel kettle: {REVIEW}"],
           "u1": ["The tent: The handle snapped in the first week and support ignored my emails."],
           "u2": ["The lamp: Cheap plastic that smells, and half the parts were missing. Terrible."]}


def test_one_review_under_two_names_is_one_thing_shown() -> None:
    items = ["t1", "t2", "u1", "t3", "u2", "t2"]
    assert shown_as(items, {"item_text": REVIEWS}) == ["t1", "t1", "u1", "t1", "u2", "t1"]
    assert shown_as(["t1", "t2"], {}) == ["t1", "t2"]  # nothing shown: every item its own
    # minimal pairs stay two items: one word apart in a short sentence is another sentence to judge
    pairs = {"m1": ["Rate the sentence: The cat sat on the mat."], "m2": ["Rate the sentence: The dog sat on the mat."]}
    assert shown_as(["m1", "m2"], {"item_text": pairs}) == ["m1", "m2"]


def test_the_same_answer_on_one_review_shown_twice_is_no_template_or_copy() -> None:
    said = "Happy with it, mainly because the handle stays cool."
    df = frame([("H", "t1", said), ("H", "t2", said), ("G", "t3", said), ("P", "u1", "Great product."),
                ("P", "u2", "Great product."), ("P", "t1", "Great product.")])
    params = {"item_text": REVIEWS}
    assert set(shared_template(df, {})["worker_id"]) == {"H", "G", "P"}  # by images alone, all three
    assert set(shared_template(df, params)["worker_id"]) == {"P"}  # one text on three reviews that differ
    assert set(duplicate_text(df, {})["worker_id"]) == {"H", "P"}
    assert set(duplicate_text(df, params)["worker_id"]) == {"P"}
