"""``make bench-gate-heldout9``: bench/gate_heldout.py's gate and rehearsal on a ninth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harness docstrings (bench/gate_heldout9/), each with a 30-item file:

- museum_labels: one gallery label a page, a full HTML document (a regional museum rewriting labels for
  9-year-olds): "Could a 9-year-old read and understand this label on their own?" (yes / partly / no radios,
  ``required``; truth ``gold_kids``), "How interesting would a child find this object?" (a ``<select
  required>`` 1-5 with an empty first option) and "Rewrite the label's FIRST sentence so a 9-year-old would
  understand it ... 8 to 30 words" (a textarea with no ``required``); a ``submit`` listener on ``document``
  itself, in the capture phase (not on the form, not on the button), refuses a rewrite under 8 or over 30
  words, so a blank one too (controls: 10 of its own items on ``kids``, no share);
- phishing_emails: three work emails a page, a Prolific-style fragment: "Is this email phishing or genuine?"
  (phishing / genuine / can't tell radios, ``required``; truth ``gold_verdict``), "What would you do with
  it?" (a ``<select>`` with an empty first option) and "What clue did you go on? (3 to 15 words)" (a text
  input, ``maxlength="150"``); the select and the input carry no ``required`` in the HTML: a
  ``DOMContentLoaded`` listener sets ``.required = true`` on every element of class ``must-answer`` (the
  page says "All three questions must be answered for every email"); the 3-15 words are only stated
  (10 separate controls on ``verdict`` at a share of 0.2);
- bird_sightings: one public bird record a page on MTurk's crowd HTML elements (a ``<crowd-form>``
  fragment): "Is this record plausible?" (a ``crowd-radio-group`` of three ``crowd-radio-button``s sharing
  ``name="verdict"``, no ``required``), "Which details in the notes support the identification? Tick all
  that apply." (six ``crowd-checkbox``es sharing ``name="evidence"``, one of them "Nothing in the report",
  no ``required``) and an optional ``crowd-text-area`` comment; a ``submit`` listener on
  ``document.querySelector('crowd-form')`` refuses a submit with no radio button checked or no box ticked
  (truth ``gold_verdict`` and ``gold_evidence``; no controls);
- camera_traps: four trail-camera frames a page, plain fragment: "Which animals are in this frame?" over
  nine boxes (one "Empty") EVERY one written ``required``, and the page's script, on load and on every box's
  ``change``, sets each box's ``required`` to "no box of this frame ticked" (the common idiom for "at least
  one"), "How many animals in total?" (``<input type="number" min="0" max="60" required>``) and "Light"
  (day / night radios, ``required``; truth ``gold_animals``, ``gold_count``, ``gold_light``; 10 separate
  controls on ``light`` at a share of 0.25);
- event_dates: four notice-board posts a page, a Prolific-style study fragment: the event's date (``<input
  type="date" min="2026-01-01" max="2028-12-31" required>``; some posts give only the weekday, to be worked
  out from the posting date), "Do you have to pay to attend?" (free / paid / not stated radios, ``required``)
  and an optional price (``<input type="number" step="0.01" min="0">``) (truth ``gold_date``,
  ``gold_entry``; no controls, no free text).

The definitions are bench/gate_heldout.py's (per page and route, MTurk and Prolific simulators, the default
crowd, 3 batches, 3 workers an item). "Required" for the gate's required-blank figure is the page as written,
its script's rules included: museum_labels kids, interest, rewrite; phishing_emails verdict, action, clue;
bird_sightings verdict, evidence; camera_traps animals, count, light; event_dates event_date, entry. The
same rules are counted again off the ledger (``approved_breaking``), each assignment once, beside honest
choices equal to the item's truth.

The free-text judges and limits, written before any run and without reading the simulator's, the import's or
QC's code:

- museum_labels ``rewrite`` (stated: 8 to 30 words; required by the script only): answers when it keeps
  what the label says about its object (a 4+ letter word sharing its first four letters with a 4+ letter
  word of the label's first sentence or of the object's name, common words aside) and is not that first
  sentence given back unchanged (its words, lower-cased, differ from the sentence's).
- phishing_emails ``clue`` (stated: 3 to 15 words; required by the load-time script): answers when it
  names a clue: a word of CLUE (link, url, address, sender, domain, spelling, grammar, typo, urgent, urgency,
  deadline, threat, locked, suspended, password, login, details, bank, card, payment, fee, refund, prize,
  won, gift, attachment, zip, macro, generic, "dear customer", gmail, colleague, internal, expected, normal,
  usual, known, official, intranet, "no link"...) or a 4+ letter word of the email's sender, subject or body
  (first four letters, common words aside).

The runner's limit is each field's stated minimum; each page's extra line adds the whole stated limit (8 to
30, 3 to 15 words) and the share within it that also answers. Further figures, off the ledger:
museum_labels, approved assignments with a rewrite outside 8-30 words (the script's rule) and honest
``kids`` equal to ``gold_kids``; phishing_emails, approved assignments with the action or the clue blank (the
script's rule) and honest verdicts equal to ``gold_verdict``; bird_sightings, approved assignments with no
verdict or no box (the script's rules), honest verdicts and tick sets equal to the item's; camera_traps,
approved assignments with a frame given no box (the script's rule), honest tick sets, counts and light equal
to the item's; event_dates, approved assignments with the date or the entry blank, honest dates and entries
equal to the item's.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout9.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout9.py``) it finds
its own bench package, so a checkout without this set (an older commit) can be measured from its own folder.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file from another checkout: this set's bench package first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gate_bench import share
from bench.gate_heldout import HONEST, ROOT, HeldoutPage, TextField, words
from bench.gate_heldout4 import _items, cli, whole_limit
from bench.gate_heldout5 import _given, _same_amount, _ticks, approved_breaking
from bench.gate_heldout6 import _combine
from bench.gate_heldout8 import COMMON_WORDS

PAGES_DIR = ROOT / "bench" / "gate_heldout9"
RESULTS = ROOT / "bench" / "results-gate-heldout9.json"

CLUE = re.compile(
    r"\b(links?|url|urls|web ?address|address|sender|domain|spelling|spelt|misspel\w*|grammar|typos?|"
    r"urgen\w*|deadline|hours|threat\w*|lock\w*|suspend\w*|passwords?|log ?in|login|sign ?in|details|bank\w*|"
    r"card|payment|pay|fee|refund|prize|won|win|lottery|gift ?cards?|attach\w*|zip|macros?|generic|"
    r"dear customer|gmail|colleague|internal|company|expected|normal|usual|routine|known|official|intranet|"
    r"no links?|fake|odd|strange|suspicious|scam|too good|secret|pressure|legit\w*)\b", re.I)


def _stems(text: str) -> set[str]:
    return {w.lower()[:4] for w in words(text) if len(w) >= 4 and w.lower() not in COMMON_WORDS}


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]


def rewrites_label(text: str, item: dict[str, str]) -> bool:
    """Keeps the first sentence's object (a word of it or of the object's name, first four letters) and is
    not that sentence given back as it stands."""
    first = first_sentence(item.get("label_text", ""))
    same = [w.lower() for w in words(text)] == [w.lower() for w in words(first)]
    return not same and bool(_stems(text) & _stems(f"{first} {item.get('object_name', '')}"))


def names_clue(text: str, item: dict[str, str]) -> bool:
    """A word of a phishing clue, or a word of the email (sender, subject or body, first four letters)."""
    email = f"{item.get('sender', '')} {item.get('subject', '')} {item.get('body', '')}"
    return bool(CLUE.search(text)) or bool(_stems(text) & _stems(email))


def right_share(page: str, fld: str, gold: str, same: Callable[[str, str], bool] | None = None) -> Any:
    """Honest answers of ``fld`` equal to the item's ``gold`` column (``same``: how two answers compare)."""
    equal = same or (lambda said, known: said.strip().lower() == known.strip().lower())

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [(i, f[fld]) for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and fld in f]
        right = sum(equal(v, items[i].get(gold, "")) for i, v in given)
        return {f"honest_{fld}_right": f"{right}/{len(given)}", f"honest_{fld}_right_share": share(right, len(given))}
    return extra


