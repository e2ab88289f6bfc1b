"""``make bench-gate-heldout6``: bench/gate_heldout.py's gate and rehearsal on a sixth held-out set of pages.

Four pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' format (bench/gate_heldout6/), each with a 30-item file and a truth
column:

- math_homework: one item a page, in the plain style of a requester who uses only ``required`` and standard
  inputs: a Year 6 word problem, a student's working and final answer in a table, "Is the student's final
  answer correct?" (yes/no radio), "What is the correct answer?" (``<input type="number" step="any">``) and
  "Briefly, how did you check it? Please use 5 to 25 words." (an ``<input type="text">``), all three
  ``required`` (12 separate control items on ``is_correct`` at a share of 0.2);
- quote_attribution: three quotes a page, plain style: "Who said or wrote this first?" as a ``<select
  required>`` with an empty first option (person A, person B, neither, I can't tell, the two names read from
  the item's columns) and an optional "in what year" ``<input type="number" min="1500" max="2026">`` (12
  separate controls at a share of 0.25);
- app_permissions: two phone apps a page on a full HTML document: "Which of these permissions does the app
  NOT need ...? Select all that apply." over six boxes and "It needs all the permissions it asks for",
  at least one box checked only by the page's script, which a ``<button type="button"
  onclick="checkAndSubmit()">`` runs before ``form.submit()`` (the page has no submit button of its own),
  and "Overall, is this app asking for more than it needs?" (yes/no radio, ``required``; 10 separate
  controls at a share of 0.2);
- noise_complaints: one scenario a page (a Prolific-style study page): "What is the noise coming from?"
  (five radios, ``required``), "How much would this bother you?" (1-7 radios, ``required``), an attention
  item on a checkbox group ("This is an attention check: whatever you use, please tick only "Bicycle"") and
  "What, if anything, would you do about it? Please write between 10 and 40 words." (a textarea without
  ``required``; a ``click`` listener on the submit button refuses under 10 and over 40 words; controls: 10
  of its own items).

and two variants, written after the first run at a6b98805 as a user leaves the page after what the tool
said (the same items and controls): app_permissions_rules (the script button and its function taken out, the
rule the import named, ``data-min-selections="1"``, on the first box, and a plain ``<input type="submit">``:
the import's note said to remove the button once each check is a page rule) and noise_complaints_required
(the textarea ``required``, after the dry run's UNCHECKED line asked for the script's check as page rules,
``required`` first; the 10-40 word range stays the script's).

The definitions are bench/gate_heldout.py's (per page and route, MTurk and Prolific simulators, the default
crowd, 3 batches, 3 workers an item). The free-text judges and limits, written before any run and without
reading the simulator's or QC's code:

- math_homework ``how_checked`` (stated: 5 to 25 words; required): answers the question when it says how
  the sum was checked: a digit, or a word of ARITH (add, plus, subtract, minus, take away, multiply, times,
  divide, split, share, per, each, total, sum, difference, percent, %, half, quarter, third, double, twice,
  fraction, round, mean, average, area, perimeter, convert, minutes, hours, seconds, pounds, pence, grams,
  litres, calculator, calculate, checked, worked out, counted, estimate, inverse...).
- noise_complaints ``what_to_do`` (stated: between 10 and 40 words; required by the script only): answers
  when it names something the person would do (a word of DO: talk, speak, knock, ask, complain, report,
  call, phone, ring, email, write, letter, note, tell, contact, council, landlord, police, management,
  agent, housing, mediation, ignore, nothing, wait, tolerate, "put up with", "live with", earplugs,
  headphones, "white noise", close, shut, move, sleep, record, diary, log, petition, leave, visit...) and
  refers to the situation (a word of NOISE: noise, noisy, loud, sound, music, racket, din, quiet; or a word
  sharing its first four letters with a 4+ letter word of the scenario, common words aside).

The runner's limit is each field's stated minimum; each page's extra line adds the whole stated limit (5 to
25 and 10 to 40 words) and the share within it that also answers. Further figures, off the ledger:
math_homework, honest correct answers equal to ``gold_answer``; quote_attribution, approved assignments with
a year outside 1500-2026 or not a whole number, and honest speakers equal to ``gold_speaker``;
app_permissions, approved assignments with an app given no box (the script's rule) or no overall answer, and
honest tick sets equal to ``gold_unneeded``; noise_complaints, approved assignments whose ``what_to_do`` is
under 10 or over 40 words (the script's rule) and the attention item by honest and bad profile (passed:
exactly "bicycle" ticked), with the bad work that failed it unnoticed.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout6.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout6.py``) it finds
its own bench package, so a checkout without this set (an older commit) can be measured from its own folder.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file from another checkout: this set's bench package first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gate_bench import share
from bench.gate_heldout import HONEST, ROOT, HeldoutPage, TextField, words
from bench.gate_heldout3 import STOP, attention_tally
from bench.gate_heldout4 import _items, cli, whole_limit
from bench.gate_heldout5 import _given, _same_amount, _ticks, approved_breaking

PAGES_DIR = ROOT / "bench" / "gate_heldout6"
RESULTS = ROOT / "bench" / "results-gate-heldout6.json"

ARITH = re.compile(
    r"(\d|%|\b(add\w*|plus|subtract\w*|minus|take away|took away|multipl\w*|times|divid\w*|division|split|"
    r"shar\w*|per|each|total\w*|sum|sums|difference|percent\w*|half|halve\w*|quarters?|thirds?|double\w*|twice|"
    r"fractions?|round\w*|mean|average|area|perimeter|convert\w*|minutes?|hours?|seconds?|pounds?|pence|grams?|"
    r"litres?|ml|cm|metres?|calculat\w*|checked|worked out|work(ed)? it out|count\w*|estimat\w*|inverse|"
    r"backwards|reverse|angles?|degrees?|remainder|left over|altogether)\b)", re.I)
DO = re.compile(
    r"\b(talk\w*|speak\w*|spoke|knock\w*|ask\w*|complain\w*|complaint|report\w*|call\w*|phon\w*|ring\w*|"
    r"email\w*|e-mail|writ\w*|wrote|letter|note|tell|told|contact\w*|council|landlord|police|management|"
    r"manager|agent|housing|mediat\w*|ignore\w*|nothing|wait\w*|tolerat\w*|put up with|live with|earplugs?|"
    r"ear plugs?|headphones|white noise|close|closing|shut|move|moving|sleep\w*|record\w*|diary|log|logging|"
    r"petition\w*|leave|visit\w*|go round|go over|politely|neighbours?)\b", re.I)
NOISE = re.compile(r"\b(noise|noisy|loud\w*|sounds?|music|racket|din|quiet\w*|bass|volume)\b", re.I)


def says_how_checked(text: str, _item: dict[str, str]) -> bool:
    """A digit or a word of arithmetic or checking."""
    return bool(ARITH.search(text))


def says_what_to_do(text: str, item: dict[str, str]) -> bool:
    """Something the person would do, and the situation referred to (a noise word or a scenario word)."""
    about = {w.lower()[:4] for w in words(item.get("scenario", "")) if len(w) >= 4 and w.lower() not in STOP}
    refers = bool(NOISE.search(text)) or any(w.lower()[:4] in about for w in words(text)
                                             if len(w) >= 4 and w.lower() not in STOP)
    return bool(DO.search(text)) and refers


def right_share(page: str, fld: str, gold: str, same: Any = None) -> Any:
    """Honest answers of ``fld`` equal to the item's ``gold`` column (``same``: how two answers compare)."""
    equal = same or (lambda said, known: said.strip().lower() == known.strip().lower())

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [(i, f[fld]) for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and fld in f]
        right = sum(equal(v, items[i].get(gold, "")) for i, v in given)
        return {f"honest_{fld}_right": f"{right}/{len(given)}", f"honest_{fld}_right_share": share(right, len(given))}
    return extra


