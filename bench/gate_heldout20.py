"""``make bench-gate-heldout20``: bench/gate_heldout.py's gate and rehearsal on a twentieth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses named in its brief (bench/gate_heldout20/), each with a
30-item file of content of its own:

- odd_one_out: FIVE word puzzles a page for a brain-training app for older adults (``word1`` to ``word4``), a
  plain ``${column}`` fragment in MTurk's requester-UI style with its own CSS and an "Instructions:" paragraph:
  "Which word is the odd one out?" (four radios valued 1-4 and labelled with the words, ``required``; truth
  ``gold_odd``, 8 / 8 / 7 / 7) and "What do the other three have in common? Answer in 1 to 5 words, for example
  "kinds of fruit" or "all can fly"." (a ``required`` text input, ``maxlength="60"``); ``gold_common``
  (``|``-joined words of what the three share) kept for the judge; controls: the requester's own file of 8 of
  the items file's own ids (``odd_one_out_controls.csv``: ``item_id,field,answer`` on ``odd``), named in
  ``[answers] controls`` at a share of 0.2 (the import's proposal is overwritten by it);
- crossword_clues: ONE answer word a page for a community newspaper's quick crossword (``answer``, ``letters``,
  the editor's ``note``), a full HTML document with its own CSS, its own ``<form>`` (``mturk_form``, MTurk's
  ``externalSubmit``, ``onsubmit="return checkClue();"``), MTurk's ``assignmentId`` field and the usual
  ``turkGetParam`` script: "Write a clue for this answer. No more than 8 words. Do not use the answer itself, or
  any word that contains it." (a ``required`` text input, ``maxlength="80"``, a live word count), "What kind of
  clue did you write?" (definition / fill in the blank / description / wordplay radios, ``required``) and "Would
  most adults know this word?" (yes / no radios, ``required``); ``checkClue`` refuses, each with an ``alert``
  message, a clue of more than 8 words and a clue holding the answer (read from the page's own text, case
  ignored); no truth, no controls; ``gold_related`` (``|``-joined words a clue for the answer would use) kept
  for the judge;
- campus_directions: TWO visitor questions a page at a hospital's main entrance (``visitor``, ``place``, the
  site ``directory`` entry), on MTurk's crowd HTML elements (``<crowd-form>`` with ``<crowd-instructions>``:
  short summary, detailed instructions, a positive and a negative example): "Which floor is PLACE on?" (a
  ``crowd-radio-group required`` of five ``crowd-radio-button``s SHARING ``name="floor"``; ``gold_floor``,
  basement 4 / ground 11 / first 7 / second 5 / third 3), "How will the visitor get there from the main
  entrance? Tick all that apply (at least one)." (six ``crowd-checkbox``es each named on its own, ``way_lift``,
  ``way_stairs``, ``way_ramp``, ``way_outdoor_path``, ``way_link_bridge``, ``way_corridor``, none ``required``)
  and "Write the directions a volunteer will read out to the visitor. In your own words, one or two sentences,
  no more than 35 words." (a ``crowd-text-area required``, ``max-length="230"``); a closing script sets
  ``document.querySelector('crowd-form').onsubmit`` to refuse no box ticked (``.ways crowd-checkbox``, none
  ``checked``) with an ``alert``; ``gold_ways`` (``|``-joined boxes the entry states) kept for figures;
  controls: the file ``hitflow new`` proposes from ``gold_floor`` (``campus_directions_controls.csv``), named in
  ``[answers] controls``, no share;
- riddle_answers: ONE riddle a page (``riddle``), a full HTML document for Prolific on Bootstrap 5 from a CDN
  (a card, ``<form id="riddleForm">`` posting to a Prolific completion URL, hidden ``PROLIFIC_PID``,
  ``STUDY_ID`` and ``SESSION_ID`` filled by a loop over ``URLSearchParams``): "What is the answer? One or two
  words. If you are not sure, give your best guess." (a ``required`` text input, ``maxlength="30"``), "Had you
  heard this riddle before?" (yes / no / not sure radios, ``required``), "How much did you enjoy this riddle?"
  (a CSS-only star rating: five radios ``name="enjoy"`` 5..1 in reverse order, hidden, their labels drawn as
  stars, ``required``) and an instructed-response item, "How often do you do puzzles or riddles? To show that
  you are reading carefully, please select "Often" for this question, whatever your real answer." (a
  ``required`` ``<select name="reading_check">`` never / sometimes / often / always with an empty first
  option); no script check, no truth, no controls; ``gold_answer`` (``|``-joined accepted answers) kept for a
  figure;
- kit_swaps: THREE hiking-club members a page who forgot one item (``member``, ``trip``, ``forgot``,
  ``packed``), a ``${column}`` fragment that loads jQuery from its CDN, with its own CSS and an intro block:
  "Is the forgotten item needed for safety on this trip?" (yes / no radios, ``required``; truth
  ``gold_essential``, 9 yes), "What from their pack could they use instead, and how? One sentence, no more than
  20 words. Name the packed item you would use." (a ``required`` textarea, ``maxlength="160"``) and "How sure
  are you that your idea would work?" (``<input type="range" name="sure">`` 0-100 step 10, ``value="50"``, not
  required, a jQuery ``input`` listener writing the value into an ``<output>``); no script check, no controls;
  ``gold_swap`` (``|``-joined packed things that would do) kept for the judge.

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: odd_one_out odd, common; crossword_clues clue, clue_type, familiar; campus_directions floor,
directions (the ticked boxes are six fields, so "at least one" is counted off the ledger); riddle_answers
answer, heard_before, enjoy, reading_check; kit_swaps essential, swap. Off the ledger too, the scripts'
requirements the ledger may not see: crossword_clues ``clue_over_8``, ``clue_holds_answer``;
campus_directions ``no_way_ticked``.

The free-text judges and limits, written before any run from the pages' own words and without reading the
simulator's, the import's or QC's code (five kinds of question not asked in earlier sets: naming what three
things have in common, writing a crossword clue for a word, spoken directions from a directory entry, the
answer to a riddle, and a stand-in from a list of things at hand). "A word of X" is bench/gate_heldout19.py's
``has_word_of`` over X's ``|``-listed words:

- odd_one_out ``common`` (stated: 1 to 5 words; required; 60 characters): answers when it has a word of
  ``gold_common`` and is not one of the four words alone.
- crossword_clues ``clue`` (stated: at most 8 words, not the answer nor a word holding it; required; the
  script: both): answers when it does not hold the answer (case ignored) and has a word of ``gold_related`` or
  a 4+ letter word of the editor's note (common words aside).
- campus_directions ``directions`` (stated: one or two sentences, at most 35 words, the visitor's way in one's
  own words; required): answers when it is one or two sentences, has a word of the way (WAY: lift, stairs,
  ramp, path, bridge, corridor, left, right, floor, turn, past, follow...) and a 4+ letter word of the place's
  name or the floor's, and shares no run of ten words with the directory entry.
- riddle_answers ``answer`` (stated: one or two words, a best guess if unsure; required; 30 characters):
  answers when it has a 3+ letter word that is not one of the riddle's words (a guess of its own, not the riddle
  echoed) and is not a refusal (NO_GUESS: don't know, no idea, pass...); whether it is right is a figure of its
  own.
- kit_swaps ``swap`` (stated: one sentence, at most 20 words, naming the packed item used; required; 160
  characters): answers when it is one sentence, names a packed thing (a word of ``gold_swap`` or a 3+ letter
  word of ``packed``, its generic words aside) and shares no run of six words with ``packed``.

The runner's limit is each field's stated minimum (1 where only a maximum is stated); each page's extra line
adds the whole stated limit and the share within it that also answers. Further figures, off the ledger:
odd_one_out honest ``odd`` equal to the gold, approved ``common`` over 5 words; crossword_clues approved clues
over 8 words or holding the answer, the honest ``clue_type`` spread; campus_directions honest ``floor`` and
ways ticked (the set of ``way_*`` fields on) equal to the gold, approved blocks with no box ticked, approved
directions over 35 words or of three sentences or more; riddle_answers honest answers right (a word of
``gold_answer``), the attention item failed by honest and bad profiles (and bad work failing it unnoticed),
approved answers over 2 words and with no star; kit_swaps honest ``essential`` equal to the gold, the honest
``sure`` values left at the slider's 50, approved swaps over 20 words or of two sentences or more.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout20.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout20.py``) it finds
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
from bench.gate_heldout3 import STOP, attention_tally, one_sentence
from bench.gate_heldout4 import _items, cli, whole_limit
from bench.gate_heldout5 import _given, _ticks, approved_breaking
from bench.gate_heldout6 import _combine
from bench.gate_heldout19 import _blank, _copies, _listed, _outside, _sentences, has_word_of

PAGES_DIR = ROOT / "bench" / "gate_heldout20"
RESULTS = ROOT / "bench" / "results-gate-heldout20.json"

WAY = ["lift", "lifts", "elevator", "stairs", "staircase", "steps", "ramp", "path", "bridge", "corridor", "left",
       "right", "straight", "ahead", "floor", "level", "upstairs", "downstairs", "turn", "past", "follow", "cross",
       "walk", "head", "through", "along", "opposite", "beside", "next", "door", "signs", "outside", "basement",
       "ground", "building", "wing", "block", "house", "entrance"]
NO_GUESS = re.compile(r"^\W*(i\s+)?(don'?t|do not|dont)\s+know|^\W*(no idea|not sure|unsure|pass|idk|n/?a|none|"
                      r"no clue|dunno)\W*$", re.I)
GENERIC = {"spare", "with", "empty", "long", "clean", "bright", "plastic", "metal", "wool", "woolly", "small",
           "light", "kitchen", "from", "the", "and", "app", "offline", "orange", "insulated", "clear", "sleeved",
           "lunch", "water", "woods", "sticks"}
OFF = ("", "false", "0", "off", "no", "none", "null")


def common_answers(text: str, item: dict[str, str]) -> bool:
    """A word of gold_common, and not one of the four words alone."""
    four = {item.get(f"word{k}", "").strip().lower() for k in range(1, 5)}
    return has_word_of(text, _listed(item, "gold_common")) and text.strip().lower() not in four


def _holds_answer(text: str, item: dict[str, str]) -> bool:
    answer = item.get("answer", "").strip().lower()
    return bool(answer) and answer in text.lower()


def clue_answers(text: str, item: dict[str, str]) -> bool:
    """No answer in it; a word of gold_related or a 4+ letter word of the editor's note."""
    note = [w.lower() for w in words(item.get("note", "")) if len(w) >= 4 and w.lower() not in STOP]
    return not _holds_answer(text, item) and has_word_of(text, _listed(item, "gold_related") + note)


