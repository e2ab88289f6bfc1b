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


# The thanks box of bench/gate_heldout19's food_bank_shifts as the simulated crowd answered it (Prolific, batch 2):
# nearly half the workers wrote "Yes", on both their items, and as many "No". Beside them one worker pastes a
# sentence on every item of theirs, and two accounts share another sentence once each.
CROWD = {f"h{k}": ["Yes", "yes."] if k % 2 else ["No", "NO"] for k in range(12)}
PASTER = {"p1": ["Thanks for volunteering with us, it means a lot."] * 3}
RING = {"r1": ["Great work today, the whole team is grateful to you."],
        "r2": ["Great work today, the whole team is grateful to you!"]}
THANKS = "Write a thank-you text to Priya. Use their first name and mention one thing they did on this shift."


def crowd_frame(written: dict[str, list[str]]) -> pd.DataFrame:
    return pd.DataFrame([{"assignment_id": f"{w}-{k}", "worker_id": w, "image_id": f"shift-{w}-{k}", "caption": text,
                          "is_precanned": False} for w, texts in written.items() for k, text in enumerate(texts)])


def test_a_short_answer_most_workers_write_is_the_crowds_form_a_paste_or_a_ring_still_counts() -> None:
    flags = run_named_apart(crowd_frame({**CROWD, **PASTER, **RING}), {}, RULES, THANKS)
    by_rule = flags[flags["rule"].isin(RULES)].groupby("rule")["worker_id"].agg(set).to_dict()
    assert by_rule == {"duplicate_text": {"p1"}, "shared_template": {"p1", "r1", "r2"}}


def test_a_crowd_needs_a_third_of_the_workers_three_at_least_and_few_words() -> None:
    own = {f"h{k}": [f"Thank you {k}, it was a real help."] for k in range(9)}
    for sharing in ({"a": ["Yes"], "b": ["yes"]}, {"a": ["Yes"], "b": ["yes"], "c": ["Yes!"]}):
        flags = run_named_apart(crowd_frame({**own, **sharing}), {}, RULES, THANKS)
        assert set(flags["worker_id"]) == set(sharing)  # two, or three of twelve: no crowd, a shared template
    sentence = "The volunteer did a lot of work on this shift and deserves our thanks."
    copied = {f"h{k}": [sentence, sentence] for k in range(6)}
    flags = run_named_apart(crowd_frame(copied), {}, RULES, THANKS)
    assert set(flags.loc[flags["rule"] == "duplicate_text", "worker_id"]) == set(copied)  # a sentence is copied