def _same_ticks(said: str, known: str) -> bool:
    return _ticks(said.lower()) == _ticks(known.lower())


def _blank(fld: str) -> Callable[[dict[str, str]], bool]:
    return lambda f: not f.get(fld, "").strip()


def _no_box(fld: str) -> Callable[[dict[str, str]], bool]:
    # a crowd-checkbox group may be kept as its ticked values or as a JSON of true/false per box
    return lambda f: not {t for t in _ticks(f.get(fld, "")) if t.lower() not in ("false", "{}", "[]")}


def _n_words(fields: dict[str, str], fld: str) -> int:
    return len(words(fields.get(fld, "")))


def _same_date(said: str, known: str) -> bool:
    return said.strip()[:10] == known.strip()


museum_extra = _combine(whole_limit("museum_labels", "rewrite", rewrites_label, limit=(8, 30, False),
                                    folder=PAGES_DIR),
                        approved_breaking({"rewrite_outside_8_30": lambda f: not 8 <= _n_words(f, "rewrite") <= 30,
                                           "interest_blank": _blank("interest")}),
                        right_share("museum_labels", "kids", "gold_kids"))
phishing_extra = _combine(whole_limit("phishing_emails", "clue", names_clue, limit=(3, 15, False),
                                      folder=PAGES_DIR),
                          approved_breaking({"action_blank": _blank("action"), "clue_blank": _blank("clue")}),
                          right_share("phishing_emails", "verdict", "gold_verdict"))
