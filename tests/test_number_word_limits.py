"""A range of words a page states with "or" ("One or two words", "1 or 2 words") is a stated limit, in numerals and
in number words alike, for the import's field table, the dry run's limits line and the simulated worker who reads the
box's question; "2 or more words" stays a minimum alone."""

from __future__ import annotations

import pytest

from flows.custom.custom_text_qc import limit_lines
from flows.custom.scaffold_import import free_text_fields
from flows.sim.people.stated_limits import stated
from qc.asked_limits import stated_max_words, stated_min_words
from qc.custom_rules import CUSTOM_RULES

RIDDLE = "What is the answer? One or two words. If you are not sure, give your best guess."


@pytest.mark.parametrize(("said", "least", "most"), [
    (RIDDLE, 1, 2), ("Answer in 1 or 2 words.", 1, 2), ("Use three or four words", 3, 4),
    ("Two to three words, please.", 2, 3), ("Write 2 or more words.", 2, 0)])
def test_a_range_said_with_or_is_read_in_numerals_and_number_words(said: str, least: int, most: int) -> None:
    assert (stated_min_words(said), stated_max_words(said)) == (least, most)
    assert stated(said)[1] == (most or None) and stated(said)[0] in (least, 0)  # (the sim reads "2 or more" alone)


def test_the_import_and_the_dry_run_state_the_riddles_limit() -> None:
    body = f'<p>{RIDDLE}</p><input type="text" name="answer_{{{{ i }}}}" maxlength="30" required>'
    (name, _control, _personal, limits), = free_text_fields(body)
    assert (name, limits) == ("answer", (1, 2))
    params = {"page_text": "", "field_questions": {"answer": RIDDLE}}
    assert "at most 2 words (the page's words)" in limit_lines(params, CUSTOM_RULES, ["answer"])[0]


@pytest.mark.parametrize(("said", "least", "most"), [
    ("No fewer than 15 words, please", 15, 0), ("Not less than 20 words.", 20, 0), ("In fewer than 15 words", 0, 14),
    ("No less than 8 words and under 30 words", 8, 29)])
def test_no_fewer_than_is_a_least_not_a_most(said: str, least: int, most: int) -> None:
    """"No fewer than 15 words" was read as "fewer than 15": QC flagged every honest answer of 15 words or more."""
    assert (stated_min_words(said), stated_max_words(said)) == (least, most)
    assert stated(said).most_words == (most or None)  # the simulated worker reads the box as QC does


def test_in_one_word_is_met_by_the_simulated_worker_with_a_word_of_content() -> None:
    from flows.sim.people.stated_limits import within

    said = "3. In one word, how would you describe this tutor's teaching style?"
    assert stated(said).most_words == stated_max_words(said) == 1
    assert within("It is the tutor for games.", 1, None) in {"tutor", "games"}  # not "It."
