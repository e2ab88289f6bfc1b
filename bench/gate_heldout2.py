"""``make bench-gate-heldout2``: bench/gate_heldout.py's gate and rehearsal on a second held-out set of pages.

Five pages written fresh, as requesters write them for MTurk, in shapes the first set lacks
(bench/gate_heldout2/): a review's authenticity (a radio group with "can't tell", separate control items
mixed in at a share); a sentence's language (a full HTMLQuestion-style page whose select is required only
by its form's onsubmit script; controls are five of its own items); three tweets a page on a crowd-form
(a checkbox group "tick at least one", checked by the crowd-form's submit handler, and a required sarcasm
radio); a photo's clarity 1-5 with a required explanation of at least 8 words (a word-counter script);
two article/summary pairs a page whose "If no, what is wrong?" box is required only by the submit
button's onclick check when the answer is no (controls mixed in at a share). Each has a 30-item file,
with truth columns where the task has a right answer.

The definitions are bench/gate_heldout.py's (per page and route, MTurk and Prolific simulators, the
default crowd, 3 batches, 3 workers an item). The free-text checks, stated before any run:

- object_clarity ``explanation`` (the page states "at least 8 words"): answers the question when it
  names visibility: a word of VISIBILITY (clear, visible, see, blur, sharp, focus, dark, bright, light,
  shadow, hidden, covered, cropped, cut off, background, detail, fuzzy, frame, angle, object...).
- summary_match ``whats_wrong`` (no stated minimum), on the items whose summary is wrong
  (``gold_match`` no): answers when it names a mismatch, a word of MISMATCH (not, wrong, incorrect,
  never, instead, actually, says, claims, missing, only, but...) or a word of 5+ letters of the item's
  summary.

summary_match also counts the approved assignments that answered "no" with the box left blank (the
page's conditional requirement, which the gate's required-blank figure, unconditional, cannot state).
``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages`` and ``--label`` as bench/gate_heldout.py;
figures go to bench/results-gate-heldout2.json under the measured code's commit (or ``--label``).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from bench.gate_heldout import HONEST, ROOT, HeldoutPage, TextField, words
from bench.gate_heldout import main as heldout_main

PAGES_DIR = ROOT / "bench" / "gate_heldout2"
RESULTS = ROOT / "bench" / "results-gate-heldout2.json"

VISIBILITY = re.compile(r"\b(clear\w*|unclear|visib\w*|invisible|see|seen|blur\w*|sharp\w*|focus\w*|dark\w*|"
                        r"bright\w*|light\w*|shadows?|hidden|hid\w*|cover\w*|crop\w*|cut off|background|"
                        r"foreground|details?|fuzzy|frame\w*|angle|obscur\w*|distinct\w*|exposure|noise|"
                        r"grain\w*|object|subject|centre|center|small|tiny|far|close|view)\b", re.I)
MISMATCH = re.compile(r"\b(not|no|wrong\w*|incorrect\w*|never|instead|actually|says?|said|claims?|missing|"
                      r"only|but|false|mistake\w*|error|untrue|doesn't|does not|didn't|isn't|wasn't)\b", re.I)


def names_mismatch(text: str, item: dict[str, str]) -> bool:
    """A correction word, or a word of 5+ letters the item's summary has."""
    summary = {w.lower() for w in words(item.get("summary", "")) if len(w) >= 5}
    return bool(MISMATCH.search(text)) or bool(summary & {w.lower() for w in words(text)})


def no_without_reason(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
    """Approved assignments where an item was answered "no" and its "what is wrong" box left blank."""
    approved = {r[0] for r in db.execute("SELECT assignment_id FROM decisions WHERE campaign = ? AND action = "
                                         "'approve'", [campaign])}
    workers = {r[0]: r[1] for r in db.execute("SELECT assignment_id, worker_id FROM assignments WHERE campaign = ?",
                                              [campaign])}
    given: dict[tuple[str, str], dict[str, str]] = {}
    for a, item, fld, value in db.execute("SELECT assignment_id, item_id, field, value FROM answers WHERE "
                                          "campaign = ? AND item_id != ''", [campaign]):
        given.setdefault((a, item), {})[fld] = value or ""
    said_no = {k for k, f in given.items() if f.get("match", "").strip().lower() == "no"}
    blank = {a for (a, item) in said_no if not given[(a, item)].get("whats_wrong", "").strip()}
    honest = {a for a in blank if profiles.get(workers.get(a, "")) in HONEST}
    return {"answers_no": len(said_no), "approved_no_with_reason_blank": len(blank & approved),
            "of_them_honest": len(honest & approved)}


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    _page("review_spam", 1, ("verdict",), keys={"controls": '"review_spam_controls.csv"', "control_share": "0.2"},
          truth='{verdict = "gold_verdict"}', controls=True),
    # the select is required only by the form's onsubmit check
    _page("sentence_language", 1, ("language",), keys={"controls": '"sentence_language_controls.csv"'},
          truth='{language = "true_language"}', controls=True),
    # "tick at least one" is the crowd-form submit handler's check
    _page("tweet_emotions", 3, ("emotions", "sarcastic"),
          truth='{emotions = "gold_emotions", sarcastic = "gold_sarcastic"}'),
    _page("object_clarity", 1, ("clarity", "explanation"), texts={"explanation": TextField(
        8, lambda t, _i: bool(VISIBILITY.search(t)), "names visibility (clear, visible, see, blur, sharp, focus, "
        "dark, bright, light, shadow, hidden, covered, cropped, background, detail, fuzzy, frame, angle, object...)")}),
    _page("summary_match", 2, ("match",), texts={"whats_wrong": TextField(
        0, names_mismatch, "on summaries that are wrong: a mismatch word (not, wrong, incorrect, never, instead, "
        "actually, says, claims, missing, only, but...) or a 5+ letter word of the item's summary",
        lambda item: item.get("gold_match") == "no")},
          keys={"controls": '"summary_match_controls.csv"', "control_share": "0.25"},
          truth='{match = "gold_match"}', controls=True, extra=no_without_reason),
)


def main(argv: list[str] | None = None) -> int:
    return heldout_main(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