def directions_answer(text: str, item: dict[str, str]) -> bool:
    """One or two sentences, a word of WAY and of the place's or floor's name, no 10-word run of the entry."""
    place = [w.lower() for w in words(f"{item.get('place', '')} {item.get('gold_floor', '')}")
             if len(w) >= 4 and w.lower() not in STOP]
    return (0 < _sentences(text) <= 2 and has_word_of(text, WAY) and has_word_of(text, place)
            and not _copies(text, item.get("directory", ""), 10))


def guess_answers(text: str, item: dict[str, str]) -> bool:
    """A 3+ letter word not of the riddle, and no refusal."""
    riddle = {w.lower() for w in words(item.get("riddle", ""))}
    own = [w for w in words(text) if len(w) >= 3 and w.lower() not in riddle]
    return bool(own) and not NO_GUESS.search(text)


def _packed(item: dict[str, str]) -> list[str]:
    return [w.lower() for w in words(item.get("packed", "")) if len(w) >= 3 and w.lower() not in GENERIC]


def swap_answers(text: str, item: dict[str, str]) -> bool:
    """One sentence naming a packed thing (gold_swap or packed), no 6-word run of the packed list."""
    return (one_sentence(text) and has_word_of(text, _listed(item, "gold_swap") + _packed(item))
            and not _copies(text, item.get("packed", ""), 6))


