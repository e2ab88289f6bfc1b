"""A simulated worker the page refuses reads its message as a person does and changes the box before pressing Submit
again: the word it says to use worked in, the count it states met. A page that still refuses only what the simulated
worker typed (its message asks what that text lacks) is a warning to check by hand, which blocks no route; one that
refuses what its message asks, or says nothing of it, stays a PROBLEM."""

from __future__ import annotations

import csv
import random
import re
import shutil
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.sim.pages import browser_trial, browser_worker
from flows.sim.pages.browser_worker import work_page
from flows.sim.people.crowd_model import Worker
from flows.sim.people.refusal_asks import asked_in, lacking, meeting

# a page that refuses a sentence outside 6-25 words, or one without the card's word (its stem, as vocab cards check)
CHECK = """document.querySelector("form").addEventListener("submit", function (e) {
  var s = document.getElementById("sentence").value.trim(), n = s ? s.split(/\\s+/).length : 0;
  var word = document.getElementById("theword").textContent.trim().toLowerCase();
  var msg = n < 6 || n > 25 ? "Your sentence should be between 6 and 25 words (it is " + n + ")." :
    s.toLowerCase().indexOf(word.slice(0, -2)) < 0 ? "Your sentence must use the word \\u201c" + word + "\\u201d." : "";
  if (msg) { e.preventDefault(); REFUSE; }
});"""
INLINE = 'document.getElementById("err").textContent = msg'
PAGE = ('<!DOCTYPE html><html><body><form method="post" action="https://hit.sim.invalid/submit">'
        '<p id="theword">reluctant</p><p>Write a sentence of your own that uses the word on the card.</p>'
        '<textarea name="sentence" id="sentence" maxlength="200"></textarea><p id="err"></p>'
        '<input type="submit" value="Submit"></form><script>{check}</script></body></html>')
SESSION = {"assignmentId": "A1", "hitId": "H1", "workerId": "W1"}
READS = Worker("WREADS", "diligent", {"accuracy": 1.0}, 5000, 99)  # acts on every message at once


def test_a_message_is_read_for_the_word_the_count_and_the_form_it_asks() -> None:
    asked = asked_in("Your example sentence must use the word \u201creluctant\u201d (6 to 25 words).")
    assert asked.terms == ("reluctant",) and (asked.limits.least_words, asked.limits.most_words) == (6, 25)
    assert asked_in("Please include the phrase 'on the other hand'.").terms == ("on the other hand",)
    assert asked_in("You did not mention 'price'.").terms == ("price",)  # a complaint of what is missing
    assert not asked_in("Do not use the word 'very'.") and not asked_in("Something went wrong, try again.")
    assert asked_in("The code must be 5 digits.").form == r"\d{5}"
    assert lacking("I walked home slowly.", asked_in("Use the word 'walk'.")) == []  # its ending changed, as allowed
    assert lacking("I went home.", asked) == ['the word "reluctant"', "the number of words asked (3 typed)"]


@pytest.mark.parametrize("typed", ["It was short.", " ".join(["The long sentence keeps going on and on"] * 5),
                                   "The tenants did not want to sign the new agreement at all."])
def test_text_changed_as_asked_holds_the_word_within_the_count(typed: str) -> None:
    asked = asked_in("Your sentence must use the word \u201creluctant\u201d, between 6 and 25 words.")
    for seed in range(20):
        text = meeting(typed, asked, random.Random(seed))
        assert lacking(text, asked) == [] and len(re.findall(r"[.!?](?:\s|$)", text)) <= 1, text
    assert meeting("Call 48213 now", asked_in("The code must be 5 digits."), random.Random(1)) == "48213"


@pytest.mark.browser
@pytest.mark.parametrize("refuse", [INLINE, "alert(msg)"])
@pytest.mark.parametrize("typed", ["It was short.", "The tenants did not want to sign the new agreement."])
def test_a_refused_worker_retypes_the_box_as_the_message_asks_and_posts(browser, refuse: str, typed: str) -> None:
    page = PAGE.format(check=CHECK.replace("REFUSE", refuse))
    posted = work_page(browser, page, SESSION, {"sentence": typed}, random.Random(1), READS)
    assert posted is not None, "the page refused the retyped sentence"
    sentence = posted["sentence"]
    assert "reluctant" in sentence.lower() and 6 <= len(sentence.split()) <= 25, sentence
    kept = [w for w in typed.rstrip(".").split() if w in sentence]  # the worker's own sentence, changed, not replaced
    assert len(kept) >= min(3, len(typed.split())), sentence


@pytest.mark.browser
def test_a_rushed_worker_never_reads_the_message_and_gives_up_naming_it(browser) -> None:
    told: list[str] = []
    rushed = Worker("WRUSH", "speeder", {}, 5000, 99)
    page = PAGE.format(check=CHECK.replace("REFUSE", INLINE))
    typed = "The tenants did not want to sign the new agreement."
    assert work_page(browser, page, SESSION, {"sentence": typed}, random.Random(1), rushed, told=told) is None
    assert told == ["sentence", "Your sentence must use the word \u201creluctant\u201d.", typed]


FRAGMENT = """<h3>Word card</h3>
<p class="word" id="theword">${word}</p>
<p>Write a new example sentence of your own that uses the word, between 6 and 25 words.</p>
<textarea name="sentence" id="sentence" rows="3" maxlength="200"></textarea>
<p id="err"></p>
<script>CHECK</script>"""


