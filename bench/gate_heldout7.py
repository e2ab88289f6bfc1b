"""``make bench-gate-heldout7``: bench/gate_heldout.py's gate and rehearsal on a seventh held-out set of pages.

Four pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harness (bench/gate_heldout7/), each with a 30-item file:

- train_connections: three journeys a page, in the plain style of a requester who uses only ``required`` and
  standard inputs: a train's arrival (on time or late), the connecting train or bus and the walk between,
  "Can the traveller make the connection?" (yes/no radio) and "How many minutes will they have to spare?"
  (``<input type="number" min="0" max="180" step="1">``), both ``required`` (truth columns ``gold_makes`` and
  ``gold_spare``; 12 separate control items on ``makes`` at a share of 0.25);
- idiom_meanings: one idiom in a sentence a page (a page that loads crowd-html-elements.js yet uses a plain
  form): "Is the idiom used with its usual meaning?" (yes/no radio, ``required``), "In your own words, what
  does the idiom mean? ... Use 3 to 20 words." (a ``required`` textarea) and an optional select (truth column
  ``gold_correct``; 10 separate control items on ``correct`` at a share of 0.2);
- leaflet_warnings: two medicine-leaflet passages a page on a full HTML document: "Which of these does the
  passage warn about? Select all that apply. (at least one)" over six boxes and "None of these", the "at least
  one" checked only by the form's ``onsubmit="return checkWarnings()"``, and "Does the passage say what to do
  if someone takes too much?" (yes/no radio, ``required``; truth columns ``gold_warns`` and ``gold_overdose``;
  controls: 10 of its own items on ``overdose``);
- town_budget: one council spending proposal a page (a Prolific-style study, no right answers, no controls):
  support (five radios, ``required``), an attention item ("please select 'Strongly disagree'", radios,
  ``required``), "What, if anything, would you change about this proposal, and why? Please write between 10
  and 50 words." (a textarea without ``required``) and, shown by the script when the worker opposes (1 or 2),
  "What would you spend the money on instead? (no more than 15 words)"; the form's submit listener refuses
  under 10 or over 50 words in the first box, and a blank or over-15-word second box when the worker opposes.

The definitions are bench/gate_heldout.py's (per page and route, MTurk and Prolific simulators, the default
crowd, 3 batches, 3 workers an item). The free-text judges and limits, written before any run and without
reading the simulator's, the import's or QC's code:

- idiom_meanings ``meaning`` (stated: 3 to 20 words; required by the page): answers the question when it
  explains the idiom: one of the item's ``meaning_words`` (written with the item, |-separated) is in it (a
  phrase of several words as a phrase; a word of 4+ letters by a word sharing its first four letters; a
  shorter word as a whole word), and it is not the idiom alone (a word of 3+ letters outside the idiom).
- town_budget ``change`` (stated: between 10 and 50 words; required by the script only): answers when it
  gives a view or a change (a word of STANCE: keep, change, cut, add, more, less, instead, spend, money, cost,
  cheap, expensive, budget, afford, should, would, prefer, support, oppose, agree, nothing, fine, good, bad,
  worth, waste, priority, rather, better, increase, reduce, extend, scrap, trial, pilot...) and refers to the
  proposal (a word sharing its first four letters with a 4+ letter word of the proposal, common words aside).

The runner's limit is each field's stated minimum; each page's extra line adds the whole stated limit (3 to
20 and 10 to 50 words) and the share within it that also answers. Further figures, off the ledger:
train_connections, approved assignments with ``spare`` not a whole number within 0-180 and honest ``makes``
and ``spare`` equal to the truth; idiom_meanings, honest ``correct`` equal to ``gold_correct``;
leaflet_warnings, approved assignments with a passage given no box (the script's rule) or "none" beside
another box, and honest tick sets and ``overdose`` equal to the truth; town_budget, approved assignments whose
``change`` is under 10 or over 50 words, or that oppose with ``instead`` blank or over 15 words (the
script's rules), and the attention item by honest and bad profile (passed: "strongly_disagree"), with the bad
work that failed it unnoticed.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout6.py; figures go to bench/results-gate-heldout7.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout7.py``) it finds
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
from bench.gate_heldout6 import _combine, _same_ticks

PAGES_DIR = ROOT / "bench" / "gate_heldout7"
RESULTS = ROOT / "bench" / "results-gate-heldout7.json"

STANCE = re.compile(
    r"\b(keep\w*|kept|chang\w*|cut|cuts|cutting|add\w*|more|less|fewer|instead|spend\w*|spent|money|cost\w*|"
    r"cheap\w*|expensive|budget\w*|afford\w*|should|would|prefer\w*|support\w*|oppos\w*|agree\w*|disagree\w*|"
    r"nothing|fine|good|great|bad|worth\w*|waste\w*|priorit\w*|rather|better|worse|increas\w*|reduc\w*|"
    r"extend\w*|scrap\w*|drop\w*|delay\w*|trial\w*|pilot\w*|improv\w*|need\w*|fund\w*|pay|paid|tax\w*|"
    r"benefit\w*|help\w*|useful|unnecessary|sensible|like|love|hate|happy|unhappy|concern\w*|worr\w*)\b", re.I)


def explains_idiom(text: str, item: dict[str, str]) -> bool:
    """One of the item's meaning words or phrases, and a 3+ letter word that is not the idiom's."""
    said = [w.lower() for w in words(text)]
    idiom = {w.lower() for w in words(item.get("idiom", ""))}
    if not any(len(w) >= 3 and w not in idiom for w in said):
        return False
    low = " " + " ".join(said) + " "
    return any(_names(entry, said, low) for entry in
               (e.strip().lower() for e in item.get("meaning_words", "").split("|") if e.strip()))


def _names(entry: str, said: list[str], low: str) -> bool:
    """A phrase as a phrase, a 4+ letter word by its first four letters, a shorter word whole."""
    if " " in entry or "'" in entry:
        return f" {' '.join(w.lower() for w in words(entry))} " in low
    return entry in said or (len(entry) >= 4 and any(w[:4] == entry[:4] for w in said if len(w) >= 4))


def says_change(text: str, item: dict[str, str]) -> bool:
    """A view or a change (STANCE), and the proposal referred to (a 4+ letter word by its first four letters)."""
    about = {w.lower()[:4] for w in words(item.get("proposal", "")) if len(w) >= 4 and w.lower() not in STOP}
    refers = any(w.lower()[:4] in about for w in words(text) if len(w) >= 4 and w.lower() not in STOP)
    return bool(STANCE.search(text)) and refers


def right_share(page: str, fld: str, gold: str, same: Any = None) -> Any:
    """Honest answers of ``fld`` equal to the item's ``gold`` column (set 6's, over this set's folder)."""
    equal = same or (lambda said, known: said.strip().lower() == known.strip().lower())

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [(i, f[fld]) for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and fld in f]
        right = sum(equal(v, items[i].get(gold, "")) for i, v in given)
        return {f"honest_{fld}_right": f"{right}/{len(given)}", f"honest_{fld}_right_share": share(right, len(given))}
    return extra


