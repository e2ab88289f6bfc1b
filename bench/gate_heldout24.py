"""``make bench-gate-heldout24``: bench/gate_heldout.py's gate and rehearsal on a twenty-fourth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses named in its brief (bench/gate_heldout24/), each with a
30-item file of content of its own:

- bake_sale_orders: FIVE order messages a page for a primary school PTA's bake sale (``customer``,
  ``message``), a plain ``${column}`` fragment with inline styles and a "counting tip" box ("A whole cake counts
  as 1. 'A dozen' is 12 and 'half a dozen' is 6."), a warning that some messages are compared with volunteers'
  answers: "Will the customer collect the order, or do they want it delivered?" (two radios ``name="handover"``,
  collect / deliver, ``required`` on the first; truth ``gold_handover``, 15 / 15) and "How many bakes in total
  does this order ask for? Write the number in digits only, e.g. 14." (a ``required`` text input,
  ``maxlength="3"``, ``inputmode="numeric"``, ``pattern="[0-9]+"``); ``gold_count`` kept for the judge; controls:
  the requester's own file of 8 of the items file's own ids (``bake_sale_orders_controls.csv``:
  ``item_id,field,answer`` on ``handover``, 4 collect / 4 deliver), named in ``[answers] controls`` at a share
  of 0.2;
- manual_sentences: ONE stiff sentence from an appliance manual a page for a university's plain-English study
  (``appliance``, ``sentence``), a full HTML document for Prolific with its own CSS (no framework), ``<form
  id="studyForm" method="get">`` to a Prolific completion URL, hidden ``PROLIFIC_PID``, ``STUDY_ID`` and
  ``SESSION_ID`` (``value=""``) filled through ``form.elements`` from ``URLSearchParams`` by a closing script:
  "Rewrite the sentence in plain, everyday English." ("Imagine explaining it to a 12-year-old. Keep the
  meaning, drop the jargon. Use 8 to 25 words."; a ``required`` textarea, ``maxlength="250"``), "How easy to
  understand was the original sentence?" (five radios ``name="ease"`` 1-5, ``required``) and an
  instructed-response item, "How often do you read the manual when you buy a new appliance? ... This question
  checks that you are paying attention. Whatever your real answer, please choose 'Only on Tuesdays'." (four
  radios ``name="manual_habit"``, ``required``; the instructed answer ``tuesdays``); no script check, no truth,
  no controls; ``gold_keep`` (``|``-listed words a faithful plain version keeps) kept for the judge;
- quiz_questions: ONE fact a page for a pub quiz (``fact``, ``quiz_answer``), on MTurk's crowd HTML elements
  (``<crowd-form>`` with no ``answer-format``, ``<crowd-instructions>`` with a positive and a negative example):
  "Which round does this belong in?" (a ``crowd-radio-group`` with no name of four ``crowd-radio-button``s
  SHARING ``name="round"``, history / science / geography / sport, ``required`` on EVERY button; truth
  ``gold_round``, 8 / 8 / 8 / 6), "Your quiz question (ends with ?, does not contain the answer, at most 20
  words)" (a ``crowd-input required``, ``max-length="160"``, its ``label`` an example question) and an optional
  ``crowd-text-area name="fact_problem"`` ("Is anything wrong with the fact?"); ``gold_words`` (``|``-listed
  words a question on the fact would hold) kept for the judge; controls: the file ``hitflow new`` proposes from
  ``gold_round`` (``quiz_questions_controls.csv``), named in ``[answers] controls``, no share;
- tutor_profiles: TWO private tutors' profiles a page for a tutor-search website (``tutor``, ``profile``), a
  ``${column}`` fragment on Bulma 1.0's stylesheet from jsDelivr's CDN, a notification box of instructions and a
  ``.box.tutor-card`` per profile: "Which subjects does this tutor teach? Tick all that apply (at least one)."
  (seven checkboxes SHARING ``name="subjects"``: maths, english, science, history, languages, music,
  computing; none ``required``, no "none" box), "Does the tutor offer lessons online?" (yes / no radios
  ``name="online"``, ``required`` on the first) and "In one word, how would you describe this tutor's teaching
  style?" (a text input NOT ``required``, ``maxlength="25"``, placeholder "one word, e.g. patient"); a closing
  script sets ``window.onload`` to give ``document.getElementById('mturk_form') || document.forms[0]`` an
  ``onsubmit`` that, per ``.tutor-card``, refuses no subject ticked and a style box empty or holding
  whitespace, writing the messages into the card and returning false (no alert); ``gold_subjects``
  (``|``-joined boxes the profile states), ``gold_online`` (17 yes / 13 no) kept for figures and ``gold_style``
  for the judge; no truth, no controls;
- escape_rooms: THREE escape-room descriptions a page for a booking website (``description``, each ending
  "Escape rate: N%."), a ``${column}`` fragment with its own CSS and its own script: "Difficulty (click one
  tile)" (a hand-written widget: four ``div.er-tile`` tiles, each with the escape rates it stands for -
  beginner over 60%, tricky 40-60%, hard 20-40%, expert under 20% - whose ``onclick`` writes the level into a
  hidden ``name="difficulty"`` that starts empty and carries ``required``, which no browser enforces on a
  hidden input), "Suggest a title for this room: 2 to 5 words, no full stops." (a ``required`` text input,
  ``maxlength="60"``) and "Would you recommend this room for a family with children under 12?" (yes / no
  radios ``name="family_friendly"``, ``required``); no submit check, no truth, no controls; ``gold_level`` (read
  off the escape rate: 9 beginner, 8 tricky, 7 hard, 6 expert) kept for a figure and ``gold_theme`` for the
  judge.

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: bake_sale_orders handover, total_items; manual_sentences plain_version, ease, manual_habit;
quiz_questions round, quiz_question; tutor_profiles subjects, style_word (both the script's), online;
escape_rooms room_title, family_friendly (the tiles' hidden field: ``required`` no browser enforces). Off the
ledger too, the script's requirements the ledger may not see: tutor_profiles ``no_subject_ticked``,
``style_not_one_word``.

The free-text judges and limits, written before any run from the pages' own words and without reading the
simulator's, the import's or QC's code (five kinds of question not asked in sets 1-23: a count of things
ordered, in digits; a plain-words rewrite of jargon; a quiz question whose answer is given; a single word for a
teaching style; a title for a room). "A word of X" is bench/gate_heldout19.py's ``has_word_of`` over X's
``|``-listed words:

- bake_sale_orders ``total_items`` (stated: digits only, the total number of bakes; required; 3 characters):
  answers when it is digits alone (spaces around aside) whose number is ``gold_count``.
- manual_sentences ``plain_version`` (stated: plain everyday English, keep the meaning, 8 to 25 words;
  required; 250 characters): answers when it holds a word of ``gold_keep``, is not the sentence shown and shares
  no run of six words with it, and holds none of the sentence's JARGON (comestibles, receptacle, prior to,
  utilised, efficacy...).
- quiz_questions ``quiz_question`` (stated: ends with ?, does not contain the answer, at most 20 words;
  required; 160 characters): answers when it ends with ``?``, holds a word of ``gold_words``, and does not hold
  ``quiz_answer`` (a leading "the" or "about" aside; the answer as a phrase, a number of it, or a 4+ letter word
  of it that is not one of ``gold_words`` counts as holding it).
- tutor_profiles ``style_word`` (stated: one single word; the script refuses empty or whitespace): answers when
  it is one word (no whitespace, letters and a hyphen at most) that is a word of ``gold_style`` or of STYLE
  (patient, strict, fun, relaxed, structured, friendly... words for how someone teaches).
- escape_rooms ``room_title`` (stated: 2 to 5 words, no full stops; required; 60 characters): answers when it
  is 2 to 5 words with no full stop and holds a word of ``gold_theme`` or a 4+ letter word of the description
  (STOP and the page's own words "escape", "rate", "room" aside).

The runner's limit is each field's stated minimum (1 for total_items, style_word and quiz_question, whose
stated limit is a most; 8 for plain_version, 2 for room_title); each page's extra line adds the whole stated
limit (digits alone for total_items, words for the others) and the share within it that also answers. Further
figures, off the ledger: bake_sale_orders honest ``handover`` equal to the gold and honest counts equal to
``gold_count``, approved counts that are not digits; manual_sentences the attention item failed by honest and
bad profiles (and bad work failing it unnoticed), the honest ``ease`` spread, approved rewrites outside 8-25
words or copying six words running; quiz_questions honest ``round`` equal to the gold, approved questions with
no ``?`` or over 20 words; tutor_profiles honest ``subjects`` sets and ``online`` equal to the gold, approved
cards with no subject ticked or a style of more than one word; escape_rooms honest ``difficulty`` equal to the
gold and its spread (blank: the tiles never clicked), approved rooms with the tiles never clicked, titles
outside 2-5 words or with a full stop.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout24.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout24.py``) it finds
its own bench package, so a checkout without this set (an older commit) can be measured from its own folder.
"""

