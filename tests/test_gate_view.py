"""The dry run says what the gate can see on this page and route."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from flows.campaigns.gate_view import gate_lines
from flows.core.config.attention_config import AttentionSettings
from flows.core.config.config import load_config
from qc.attention_checks import BUILT_IN
from tests.small_configs import small_vizwiz


def test_one_item_a_page_says_when_a_worker_is_judged_and_what_helps(tmp_path: Path) -> None:
    cfg = replace(load_config(small_vizwiz(tmp_path)), images_per_hit=1)
    text = "\n".join(gate_lines(cfg, "mturk"))
    assert "one item a page: a worker's rates" in text and "after 5 of their pages" in text
    assert "add control items" in text and "attention checks ([attention])" in text
    assert "caption (text): caps_lock" in text
    assert "gate on" not in text  # MTurk: no route grounds to list
    with_file = replace(cfg, answers=cfg.answers.model_copy(update={"controls": Path("controls.csv")}))  # a quiz, maybe
    assert "add control items" not in "\n".join(gate_lines(with_file, "mturk"))


def test_prolific_lines_say_what_may_reject_and_what_goes_to_a_person(tmp_path: Path) -> None:
    cfg = load_config(small_vizwiz(tmp_path))
    text = "\n".join(gate_lines(cfg, "prolific"))
    assert "may reject (its valid grounds): required (NO_DATA), min_words (LOW_EFFORT)" in text
    assert "to a person, never a rejection (no ground Prolific allows): one_sentence, banned_prefix, max_chars" in text
    assert 'review = "none" nobody looks' in text


def test_too_few_attention_checks_for_the_study_length_are_named(tmp_path: Path) -> None:
    cfg = replace(load_config(small_vizwiz(tmp_path)), attention=AttentionSettings(BUILT_IN[:1], study_minutes=10))
    text = "\n".join(gate_lines(cfg, "prolific"))
    assert "on a study of 10 min, 2 failed check(s) may reject" in text
    assert "with 1 no submission can fail enough to be rejected" in text