bird_extra = _combine(approved_breaking({"verdict_blank": _blank("verdict"), "no_evidence_box": _no_box("evidence")}),
                      right_share("bird_sightings", "verdict", "gold_verdict"),
                      right_share("bird_sightings", "evidence", "gold_evidence", _same_ticks))
camera_extra = _combine(approved_breaking({"no_animal_box": _no_box("animals"), "count_blank": _blank("count")}),
                        right_share("camera_traps", "animals", "gold_animals", _same_ticks),
                        right_share("camera_traps", "count", "gold_count", _same_amount),
                        right_share("camera_traps", "light", "gold_light"))
events_extra = _combine(approved_breaking({"date_blank": _blank("event_date"), "entry_blank": _blank("entry")}),
                        right_share("event_dates", "event_date", "gold_date", _same_date),
                        right_share("event_dates", "entry", "gold_entry"))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # the rewrite's 8-30 words (so its requirement) are a capture-phase submit listener's on document
    _page("museum_labels", 1, ("kids", "interest", "rewrite"), texts={"rewrite": TextField(
        8, rewrites_label, "a word of the label's first sentence or the object's name (first four letters), "
        "and not that sentence unchanged")},
          keys={"controls": '"museum_labels_controls.csv"'}, truth='{kids = "gold_kids"}', controls=True,
          extra=museum_extra),
    # the select and the clue are required by a DOMContentLoaded loop over class must-answer
    _page("phishing_emails", 3, ("verdict", "action", "clue"), texts={"clue": TextField(
        3, names_clue, "a word of a clue (link, sender, domain, spelling, urgent, password, attachment, "
        "gift card, colleague, expected...) or a word of the email (first four letters)")},
          keys={"controls": '"phishing_emails_controls.csv"', "control_share": "0.2"},
          truth='{verdict = "gold_verdict"}', controls=True, extra=phishing_extra),
    # crowd-form: the verdict and "at least one box" are the crowd-form submit listener's only
    _page("bird_sightings", 1, ("verdict", "evidence"),
          truth='{verdict = "gold_verdict", evidence = "gold_evidence"}', extra=bird_extra),
    # every box written required; the script keeps "required" only while no box of the frame is ticked
    _page("camera_traps", 4, ("animals", "count", "light"),
          keys={"controls": '"camera_traps_controls.csv"', "control_share": "0.25"},
          truth='{animals = "gold_animals", count = "gold_count", light = "gold_light"}', controls=True,
          extra=camera_extra),
    _page("event_dates", 4, ("event_date", "entry"), truth='{event_date = "gold_date", entry = "gold_entry"}',
          extra=events_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