from __future__ import annotations

import re
import sys
from functools import partial
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file from another checkout: this set's bench package first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import gate_heldout20
from bench.gate_heldout import ROOT, HeldoutPage, TextField, words
from bench.gate_heldout3 import STOP, attention_tally
from bench.gate_heldout4 import cli, whole_limit
from bench.gate_heldout5 import _ticks, approved_breaking
from bench.gate_heldout6 import _combine
from bench.gate_heldout19 import _blank, _copies, _listed, _outside, has_word_of

PAGES_DIR = ROOT / "bench" / "gate_heldout24"
RESULTS = ROOT / "bench" / "results-gate-heldout24.json"

JARGON = ["comestible", "receptacle", "prior to", "utilis", "utiliz", "efficacy", "commensurate", "subsequent",
          "ferromagnetic", "aperture", "proliferation", "colonisation", "ingress", "differentials", "orientation",
          "attainment", "ambient", "mitigate", "preclude", "depressing", "facilitates", "initiating", "perceived",
          "incorporates", "designated", "repressurisation", "periodically discharged", "acoustic feedback"]
STYLE = ["patient", "strict", "fun", "relaxed", "structured", "friendly", "kind", "calm", "gentle", "encouraging",
         "supportive", "playful", "lively", "energetic", "enthusiastic", "engaging", "interactive", "practical",
         "creative", "clear", "organised", "organized", "methodical", "thorough", "rigorous", "demanding",
         "challenging", "intense", "intensive", "focused", "traditional", "formal", "informal", "casual",
         "laid-back", "laidback", "easygoing", "flexible", "warm", "caring", "nurturing", "firm", "fair",
         "disciplined", "serious", "professional", "academic", "detailed", "hands-on", "visual", "chatty",
         "conversational", "immersive", "slow", "careful", "experienced", "knowledgeable", "passionate",
         "motivating", "inspiring", "systematic", "analytical", "thoughtful", "tough", "independent", "positive",
         "understanding", "approachable", "exam-focused"]