def _spare_off(fields: dict[str, str]) -> bool:
    spare = fields.get("spare", "").strip()
    return "spare" in fields and not (re.fullmatch(r"\d{1,3}", spare) and 0 <= int(spare) <= 180)


def _opposed(fields: dict[str, str]) -> bool:
    return fields.get("support", "").strip() in ("1", "2")


def _change_outside(fields: dict[str, str]) -> bool:
    return not 10 <= len(words(fields.get("change", ""))) <= 50


train_extra = _combine(approved_breaking({"spare_off": _spare_off}),
                       right_share("train_connections", "makes", "gold_makes"),
                       right_share("train_connections", "spare", "gold_spare", _same_amount))
idiom_extra = _combine(whole_limit("idiom_meanings", "meaning", explains_idiom, limit=(3, 20, False),
                                   folder=PAGES_DIR),
                       right_share("idiom_meanings", "correct", "gold_correct"))
leaflet_extra = _combine(approved_breaking({
    "no_box": lambda f: not _ticks(f.get("warns", "")),
    "none_beside_another": lambda f: "none" in _ticks(f.get("warns", "")) and len(_ticks(f["warns"])) > 1}),
    right_share("leaflet_warnings", "warns", "gold_warns", _same_ticks),
    right_share("leaflet_warnings", "overdose", "gold_overdose"))
budget_extra = _combine(whole_limit("town_budget", "change", says_change, limit=(10, 50, False), folder=PAGES_DIR),
                        approved_breaking({
                            "change_outside_10_50": _change_outside,
                            "opposed_instead_blank": lambda f: _opposed(f) and not f.get("instead", "").strip(),
                            "opposed_instead_over_15": lambda f: _opposed(f)
                            and len(words(f.get("instead", ""))) > 15}),
                        attention_tally("attention_check", lambda value: value.strip().lower() == "strongly_disagree"))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # plain: both fields required by the page's own attribute, the number within min/max
    _page("train_connections", 3, ("makes", "spare"), keys={"controls": '"train_connections_controls.csv"',
                                                          "control_share": "0.25"},
          truth='{makes = "gold_makes", spare = "gold_spare"}', controls=True, extra=train_extra),
    # the explanation box is required by the page; its 3-20 words are stated only
    _page("idiom_meanings", 1, ("correct", "meaning"), texts={"meaning": TextField(
        3, explains_idiom, "one of the item's meaning_words (a phrase as a phrase, a 4+ letter word by its first "
        "four letters, a shorter word whole) and a 3+ letter word outside the idiom")},
          keys={"controls": '"idiom_meanings_controls.csv"', "control_share": "0.2"},
          truth='{correct = "gold_correct"}', controls=True, extra=idiom_extra),
    # "at least one box" is the form's onsubmit function's
    _page("leaflet_warnings", 2, ("warns", "overdose"), keys={"controls": '"leaflet_warnings_controls.csv"'},
          truth='{overdose = "gold_overdose", warns = "gold_warns"}', controls=True, extra=leaflet_extra),
    # the 10-50 word range and the conditional box are the submit listener's; the attention item is a radio group
    _page("town_budget", 1, ("support", "attention_check", "change"), texts={"change": TextField(
        10, says_change, "a word of STANCE (keep, change, cut, more, less, instead, spend, cost, should, support, "
        "oppose, worth, waste...) and a word of the proposal (first four letters)")}, extra=budget_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