def right_share(page: str, fld: str, gold: str, same: Any = None, read: Any = None) -> Any:
    """Honest answers of ``fld`` (``read``: from an item's fields; None: not on the ledger) against the item's
    ``gold`` column (``same``: the comparison, default equal); this set's folder."""
    equal = same or (lambda said, known: said.strip().lower() == known.strip().lower())
    value = read or (lambda f: f.get(fld))

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [(i, value(f)) for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and value(f) is not None
                 and items[i].get(gold, "").strip()]
        right = sum(bool(equal(v, items[i][gold])) for i, v in given)
        return {f"honest_{fld}_right": f"{right}/{len(given)}", f"honest_{fld}_right_share": share(right, len(given))}
    return extra


def honest_spread(page: str, fld: str) -> Any:
    """How the honest answers of ``fld`` spread over its values."""

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        seen: dict[str, int] = {}
        for (_a, w, i), f in _given(db, campaign).items():
            if profiles.get(w) in HONEST and i in items and fld in f:
                seen[f[fld].strip() or "(blank)"] = seen.get(f[fld].strip() or "(blank)", 0) + 1
        return {f"honest_{fld}": " ".join(f"{k} {v}" for k, v in sorted(seen.items()))}
    return extra


def approved_breaking_item(page: str, rules: dict[str, Any]) -> Any:
    """As approved_breaking, for rules that read the item too ((fields, item) -> broken)."""

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        approved = {r[0] for r in db.execute("SELECT assignment_id FROM decisions WHERE campaign = ? AND action = "
                                             "'approve'", [campaign])}
        given = [(a, w, f, items[i]) for (a, w, i), f in _given(db, campaign).items() if i in items]
        out: dict[str, Any] = {}
        for name, broken in rules.items():
            hit = {(a, w) for a, w, f, item in given if broken(f, item)}
            out[name] = {"assignments": len(hit), "approved": sum(a in approved for a, _w in hit),
                         "approved_honest": sum(a in approved and profiles.get(w) in HONEST for a, w in hit)}
        return out
    return extra