def _combine(*parts: Any) -> Any:
    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for part in parts:
            out.update(part(db, campaign, profiles))
        return out
    return extra


def _year_off(fields: dict[str, str]) -> bool:
    year = fields.get("year", "").strip()
    return bool(year) and not (re.fullmatch(r"\d{1,4}", year) and 1500 <= int(year) <= 2026)


def _words_outside(fields: dict[str, str]) -> bool:
    return "what_to_do" in fields and not 10 <= len(words(fields["what_to_do"])) <= 40


def _same_ticks(said: str, known: str) -> bool:
    return _ticks(said) == _ticks(known)


math_extra = _combine(whole_limit("math_homework", "how_checked", says_how_checked, limit=(5, 25, False),
                                  folder=PAGES_DIR),
                      right_share("math_homework", "right_answer", "gold_answer", _same_amount))
quote_extra = _combine(approved_breaking({"year_off": _year_off}),
                       right_share("quote_attribution", "speaker", "gold_speaker"))
app_extra = _combine(approved_breaking({"no_box": lambda f: not _ticks(f.get("unneeded", "")),
                                        "overreach_blank": lambda f: not f.get("overreach", "").strip()}),
                     right_share("app_permissions", "unneeded", "gold_unneeded", _same_ticks))
noise_extra = _combine(whole_limit("noise_complaints", "what_to_do", says_what_to_do, limit=(10, 40, False),
                                   folder=PAGES_DIR),
                       approved_breaking({"words_outside_10_40": _words_outside}),
                       attention_tally("transport", lambda value: _ticks(value.lower()) == {"bicycle"}))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # plain: every field required by the page's own attribute, nothing else
    _page("math_homework", 1, ("is_correct", "right_answer", "how_checked"), texts={"how_checked": TextField(
        5, says_how_checked, "a digit or a word of arithmetic or checking (add, times, divide, total, percent, "
        "half, round, minutes, calculator, checked, worked out...)")},
          keys={"controls": '"math_homework_controls.csv"', "control_share": "0.2"},
          truth='{is_correct = "gold_correct", right_answer = "gold_answer"}', controls=True, extra=math_extra),
    # plain: the select is required, the year optional within min/max
    _page("quote_attribution", 3, ("speaker",), keys={"controls": '"quote_attribution_controls.csv"',
                                                      "control_share": "0.25"},
          truth='{speaker = "gold_speaker"}', controls=True, extra=quote_extra),
    # "at least one box" is the script's, run by a type="button" that ends in form.submit()
    _page("app_permissions", 2, ("unneeded", "overreach"), keys={"controls": '"app_permissions_controls.csv"',
                                                                 "control_share": "0.2"},
          truth='{overreach = "gold_overreach", unneeded = "gold_unneeded"}', controls=True, extra=app_extra),
    # the word range is the submit button's click listener's; the attention item is a checkbox group
    _page("noise_complaints", 1, ("source", "bother", "what_to_do"), texts={"what_to_do": TextField(
        10, says_what_to_do, "an action word (talk, knock, complain, report, council, landlord, ignore, "
        "earplugs, close, move...) and a noise word or a word of the scenario (first four letters)")},
          keys={"controls": '"noise_complaints_controls.csv"'}, truth='{source = "gold_source"}', controls=True,
          extra=noise_extra),
    # app_permissions as a user leaves it after the import's note: no script button, the box rule on the page
    _page("app_permissions_rules", 2, ("unneeded", "overreach"), keys={
        "controls": '"app_permissions_rules_controls.csv"', "control_share": "0.2"},
          truth='{overreach = "gold_overreach", unneeded = "gold_unneeded"}', controls=True, extra=app_extra),
    # noise_complaints as a user leaves it after the dry run's UNCHECKED line: the textarea required
    _page("noise_complaints_required", 1, ("source", "bother", "what_to_do"), texts={"what_to_do": TextField(
        10, says_what_to_do, "an action word (talk, knock, complain, report, council, landlord, ignore, "
        "earplugs, close, move...) and a noise word or a word of the scenario (first four letters)")},
          keys={"controls": '"noise_complaints_required_controls.csv"'}, truth='{source = "gold_source"}',
          controls=True, extra=noise_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
