"""A page's limits come from the requester's own words: never from an item's value shown on the page, never
from a number that describes the text shown; the dry run says each free-text field's limits and where they come
from; the scans that read them take linear time on a bounded length."""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path

import pytest

from flows.campaigns.route_policy import route_policy
from flows.cli.main import main
from flows.core.config.config import load_config
from qc.asked_limits import forbids_quality_talk, named_word_counts, stated_banned_openings, stated_min_words
from tests.small_configs import UNREHEARSED

HOSTILE = 'Great kettle, boils fast. Do not start with "The" or "This". Summaries need at least 400 words.'
PAGE = ("<h2>Summarise the review</h2><p>Summarise the customer review below in your own words.</p>\n"
        "<p>${text}</p>\n<textarea name=\"summary\" required></textarea>\n")


def summary_campaign(folder: Path, capsys: pytest.CaptureFixture[str], page: str = PAGE, extra: str = "") -> Path:
    """``hitflow new --from`` a one-field summary page whose items say what a requester would."""
    (folder / "page.html").write_text(page, encoding="utf-8")
    assert main(["new", "rev", "--from", str(folder / "page.html"), "--dir", str(folder)]) == 0
    capsys.readouterr()
    rows = [f'r{k},"{HOSTILE.replace(chr(34), chr(34) * 2)} Review {k}."' for k in range(6)]
    (folder / "config" / "rev_items.csv").write_text("item_id,text\n" + "\n".join(rows) + "\n", encoding="utf-8")
    config = folder / "config" / "rev.toml"
    text = re.sub(r'(?m)^budget = "[^"]*"', 'budget = "200.00 USD"', config.read_text(encoding="utf-8"))
    config.write_text(text + extra, encoding="utf-8")
    return config


def test_an_items_words_set_no_limit_on_any_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = summary_campaign(tmp_path, capsys)
    assert main(["run", str(config), "--no-prefect", "--db", str(tmp_path / "h.db"), "--out", str(tmp_path / "runs"),
                 "--limit", "6"]) in (0, 8)
    with sqlite3.connect(tmp_path / "h.db") as db:
        answers = db.execute("SELECT count(*) FROM assignments").fetchone()[0]
        flagged = db.execute("SELECT rule, count(*) FROM qc_flags WHERE rule IN ('min_words', 'banned_prefix') "
                             "GROUP BY rule").fetchall()
    # before, every answer was held to 400 words and "The"/"This" openings: the first item's value said so
    assert answers >= 12 and flagged == []


def test_the_dry_run_says_each_fields_limits_and_where_they_come_from(tmp_path: Path, capsys) -> None:
    page = PAGE.replace("in your own words.", "in your own words, in at least 8 words. Do not start with "
                        "\"It\".").replace("Summarise the customer review below", "Read a short text (around 400 "
                                           "words) and summarise it")
    config = summary_campaign(tmp_path, capsys, page)
    assert 'min_words = 8 ' in config.read_text(encoding="utf-8")  # hitflow new wrote the page's level
    text = config.read_text(encoding="utf-8").replace("min_words = 8 ", "min_words = 3 ")
    config.write_text(text + 'banned_prefixes = ["Summary:"]\n', encoding="utf-8")
    assert main(["run", str(config), "--dry-run", *UNREHEARSED]) in (0, 1)
    [line] = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("  limits on summary")]
    assert line == ("  limits on summary: at least 8 words (the page's words; [qc.fields.summary] min_words = 3 is "
                    "below it); not starting with 'It' (the page's words); not starting with 'Summary:' "
                    "([qc.fields.summary] banned_prefixes)")


def test_on_prolific_an_items_words_never_make_a_configured_minimum_stated(tmp_path: Path, capsys) -> None:
    config = summary_campaign(tmp_path, capsys)
    text = config.read_text(encoding="utf-8").replace("min_words = 3 ", "min_words = 400 ")
    text = re.sub(r"(?m)^reject_rules = .*\n", "", text)  # an older starter's line
    config.write_text(text.replace("[policy]\n", '[policy]\nreject_rules = ["invalid_answer", "empty_answer", '
                                   '"sentinel_answer", "min_words"]\n', 1), encoding="utf-8")
    policy = route_policy(load_config(config), "prolific")
    assert "min_words" in policy.reject_rules and "min_words" not in (policy.reject_grounds or {})


def test_a_number_describing_the_text_shown_is_no_limit_on_the_answer() -> None:
    said = "Read a short text (around 400 words) and summarise it in at least 100 words."
    assert stated_min_words(said) == 100 and named_word_counts(said) == {100}  # 200 and {400, 100} before
    assert stated_min_words("The passage below has about 300 words. Write a one-line title.") == 0
    assert stated_min_words("Write at least 50 words, ideally about 150.") == 50  # a stated minimum is the minimum
    assert stated_min_words("Write a review of about 100 words.") == 50  # a target on the answer: half of it


def test_a_range_of_words_states_its_fewest_to_the_gate_and_to_the_simulated_crowd() -> None:
    from flows.sim.people.stated_limits import stated

    said = "Who would find this app useful, and why? Please write between 15 and 40 words."
    assert stated_min_words(said) == 15 and stated(said)[:2] == (15, 40)  # 0 and (0, None) before
    assert stated_min_words("Explain it in 8-20 words.") == 8 and stated("Explain it in 8-20 words.")[:2] == (8, 20)
    assert stated_min_words("Rate 1 and 2 words apart.") == 0 and stated("Rate 1 and 2 words apart.")[:2] == (0, None)


def test_the_forbidding_scans_take_linear_time_on_a_bounded_length() -> None:
    hostile = "do not start " * 6000 + "?x"  # 5.4 s of CPU before (each "do not start" read to the "?")
    started = time.process_time()
    assert stated_banned_openings(hostile) == () and not forbids_quality_talk("do not describe " * 6000 + "?x")
    assert stated_banned_openings("do not start " * 100_000 + '"The"') == ()  # past the bounded length
    assert time.process_time() - started < 0.5
    assert stated_banned_openings('Never begin with "I think" or "Maybe"!') == ("I think", "Maybe")
    assert forbids_quality_talk("DO NOT describe the image quality issues.")
