"""``max_words``: a page that states the most words an answer may have ("no more than 20 words") holds its answers
to it as it holds them to a stated minimum: QC's rule flags a longer answer for a person to look at, the import
writes it into the field's table, and a script's word count over N is named as that rule, not as page rules that
cannot say it."""

from __future__ import annotations

import tomllib

import pandas as pd

from flows.custom.custom_text_qc import field_max_words, field_questions, limit_lines, text_flags
from flows.custom.page_import import import_page
from flows.custom.scaffold_import import field_qc_table, free_text_fields
from flows.custom.submit_checks import word_limit
from qc.asked_limits import stated_min_words
from qc.custom_rules import CUSTOM_POLICY, CUSTOM_RULES
from qc.runner import run_rules

ASKED = "What is the one thing a job seeker would most want to know? Answer in no more than 5 words."


def _answers(texts: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"assignment_id": [f"a{k}" for k in range(len(texts))],
                         "worker_id": [f"w{k}" for k in range(len(texts))], "image_id": "i1", "field": "gap",
                         "kind": "text", "answer": texts, "telemetry": "", "telemetry_field": ""})


def test_the_rule_flags_only_answers_over_the_limit_and_is_off_without_one() -> None:
    frame = pd.DataFrame({"assignment_id": ["a", "b", "c"], "worker_id": ["w1", "w2", "w3"], "image_id": "i",
                          "caption": ["one two three four five", "one two three four five six", ""],
                          "is_precanned": False})
    flags = run_rules(frame, {"max_words": 5}, ("max_words",))
    assert flags["worker_id"].tolist() == ["w2"] and flags["value"].tolist() == [6]
    assert run_rules(frame, {"max_words": 0}, ("max_words",)).empty
    assert run_rules(frame, {}, ("max_words",)).empty


def test_a_fields_stated_most_flags_longer_answers_for_review_only() -> None:
    params = {"page_text": "", "field_questions": {"gap": ASKED}}
    flags = pd.concat(text_flags(_answers(["pay", "the hourly pay and the shift pattern"]), params, CUSTOM_RULES))
    said = flags[flags["rule"] == "max_words"]
    assert said["worker_id"].tolist() == ["w1"] and said["threshold"].tolist() == [5]
    assert "max_words" in CUSTOM_POLICY.review_rules and "max_words" not in CUSTOM_POLICY.reject_rules
    assert "max_words" not in CUSTOM_POLICY.block_min_flags


def test_the_fewer_of_the_page_and_the_fields_table_holds_and_the_dry_run_says_which() -> None:
    assert field_max_words({"max_words": 3}, ASKED) == 3
    assert field_max_words({"max_words": 30}, ASKED) == 5
    assert field_max_words({}, "Describe the photo.") == 0
    assert field_max_words({}, "Say it in 12 words or fewer.") == field_max_words({}, "Use 4 to 12 words.") == 12
    assert field_max_words({}, "Reply in under 30 words.") == field_max_words({}, "Use fewer than 30 words.") == 29
    params = {"page_text": "", "field_questions": {"gap": ASKED}, "fields": {"gap": {"max_words": 3}}}
    assert "at most 3 words ([qc.fields.gap] max_words)" in limit_lines(params, CUSTOM_RULES, ["gap"])[0]
    assert "at most 5 words (the page's words)" in limit_lines({**params, "fields": {}}, CUSTOM_RULES, ["gap"])[0]
    one = {"page_text": "", "field_questions": {"gap": "The writer's mood, in one word"}}
    assert "at most 1 word (the page's words)" in limit_lines(one, CUSTOM_RULES, ["gap"])[0]


def test_the_import_writes_the_stated_most_into_the_fields_table() -> None:
    body = f'<p>{ASKED}</p><textarea name="gap_{{{{ i }}}}" required></textarea>'
    (name, control, personal, stated), = free_text_fields(body)
    assert (name, stated) == ("gap", (0, 5))
    table = tomllib.loads(field_qc_table(name, control, personal, stated))["qc"]["fields"]["gap"]
    assert table["max_words"] == 5 and table["min_words"] == 3  # a required textarea's own minimum stays
    assert field_qc_table("gap", "text", False, (0, 0)) == ""


def test_an_optional_box_is_held_only_to_what_its_page_states() -> None:
    """"Anything confusing?" with no limit stated: an honest "All clear" is no short answer (the starter config
    said min_words = 3 on it); an optional box that states its most words keeps that alone."""
    body = ('<p>Anything confusing?</p><textarea name="comments_{{ i }}"></textarea>'
            f'<p>{ASKED}</p><textarea name="gap_{{{{ i }}}}"></textarea>')
    fields = {name: (control, asks, stated) for name, control, asks, stated in free_text_fields(body)}
    assert fields["comments"][0] == fields["gap"][0] == "optional textarea"
    assert field_qc_table("comments", *fields["comments"]) == ""
    table = tomllib.loads(field_qc_table("gap", *fields["gap"]))["qc"]["fields"]["gap"]
    assert table == {"max_words": 5}