OWN_WORDS = STOP | {"escape", "rate", "room", "before", "your", "find", "hidden", "only"}
ONE_WORD = re.compile(r"^[A-Za-z]+(?:-[A-Za-z]+)?$")


def count_answers(text: str, item: dict[str, str]) -> bool:
    """Digits alone, the number gold_count."""
    said = text.strip()
    return said.isdigit() and int(said) == int(item.get("gold_count", "-1") or -1)


def plain_answers(text: str, item: dict[str, str]) -> bool:
    """A word of gold_keep, not the sentence nor six of its words running, none of its jargon."""
    shown = item.get("sentence", "")
    low = text.lower()
    return (has_word_of(text, _listed(item, "gold_keep")) and low.strip() != shown.lower().strip()
            and not _copies(text, shown, 6) and not any(j in low for j in JARGON))


def _gives_answer(text: str, item: dict[str, str]) -> bool:
    """The quiz answer held: its words as a phrase, a number of it, or a 4+ letter word of it not in gold_words."""
    core = re.sub(r"^(the|about)\s+", "", item.get("quiz_answer", "").strip().lower())
    low = text.lower()
    if core and re.search(rf"(?<!\w){re.escape(core)}(?!\w)", low):
        return True
    digits = re.findall(r"\d+(?:\.\d+)?", core)
    if digits:
        return any(re.search(rf"(?<![\d.]){re.escape(d)}(?!\d)", low) for d in digits)
    said, allowed = {w.lower() for w in words(text)}, set(_listed(item, "gold_words"))
    return any(w.lower() in said and w.lower() not in allowed for w in words(core) if len(w) >= 4)


def question_answers(text: str, item: dict[str, str]) -> bool:
    """Ends with ?, a word of gold_words, the answer not given away."""
    return (text.strip().endswith("?") and has_word_of(text, _listed(item, "gold_words"))
            and not _gives_answer(text, item))


def style_answers(text: str, item: dict[str, str]) -> bool:
    """One word, a word of gold_style or of STYLE."""
    said = text.strip()
    return bool(ONE_WORD.match(said)) and has_word_of(said, _listed(item, "gold_style") + STYLE)


def title_answers(text: str, item: dict[str, str]) -> bool:
    """2 to 5 words, no full stop, a word of gold_theme or a 4+ letter word of the description."""
    shown = [w.lower() for w in words(item.get("description", "")) if len(w) >= 4 and w.lower() not in OWN_WORDS]
    return (2 <= len(words(text)) <= 5 and "." not in text
            and has_word_of(text, _listed(item, "gold_theme") + shown))