def _ways(fields: dict[str, str]) -> str | None:
    """The boxes ticked, as ``a|b``, whether the ledger keeps ``way_lift`` or ``lift`` (None: no box on it)."""
    keys = [k for k in fields if k.startswith("way_")]
    if not keys:
        return None
    return "|".join(k.removeprefix("way_") for k in keys if fields[k].strip().lower() not in OFF)


def _no_way(fields: dict[str, str]) -> bool:
    ticked = _ways(fields)
    return ticked is not None and not ticked


def _right_riddle(said: str, known: str) -> bool:
    return has_word_of(said, [t.strip().lower() for t in known.split("|") if t.strip()])


def _at_50(value: str) -> bool:
    return value.strip() in ("50", "50.0")


def honest_at(page: str, fld: str, name: str, counts: Any) -> Any:
    """Of the honest answers of ``fld``, how many ``counts(value)``."""

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [f[fld] for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and fld in f]
        hit = sum(bool(counts(v)) for v in given)
        return {name: f"{hit}/{len(given)}", f"{name}_share": share(hit, len(given))}
    return extra


odd_extra = _combine(
    whole_limit("odd_one_out", "common", common_answers, limit=(1, 5, False), folder=PAGES_DIR),
    approved_breaking({"common_over_5": _outside("common", 0, 5), "odd_blank": _blank("odd")}),
    right_share("odd_one_out", "odd", "gold_odd"))
clue_extra = _combine(
    whole_limit("crossword_clues", "clue", clue_answers, limit=(1, 8, False), folder=PAGES_DIR),
    approved_breaking_item("crossword_clues", {
        "clue_over_8": lambda f, _i: _outside("clue", 0, 8)(f),
        "clue_holds_answer": lambda f, i: _holds_answer(f.get("clue", ""), i)}),
    honest_spread("crossword_clues", "clue_type"))