PAGE_CHECK = CHECK.replace("REFUSE", INLINE)  # the page as imported; the tests below edit its script


@pytest.fixture(scope="module")
def imported_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page imported once for the module (`hitflow new --from`, whose probe of its script in Chromium costs
    ~1.3-2 s of CPU a page). Importing each edited page below wrote the same files but the template's script."""
    folder = tmp_path_factory.mktemp("cards")
    (folder / "cards.html").write_text(FRAGMENT.replace("CHECK", PAGE_CHECK), "utf-8")
    with (folder / "cards_items.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("item_id", "word"), ("c1", "reluctant"), ("c2", "thrifty")])
    assert main(["new", "cards", "--from", str(folder / "cards.html"), "--items", str(folder / "cards_items.csv"),
                 "--dir", str(folder)]) == 0
    config = folder / "config" / "cards.toml"
    config.write_text(config.read_text(encoding="utf-8") + '\n[target]\nsim_workers = "browser"\n', encoding="utf-8")
    return folder


def imported(imported_page: Path, tmp_path: Path, check: str) -> Path:
    """The imported campaign in ``tmp_path``, its page's script edited to ``check`` as a requester edits
    config/cards.html.j2."""
    shutil.copytree(imported_page, tmp_path, dirs_exist_ok=True)
    template = tmp_path / "config" / "cards.html.j2"
    text = template.read_text(encoding="utf-8")
    assert PAGE_CHECK in text, text
    template.write_text(text.replace(PAGE_CHECK, check), encoding="utf-8")
    browser_trial.trial_outcome.cache_clear()  # (the same page tried by another test is tried again)
    return tmp_path / "config" / "cards.toml"


def page_lines(config: Path, platform: str = "mturk") -> list[str]:
    """The dry run's lines on the page (refuse_unreadable's: the run's own check before it posts), or its PROBLEMs."""
    from flows.campaigns.task_kinds import load_campaign
    from flows.custom.custom_task import UnreadablePage, refuse_unreadable

    try:
        return refuse_unreadable(load_campaign(config, platform))
    except UnreadablePage as refused:
        return refused.problems


@pytest.mark.browser
def test_the_page_passes_where_the_worker_meets_its_message(imported_page: Path, tmp_path: Path) -> None:
    out = page_lines(imported(imported_page, tmp_path, PAGE_CHECK))
    assert not [line for line in out if line.startswith(("PROBLEM", "warning: the page's own script"))], out


@pytest.mark.browser
def test_a_refusal_of_what_only_the_simulated_worker_typed_warns_and_blocks_no_route(imported_page: Path,
                                                                                     tmp_path: Path,
                                                                                     monkeypatch) -> None:
    """A worker who cannot meet the message (here: one who never acts on it, as before workers read messages):
    the dry run names the box, the page's words and what was typed, and tells the requester to check by hand."""
    monkeypatch.setattr(browser_worker, "reads_message", lambda *_: False)
    # a count no simulated text of an unstated length reaches (it writes 8-26 words there), said only by the script
    longer = CHECK.replace("n < 6 || n > 25", "n < 40 || n > 60").replace("between 6 and 25", "between 40 and 60")
    config = imported(imported_page, tmp_path, longer.replace("REFUSE", "alert(msg)"))
    for platform in ("mturk", "prolific"):
        out = page_lines(config, platform)
        warned = [line for line in out if line.startswith("warning: the page's own script refused")]
        assert not [line for line in out if line.startswith("PROBLEM")] and len(warned) == 1, out
        assert "Check by hand before posting live" in warned[0] and "its text still lacked the" in warned[0]
        assert re.search(r'saying "Your sentence (should be between 40 and 60 words \(it is \d+\)|must use the word '
                         r'.reluctant.)\." about the box sentence_0', warned[0]), warned[0]


@pytest.mark.browser
def test_a_page_that_refuses_what_its_message_asks_is_still_a_problem(imported_page: Path, tmp_path: Path) -> None:
    """The message asks for the word and the count; the script wants something else too (a question mark): the
    worker meets every word of the message, so the refusal is the page's, not the simulator's."""
    check = PAGE_CHECK.replace('? "Your sentence must', '|| s.indexOf("?") < 0 ? "Your sentence must')
    out = page_lines(imported(imported_page, tmp_path, check))
    assert len(out) == 1 and out[0].startswith("PROBLEM") and "refused every time" in out[0], out
    assert 'saying "Your sentence must use the word' in out[0]


@pytest.mark.browser
@pytest.mark.slow
def test_the_rehearsal_runs_a_warned_page_and_says_plainly_who_gave_it_back(imported_page: Path, tmp_path: Path,
                                                                            monkeypatch, capsys) -> None:
    monkeypatch.setattr(browser_worker, "reads_message", lambda *_: False)
    imported(imported_page, tmp_path, PAGE_CHECK)
    # two workers give the page back (three did): still more than one to say its line once for
    (tmp_path / "crowd.toml").write_text('seed = 1\n[[profile]]\nname = "diligent"\ncount = 2\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = main(["run", "config/cards.toml", "--no-prefect", "--db", "h.db", "--crowd", "crowd.toml", "--limit", "1"])
    err = capsys.readouterr().err
    gave_back = [line for line in err.splitlines() if line.startswith("hitflow sim: honest browser workers give")]
    assert code in (8, 10) and "Traceback" not in err, err
    assert len(gave_back) == 1 and 'saying "Your sentence' in gave_back[0] and "typed as" in gave_back[0], err
