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
