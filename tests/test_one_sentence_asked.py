"""A page that asks for its answer "in one sentence" holds its answers to it: QC reads the limit from the page's
words as it reads a stated word count, flags a longer answer for a person to look at, and the dry run says so."""

from __future__ import annotations

import pandas as pd
import pytest

from flows.custom.custom_text_qc import field_submit_rules, limit_lines, text_flags
from qc.asked_limits import stated_one_sentence
from qc.custom_rules import CUSTOM_POLICY, CUSTOM_RULES

ASKED = "Summarise this complaint in one sentence (no more than 25 words)."


@pytest.mark.parametrize("said", [ASKED, "Write a one-sentence summary.", "Describe it in a single sentence.",
                                  "Give a single-sentence reply.", "Write one short sentence about the photo."])
def test_the_ways_a_page_asks_for_one_sentence(said: str) -> None:
    assert stated_one_sentence(said)


@pytest.mark.parametrize("said", ["Write at least one sentence.", "Use one or two sentences.",
                                  "One sentence or more, please.", "Explain in more than one sentence.",
                                  "Write 2-3 sentences.", "Read the one sentence below and rate it.",
                                  "List three causes, separated by commas, each in one sentence.", ""])
def test_a_minimum_a_range_or_the_shown_texts_sentence_is_no_limit_of_one(said: str) -> None:
    assert not stated_one_sentence(said)


def _answers(texts: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"assignment_id": [f"a{k}" for k in range(len(texts))],
                         "worker_id": [f"w{k}" for k in range(len(texts))], "image_id": "i1", "field": "summary",
                         "kind": "text", "answer": texts, "telemetry": "", "telemetry_field": ""})


def test_a_second_sentence_is_flagged_for_review_where_the_page_asks_one() -> None:
    texts = ["The parcel came late and the box was crushed.",
             "The parcel came late. The box was crushed and the customer wants a refund."]
    params = {"page_text": "", "field_questions": {"summary": ASKED}}
    flags = pd.concat(text_flags(_answers(texts), params, CUSTOM_RULES))
    assert flags.loc[flags["rule"] == "one_sentence", "worker_id"].tolist() == ["w1"]
    unasked = {"page_text": "", "field_questions": {"summary": "Summarise this complaint."}}
    assert "one_sentence" not in set(pd.concat(text_flags(_answers(texts), unasked, CUSTOM_RULES))["rule"])
    assert "one_sentence" in CUSTOM_POLICY.review_rules and "one_sentence" not in CUSTOM_POLICY.reject_rules
    assert field_submit_rules({"one_sentence": True}, "Summarise.").one_sentence


def test_the_dry_run_says_where_the_limit_of_one_sentence_comes_from() -> None:
    params = {"page_text": "", "field_questions": {"summary": ASKED}}
    assert "one sentence (the page's words)" in limit_lines(params, CUSTOM_RULES, ["summary"])[0]
    own = {"page_text": "", "field_questions": {"summary": "Summarise."}, "fields": {"summary": {"one_sentence": True}}}
    assert "one sentence ([qc.fields.summary] one_sentence)" in limit_lines(own, CUSTOM_RULES, ["summary"])[0]
