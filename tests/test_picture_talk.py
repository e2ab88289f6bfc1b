"""A picture's quality named on a page that shows no picture ("A blurry photo of ..." as the likely cause of a dog's
barking) is text written for another task: flagged for a person, and as a habit for the block; a word such as
"quality" about the item itself ("poor quality wiring") is not, and on a page that shows a picture and does not
forbid quality talk, naming blur is still no fault."""

from __future__ import annotations

import pandas as pd

from flows.custom.custom_text_qc import page_reading, text_flags
from qc.custom_rules import CUSTOM_RULES

ODD = ["A blurry photo of he has done this all his life.", "A low quality, blurred shot of the dog is bored at home.",
       "A blurry photo of she is scared of the new neighbours.", "He is older now and his hips hurt on the stairs."]
HONEST = ["Poor quality food can upset a dog's stomach.", "He is bored because nobody walks him in the day.",
          "She is scared of the new neighbours' loud dog.", "His hips hurt on the stairs now that he is older."]
TEXT_PAGE = "<form><p>Read the owner's message.</p><div>%%MASK%%</div><p>What is the likely cause?</p>" \
            "<textarea name='likely_cause_0'></textarea></form>"


def frame() -> pd.DataFrame:
    rows = [(w, f"i{k}", t) for w, texts in (("WODD", ODD), ("W1", HONEST)) for k, t in enumerate(texts)]
    return pd.DataFrame([{"assignment_id": f"A{w}{i}", "worker_id": w, "image_id": i, "field": "likely_cause",
                          "kind": "text", "answer": t, "telemetry": "", "telemetry_field": "likely_cause_0"}
                         for w, i, t in rows])


def flagged(shows_picture: bool) -> dict[str, set[str]]:
    params = {"page_text": "Read the owner's message. Say the likely cause in one sentence.",
              "random_sample_share": 0.0, "shows_picture": shows_picture}
    flags = pd.concat(text_flags(frame(), params, CUSTOM_RULES))
    rules = ("quality_words", "quality_words_rate")
    return {rule: set(flags.loc[flags["rule"] == rule, "worker_id"]) for rule in rules}


def test_a_pictures_quality_named_where_no_picture_is_shown_is_flagged_and_a_habit_of_it_too() -> None:
    assert flagged(shows_picture=False) == {"quality_words": {"WODD"}, "quality_words_rate": {"WODD"}}


def test_on_a_page_showing_a_picture_naming_blur_is_no_fault_unless_the_page_forbids_it() -> None:
    assert flagged(shows_picture=True) == {"quality_words": set(), "quality_words_rate": set()}


def test_a_page_shows_a_picture_by_an_image_a_video_or_a_crowd_image_element_and_an_unread_page_may() -> None:
    assert page_reading(TEXT_PAGE)["shows_picture"] is False
    assert page_reading(TEXT_PAGE.replace("<div>", "<img src='%%MASK%%'><div>"))["shows_picture"] is True
    assert page_reading("<crowd-form><crowd-bounding-box src='x' name='boxes'></crowd-bounding-box></crowd-form>"
                        )["shows_picture"] is True
    assert page_reading("")["shows_picture"] is True  # a template that could not be rendered masked