campus_extra = _combine(
    whole_limit("campus_directions", "directions", directions_answer, limit=(1, 35, False), folder=PAGES_DIR),
    approved_breaking({"no_way_ticked": _no_way, "directions_over_35": _outside("directions", 0, 35),
                       "directions_3_sentences_or_more": lambda f: _sentences(f.get("directions", "")) > 2,
                       "floor_blank": _blank("floor")}),
    right_share("campus_directions", "floor", "gold_floor"),
    right_share("campus_directions", "ways", "gold_ways", lambda s, k: _ticks(s) == _ticks(k), _ways))
riddle_extra = _combine(
    whole_limit("riddle_answers", "answer", guess_answers, limit=(1, 2, False), folder=PAGES_DIR),
    attention_tally("reading_check", lambda value: value.strip().lower() == "often"),
    approved_breaking({"answer_over_2": _outside("answer", 0, 2), "no_star": _blank("enjoy"),
                       "heard_before_blank": _blank("heard_before")}),
    right_share("riddle_answers", "answer", "gold_answer", _right_riddle))
kit_extra = _combine(
    whole_limit("kit_swaps", "swap", swap_answers, limit=(1, 20, True), folder=PAGES_DIR),
    honest_at("kit_swaps", "sure", "sure_left_at_50", _at_50),
    approved_breaking({"swap_over_20": _outside("swap", 0, 20),
                       "swap_2_sentences_or_more": lambda f: _sentences(f.get("swap", "")) > 1,
                       "essential_blank": _blank("essential")}),
    right_share("kit_swaps", "essential", "gold_essential"))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # five a page; a plain fragment; the requester's own controls file of the items' own ids, at a share
    _page("odd_one_out", 5, ("odd", "common"), texts={
        "common": TextField(1, common_answers, "a word of gold_common, not one of the four words alone")},
          keys={"controls": '"odd_one_out_controls.csv"', "control_share": "0.2"},
          truth='{odd = "gold_odd"}', controls=True, extra=odd_extra),
    # one item; a full document with its own form; the 8 words and "not the answer" by the onsubmit script
    # only, each refused with a message; no truth, no controls
    _page("crossword_clues", 1, ("clue", "clue_type", "familiar"), texts={
        "clue": TextField(1, clue_answers, "not holding the answer, a word of gold_related or of the note")},
          extra=clue_extra),
    # two a page; crowd elements, the radio buttons sharing one name, the boxes each named; "at least one box"
    # by the crowd-form's onsubmit with a message; the proposed controls
    _page("campus_directions", 2, ("floor", "directions"), texts={
        "directions": TextField(1, directions_answer, "one or two sentences, a word of WAY and of the place or "
                                "floor, no 10-word run of the entry")},
          keys={"controls": '"campus_directions_controls.csv"'}, truth='{floor = "gold_floor"}', controls=True,
          extra=campus_extra),
    # one item; Prolific's document on Bootstrap; a CSS star rating of radios; an instructed-response select
    _page("riddle_answers", 1, ("answer", "heard_before", "enjoy", "reading_check"), texts={
        "answer": TextField(1, guess_answers, "a 3+ letter word not of the riddle, no refusal")},
          extra=riddle_extra),
    # three a page; a jQuery fragment with a range input and its live output; truth, no controls
    _page("kit_swaps", 3, ("essential", "swap"), texts={
        "swap": TextField(1, swap_answers, "one sentence naming a packed thing, no 6-word run of the list")},
          truth='{essential = "gold_essential"}', extra=kit_extra),
)


def read_off(folder: Path, make: Any) -> Any:
    """One of this module's figures (right_share, honest_spread, honest_at, approved_breaking_item: they read the
    items off PAGES_DIR when run) reading another set's ``folder`` instead."""
    def wrapped(*args: Any) -> Any:
        inner = make(*args)

        def extra(db: Any, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
            global PAGES_DIR
            saved, PAGES_DIR = PAGES_DIR, folder
            try:
                return inner(db, campaign, profiles)
            finally:
                PAGES_DIR = saved
        return extra
    return wrapped


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
