"""``make bench-gate-heldout11``: bench/gate_heldout.py's gate and rehearsal on an eleventh held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harness docstrings (bench/gate_heldout11/), each with a 30-item file:

- bike_listings: one second-hand bike advert a page, a full HTML document with its own CSS, MTurk's
  ``externalHIT_v1.js`` and its own form: "What kind of bike is this?" (six radios, ``required``; truth
  ``gold_type``), "What does the ad say about the bike's condition?" (a ``<select required>`` with an empty
  first option) and "Write ONE question you would ask the seller before buying this bike ... 4 to 20 words"
  (a ``required`` textarea; nothing enforces the range); controls: 10 of its own items on ``bike_type``, no
  share;
- game_rules: two board-game house rules a page, an MTurk fragment whose script checks the answers: "Could a
  new player follow this rule without asking anyone?" (yes / mostly / no radios) and "What is unclear or
  missing in this rule? (5 to 30 words)" (a textarea), neither ``required`` in the HTML: a ``submit`` listener
  on ``document.querySelector('form')`` loops over ``.rule-card`` blocks and refuses a card with no radio
  checked or with fewer than 5 or more than 30 words (a live word counter beside each box); no truth, no
  controls;
- newsletter_notices: three village-newsletter notices a page, a plain ``${column}`` fragment: the section it
  belongs in (six radios, ``required``; truth ``gold_section``) and "Title (3 to 10 words, one line, no full
  stop)" (``<input type="text" required maxlength="80">``; the words only stated); 10 separate controls on
  ``section`` at a share of 0.2;
- cafe_reviews: one cafe review a page on MTurk's crowd HTML elements (``<crowd-form>`` with
  ``<crowd-instructions>``): the tone (a ``crowd-radio-group`` of three ``crowd-radio-button``s sharing
  ``name="tone"``) and "Which aspects does it talk about?" as seven ``crowd-checkbox``es EACH WITH ITS OWN
  NAME (food, drink, service, price, cleanliness, noise, nothing), class ``aspect``; nothing carries
  ``required``: a ``submit`` listener on the crowd-form, attached on ``all-crowd-elements-ready``, refuses a
  submit with no radio button checked or no ``crowd-checkbox.aspect`` checked; truth ``{tone = "gold_tone"}``
  (``gold_aspects`` kept for the figures below), no controls;
- sleep_diary: four sleep-study diary lines a page, a Prolific-style study fragment with a "Next" button:
  hours slept (``<input type="number" min="0" max="16" step="0.5" required>``), "Did they wake up during the
  night?" (yes / no / not stated radios, ``required``) and the morning feeling (a ``<select required>`` whose
  first option is ``selected disabled``); truth ``{woke = "gold_woke", mood = "gold_mood"}`` (``gold_hours``
  kept for the figures), no controls.

"Required" for the gate's required-blank figure is the page as written, its script included, as a person's
browser enforces it: bike_listings bike_type, condition, seller_question; game_rules clarity, problem (the
script's, with 5 to 30 words); newsletter_notices section, headline; cafe_reviews tone (the script's; its
"at least one aspect" spans seven separately named fields, so it is counted off the ledger instead,
``no_aspect_ticked``); sleep_diary hours, woke, mood.

The free-text judges and limits, written before any run and without reading the simulator's, the import's or
QC's code (three kinds of question: a question to ask, what is wrong with a text, a one-line title):

- bike_listings ``seller_question`` (stated: 4 to 20 words; required): answers the question when it IS a
  question (a "?" or a first word of ASK: what, which, how, why, when, where, who, is, are, was, does, do,
  did, has, have, can, could, would, will, any...) and is about this bike (a word sharing its first four
  letters with a 4+ letter word of the ad's title or description, common words aside, or a word of BIKE:
  frame, size, gear, brake, tyre, tire, wheel, chain, saddle, battery, charger, motor, service, receipt,
  stolen, collect, deliver, ride, mileage, crash, rust...).
- game_rules ``problem`` (stated: 5 to 30 words; the script refuses outside it): answers when it names a
  gap (a word of GAP: unclear, ambiguous, vague, missing, confusing, contradict..., "does not/doesn't say",
  explain, specify, define, mention, how many, how much, which, whether, who, when, what happens, what
  counts, enough, sometimes, depends, exception, unless, if...) and refers to this rule (a word sharing its
  first four letters with a 4+ letter word of the rule or the game, common words aside).
- newsletter_notices ``headline`` (stated: 3 to 10 words, one line, no full stop; required): answers when it
  is one line of at most one sentence and names something of this notice (a word sharing its first four
  letters with a 4+ letter word of the notice, common words aside).

The runner's limit is each field's stated minimum; each page's extra line adds the whole stated limit (4 to
20, 5 to 30, 3 to 10 words) and the share within it that also answers. Further figures, off the ledger:
bike_listings, honest bike types equal to ``gold_type``, approved assignments outside 4 to 20 words or with no
"?" and no question word; game_rules, approved assignments outside 5 to 30 words (the script's rule) or with
no clarity; newsletter_notices, honest sections equal to ``gold_section``, approved headlines outside 3 to 10
words or ending in a full stop; cafe_reviews, approved assignments with no aspect box ticked (the script's
rule) or no tone, honest tones equal to ``gold_tone`` and honest aspect sets equal to ``gold_aspects``;
sleep_diary, approved assignments with hours, woke or mood blank or hours outside 0-16 or off the half hour,
honest hours within half an hour of ``gold_hours`` (where it has one), honest woke and mood equal to theirs.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout11.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout11.py``) it finds
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
from bench.gate_heldout3 import STOP, one_sentence
from bench.gate_heldout4 import _items, cli, whole_limit
from bench.gate_heldout5 import _given, _ticks, approved_breaking
from bench.gate_heldout6 import _combine

PAGES_DIR = ROOT / "bench" / "gate_heldout11"
RESULTS = ROOT / "bench" / "results-gate-heldout11.json"

COMMON_WORDS = STOP | {"about", "would", "could", "should", "just", "your", "yours", "very", "really", "please",
                       "them", "than", "only", "also", "like", "more", "most", "much", "each", "every", "other",
                       "does", "because", "good", "rule", "game"}
ASK = re.compile(r"^(what|which|how|why|when|where|who|whose|is|are|was|were|does|do|did|has|have|had|can|"
                 r"could|would|will|may|might|should|any)\b", re.I)
BIKE = re.compile(r"\b(frame\w*|size\w*|gear\w*|brake\w*|tyres?|tires?|wheel\w*|chain\w*|saddle\w*|batter\w*|"
                  r"charg\w*|motor\w*|servic\w*|receipt\w*|stolen|collect\w*|deliver\w*|rid\w*|mileage|miles?|"
                  r"crash\w*|rust\w*|suspension|fork\w*|lock\w*|height|tall|age|owner\w*|bike\w*|cycl\w*)\b", re.I)
GAP = re.compile(
    r"\b(unclear\w*|ambigu\w*|vague\w*|missing|miss\w*|confus\w*|contradict\w*|doesn't|does not|don't|do not|"
    r"isn't|is not|not say\w*|not clear|never|explain\w*|specif\w*|defin\w*|mention\w*|how many|how much|how long|"
    r"which|whether|who|when|what happens|what counts|what if|enough|sometimes|depends|depending|exception\w*|"
    r"unless|if|reason\w*|within reason|agree\w*|decide\w*|undefined|loophole\w*|open to|interpret\w*)\b", re.I)
OFF = ("", "false", "0", "off", "no", "none", "null")
ASPECTS = ("food", "drink", "service", "price", "cleanliness", "noise", "nothing")


def _stems(text: str) -> set[str]:
    return {w.lower()[:4] for w in words(text) if len(w) >= 4 and w.lower() not in COMMON_WORDS}


def _shares_stem(text: str, source: str) -> bool:
    return bool(_stems(text) & _stems(source))


def _is_question(text: str) -> bool:
    return "?" in text or bool(ASK.search(text.strip()))


def asks_seller(text: str, item: dict[str, str]) -> bool:
    """A question, about this bike (a word of the ad, first four letters, or of BIKE)."""
    ad = f"{item.get('title', '')} {item.get('description', '')}"
    return _is_question(text) and (_shares_stem(text, ad) or bool(BIKE.search(text)))


def names_gap(text: str, item: dict[str, str]) -> bool:
    """A gap named (GAP) and a word of this rule or game (first four letters)."""
    return bool(GAP.search(text)) and _shares_stem(text, f"{item.get('game', '')} {item.get('rule', '')}")


def titles_notice(text: str, item: dict[str, str]) -> bool:
    """One line, at most one sentence, with a word of the notice (first four letters)."""
    line = text.strip()
    return "\n" not in line and one_sentence(line) and _shares_stem(line, item.get("notice", ""))


def right_share(page: str, fld: str, gold: str, same: Any = None, read: Any = None) -> Any:
    """Honest answers of ``fld`` (``read``: from an item's fields) equal to the item's ``gold`` column, on the
    items that have one."""
    equal = same or (lambda said, known: said.strip().lower() == known.strip().lower())
    value = read or (lambda f: f.get(fld))

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [(i, value(f)) for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and value(f) is not None
                 and items[i].get(gold, "").strip()]
        right = sum(equal(v, items[i][gold]) for i, v in given)
        return {f"honest_{fld}_right": f"{right}/{len(given)}", f"honest_{fld}_right_share": share(right, len(given))}
    return extra


def _on(value: str) -> bool:
    return value.strip().lower() not in OFF


def _aspects(fields: dict[str, str]) -> str | None:
    """The aspect boxes ticked, ``|``-joined (None: no box on the ledger)."""
    if not any(a in fields for a in ASPECTS):
        return None
    return "|".join(a for a in ASPECTS if _on(fields.get(a, "")))


def _n_words(fields: dict[str, str], fld: str) -> int:
    return len(words(fields.get(fld, "")))


def _blank(fld: str) -> Any:
    return lambda f: not f.get(fld, "").strip()


def _outside(fld: str, low: int, high: int) -> Any:
    return lambda f: fld in f and not low <= _n_words(f, fld) <= high


def _hours_off(fields: dict[str, str]) -> bool:
    """Hours given yet not a number of half hours within 0-16."""
    said = fields.get("hours", "").strip()
    try:
        return bool(said) and not (0 <= float(said) <= 16 and float(said) * 2 == int(float(said) * 2))
    except ValueError:
        return True


def _near_hours(said: str, known: str) -> bool:
    try:
        return abs(float(said) - float(known)) <= 0.5
    except ValueError:
        return False


bike_extra = _combine(
    whole_limit("bike_listings", "seller_question", asks_seller, limit=(4, 20, False), folder=PAGES_DIR),
    approved_breaking({"seller_question_outside_4_20": _outside("seller_question", 4, 20),
                       "seller_question_not_a_question": lambda f: bool(f.get("seller_question", "").strip())
                       and not _is_question(f["seller_question"]),
                       "condition_blank": _blank("condition")}),
    right_share("bike_listings", "bike_type", "gold_type"))
rules_extra = _combine(
    whole_limit("game_rules", "problem", names_gap, limit=(5, 30, False), folder=PAGES_DIR),
    approved_breaking({"problem_outside_5_30": _outside("problem", 5, 30), "clarity_blank": _blank("clarity")}))
notices_extra = _combine(
    whole_limit("newsletter_notices", "headline", titles_notice, limit=(3, 10, False), folder=PAGES_DIR),
    approved_breaking({"headline_outside_3_10": _outside("headline", 3, 10),
                       "headline_full_stop": lambda f: f.get("headline", "").strip().endswith(".")}),
    right_share("newsletter_notices", "section", "gold_section"))
cafe_extra = _combine(
    approved_breaking({"no_aspect_ticked": lambda f: _aspects(f) == "", "tone_blank": _blank("tone")}),
    right_share("cafe_reviews", "tone", "gold_tone"),
    right_share("cafe_reviews", "aspects", "gold_aspects", lambda s, k: _ticks(s) == _ticks(k), _aspects))
sleep_extra = _combine(
    approved_breaking({"hours_blank": _blank("hours"), "woke_blank": _blank("woke"), "mood_blank": _blank("mood"),
                       "hours_not_half_hours_0_16": _hours_off}),
    right_share("sleep_diary", "hours", "gold_hours", _near_hours),
    right_share("sleep_diary", "woke", "gold_woke"),
    right_share("sleep_diary", "mood", "gold_mood"))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # a full document with its own CSS and form; the 4-20 word range is only stated
    _page("bike_listings", 1, ("bike_type", "condition", "seller_question"), texts={"seller_question": TextField(
        4, asks_seller, "a question (a '?' or a question word first) about this bike (a word of the ad, first "
        "four letters, or frame, size, gears, brakes, battery, service, receipt...)")},
          keys={"controls": '"bike_listings_controls.csv"'}, truth='{bike_type = "gold_type"}', controls=True,
          extra=bike_extra),
    # both answers required only by a submit listener looping over the rule cards
    _page("game_rules", 2, ("clarity", "problem"), texts={"problem": TextField(
        5, names_gap, "a gap named (unclear, missing, doesn't say, how many, which, whether, what happens, "
        "unless...) and a word of the rule or game (first four letters)")}, extra=rules_extra),
    # plain required fields; the title's 3-10 words only stated
    _page("newsletter_notices", 3, ("section", "headline"), texts={"headline": TextField(
        3, titles_notice, "one line, at most one sentence, with a word of the notice (first four letters)")},
          keys={"controls": '"newsletter_notices_controls.csv"', "control_share": "0.2"},
          truth='{section = "gold_section"}', controls=True, extra=notices_extra),
    # crowd-form: the tone and "at least one of seven separately named boxes" are a submit listener's
    _page("cafe_reviews", 1, ("tone",), truth='{tone = "gold_tone"}', extra=cafe_extra),
    # a number, radios and a select, all required in the HTML
    _page("sleep_diary", 4, ("hours", "woke", "mood"), truth='{woke = "gold_woke", mood = "gold_mood"}',
          extra=sleep_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
