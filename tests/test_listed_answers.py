"""The answer a question offers ('write "all there"') and short lists where it asks for a list repeat honestly across
items and workers: the same-text rules leave them out, and still count a sentence written on every item."""

from __future__ import annotations

import pandas as pd

from qc.listed_answers import named_answers, run_named_apart

ASKS = 'What does the advert leave out? List the things, separated by commas. If nothing, write "all there".'
PLAIN = "What does the advert leave out?"
RULES = ("duplicate_text", "shared_template")
WRITTEN = {"w1": ["all there", "All there.", "all there"],
           "w2": ["colour, size", "colour, size", "the size and colour"],
           "w3": ["The seller never says what it costs.", "The seller never says what it costs.",
                  "The seller never says what it costs."]}


def frame() -> pd.DataFrame:
    rows = [{"assignment_id": f"{w}-{k}", "worker_id": w, "image_id": f"ad-{k}", "caption": text,
             "is_precanned": False} for w, texts in WRITTEN.items() for k, text in enumerate(texts)]
    return pd.DataFrame(rows)


def flagged(question: str) -> set[str]:
    flags = run_named_apart(frame(), {}, RULES, question)
    return set(flags.loc[flags["rule"].isin(RULES), "worker_id"])


def test_offered_answers_and_short_lists_are_named_sentences_are_not() -> None:
    answers = ["All there.", "colour, size", "volume of water; cooling time", "The seller never says the price."]
    assert named_answers(answers, ASKS) == [True, True, True, False]
    assert named_answers(answers, PLAIN) == [False, False, False, False]


def test_the_same_text_rules_count_only_what_the_question_does_not_make_honest_to_repeat() -> None:
    assert flagged(ASKS) == {"w3"}
    assert flagged(PLAIN) == {"w1", "w2", "w3"}  # asked no list and offered nothing: every repeat counts


def test_a_custom_pages_text_qc_reads_the_fields_question_for_them() -> None:
    from flows.custom.custom_text_qc import text_flags

    texts = frame().rename(columns={"caption": "answer"}).drop(columns="is_precanned").assign(field="gaps")
    params = {"page_text": "", "field_questions": {"gaps": ASKS}}
    flags = pd.concat(text_flags(texts, params, RULES))
    assert set(flags.loc[flags["rule"].isin(RULES), "worker_id"]) == {"w3"}


def test_a_value_read_off_or_worked_out_is_honest_to_repeat_words_around_it_are_not() -> None:
    values = ["5:15 pm", "17:15", "12/03/2026", "12 March 2026", "4", "noon", "2,500"]
    assert all(named_answers(values, PLAIN))
    assert not any(named_answers(["5:15 pm because the sign says so", "may", "March", "about four"], PLAIN))