def test_a_textareas_stated_minimum_under_three_is_the_starter_configs() -> None:
    """"(2 to 25 words)": the page's own two-word answer ("nothing missing") is no short answer."""
    body = '<p>List what is missing (2 to 25 words).</p><textarea name="gaps_{{ i }}"></textarea>'
    (name, control, asks, stated), = free_text_fields(body)
    table = tomllib.loads(field_qc_table(name, control, asks, stated))["qc"]["fields"]["gaps"]
    assert (table["min_words"], table["max_words"]) == (2, 25)


def test_a_scripts_word_count_over_n_is_named_as_max_words() -> None:
    count = 'document.getElementById("c").value.trim().split(/\\s+/).length'
    ids = {"c": "comment"}
    assert word_limit(f"{count} > 20", ids) == ("comment", "max_words", 20)
    assert word_limit(f"{count} >= 21", ids) == ("comment", "max_words", 20)
    assert word_limit(f"{count} < 20", ids) == ("comment", "min_words", 20)
    page = ('<form id="f"><textarea id="c" name="comment"></textarea><button type="submit" id="go">Go</button>'
            '</form><script>document.getElementById("go").addEventListener("click", function (e) {'
            f' if ({count} > 20) {{ alert("At most 20 words"); e.preventDefault(); }} }});</script>')
    notes = [n for n in import_page(page, "p.html").notes if "stays in its script only" in n]
    assert len(notes) == 1 and "[qc.fields.comment] max_words = 20" in notes[0]
    assert "comment required" not in notes[0] and "it is now required" not in notes[0]  # a blank is not too long


def test_short_answer_spares_short_answers_where_the_page_asks_for_a_short_one() -> None:
    """A box the page caps at a sentence ("15 words at most") asks for brevity: a complete four-word answer beside
    others' fuller ones is what it asks, not a rushed one; the same answers where the page states no most are
    still compared."""
    texts = ["The screen cracked after a fall from the kitchen table.",
             "Cracked screen after the phone fell off a table.",
             "The phone fell and its screen cracked across the top.", "A crack across the screen after dropping it.",
             "Cracked screen, phone dropped"]
    frames = _answers(texts).assign(image_id="p1", field="fault")

    def flagged(question: str, table: dict[str, int] | None = None) -> list[str]:
        params = {"page_text": "", "field_questions": {"fault": question}, "fields": {"fault": table or {}}}
        flags = pd.concat(text_flags(frames, params, ("short_answer",)))
        return flags.loc[flags["rule"] == "short_answer", "worker_id"].tolist()

    assert flagged("What went wrong with the phone?") == ["w4"]
    assert flagged("What went wrong with the phone? 15 words at most.") == []
    assert flagged("What went wrong with the phone?", {"max_words": 12}) == []  # the field's table at import
    assert flagged("What went wrong? Up to 200 words.") == ["w4"]  # a long box: shortness is still a sign


def test_a_limit_stated_under_a_boxs_heading_is_read_and_the_next_heading_is_not_its_question() -> None:
    """"4 to 12 words" in a <p> just above a crowd-input is its limit, not the next question's."""
    page = ('<crowd-form><h4>1. Write a headline for this notice.</h4><p>4 to 12 words. Say what and where.</p>'
            '<crowd-input name="headline" required></crowd-input><h4>2. Anything unclear?</h4>'
            '<p>Up to 20 words.</p><crowd-text-area name="unclear"></crowd-text-area></crowd-form>')
    asked = field_questions(page)
    assert "4 to 12 words" in asked["headline"] and "unclear" not in asked["headline"].lower()
    assert stated_min_words(asked["headline"]) == 4 and field_max_words({}, asked["headline"]) == 12
    assert field_max_words({}, asked["unclear"]) == 20


def test_a_label_giving_an_example_leaves_the_limit_above_the_box_its_own() -> None:
    """A crowd-input whose label is an example answer ("e.g. In which year ...?") is asked by the words above it."""
    page = ('<crowd-form><p><strong>Your quiz question</strong> (ends with ?, at most 20 words)</p>'
            '<crowd-input name="question" label="e.g. In which year was the bridge opened?" required></crowd-input>'
            '<p>Describe the speaker\'s tone in one single word.</p><crowd-input name="tone" label="Tone">'
            '</crowd-input></crowd-form>')
    asked = field_questions(page)
    assert field_max_words({}, asked["question"]) == 20
    assert field_max_words({}, asked["tone"]) == 1 and field_max_words({}, "Type it in a word processor.") == 0