_here = partial(gate_heldout20.read_off, PAGES_DIR)  # set 20's figures, read off this set's folder
right_share, honest_spread = _here(gate_heldout20.right_share), _here(gate_heldout20.honest_spread)


def _same_count(said: str, known: str) -> bool:
    return said.strip().isdigit() and int(said.strip()) == int(known)


bake_extra = _combine(
    whole_limit("bake_sale_orders", "total_items", count_answers, limit=(1, 1, False), folder=PAGES_DIR),
    right_share("bake_sale_orders", "handover", "gold_handover"),
    right_share("bake_sale_orders", "total_items", "gold_count", _same_count),
    approved_breaking({"count_not_digits": lambda f: "total_items" in f and not f["total_items"].strip().isdigit(),
                       "handover_blank": _blank("handover")}))
manual_extra = _combine(
    whole_limit("manual_sentences", "plain_version", plain_answers, limit=(8, 25, False), folder=PAGES_DIR),
    attention_tally("manual_habit", lambda value: value.strip() == "tuesdays"),
    honest_spread("manual_sentences", "ease"),
    approved_breaking({"plain_outside_8_25": _outside("plain_version", 8, 25), "ease_blank": _blank("ease")}))
quiz_extra = _combine(
    whole_limit("quiz_questions", "quiz_question", question_answers, limit=(1, 20, False), folder=PAGES_DIR),
    right_share("quiz_questions", "round", "gold_round"),
    approved_breaking({"question_without_qmark": lambda f: bool(f.get("quiz_question", "").strip())
                       and not f["quiz_question"].strip().endswith("?"),
                       "question_over_20": _outside("quiz_question", 0, 20), "round_blank": _blank("round")}))
tutor_extra = _combine(
    whole_limit("tutor_profiles", "style_word", style_answers, limit=(1, 1, False), folder=PAGES_DIR),
    right_share("tutor_profiles", "subjects", "gold_subjects", lambda s, k: _ticks(s) == _ticks(k)),
    right_share("tutor_profiles", "online", "gold_online"),
    approved_breaking({"no_subject_ticked": lambda f: "subjects" in f and not _ticks(f["subjects"]),
                       "style_not_one_word": lambda f: "style_word" in f
                       and not ONE_WORD.match(f["style_word"].strip())}))
escape_extra = _combine(
    whole_limit("escape_rooms", "room_title", title_answers, limit=(2, 5, False), folder=PAGES_DIR),
    right_share("escape_rooms", "difficulty", "gold_level"),
    honest_spread("escape_rooms", "difficulty"),
    approved_breaking({"tiles_never_clicked": _blank("difficulty"),
                       "title_outside_2_5": _outside("room_title", 2, 5),
                       "title_with_full_stop": lambda f: "." in f.get("room_title", "")}))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # five a page; a plain fragment; a count in digits; the requester's own controls file of the items' own ids
    # on a 2-option field, at a share
    _page("bake_sale_orders", 5, ("handover", "total_items"), texts={
        "total_items": TextField(1, count_answers, "digits alone, the number gold_count")},
          keys={"controls": '"bake_sale_orders_controls.csv"', "control_share": "0.2"},
          truth='{handover = "gold_handover"}', controls=True, extra=bake_extra),
    # one item; Prolific's own document; an instructed-response item; no truth, no controls
    _page("manual_sentences", 1, ("plain_version", "ease", "manual_habit"), texts={
        "plain_version": TextField(8, plain_answers, "a word of gold_keep, no six words of the sentence running, "
                                   "none of its JARGON")},
          extra=manual_extra),
    # one item; crowd elements: four buttons sharing a name, each required; the proposed controls, no share
    _page("quiz_questions", 1, ("round", "quiz_question"), texts={
        "quiz_question": TextField(1, question_answers, "ends with ?, a word of gold_words, not the quiz_answer")},
          keys={"controls": '"quiz_questions_controls.csv"'}, truth='{round = "gold_round"}', controls=True,
          extra=quiz_extra),
    # two a page; Bulma; boxes sharing a name; "at least one box" and "one word" by MTurk's form's onsubmit
    _page("tutor_profiles", 2, ("subjects", "online", "style_word"), texts={
        "style_word": TextField(1, style_answers, "one word, of gold_style or STYLE")},
          extra=tutor_extra),
    # three a page; hand-written tiles writing a hidden field (required, which no browser enforces)
    _page("escape_rooms", 3, ("room_title", "family_friendly"), texts={
        "room_title": TextField(2, title_answers, "2-5 words, no full stop, a word of gold_theme or the "
                                "description")},
          extra=escape_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
