"""``make bench-gate-heldout18``: bench/gate_heldout.py's gate and rehearsal on an eighteenth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses named in its brief (bench/gate_heldout18/), each with a
30-item file of content of its own:

- vocab_cards: ONE learner's word card a page (``word``, its ``definition`` and a ``context`` sentence it was
  found in), a full HTML document with its own CSS, its own ``<form>`` (``mturk_form``, MTurk's
  ``externalSubmit``, ``onsubmit="return checkAnswers();"``), MTurk's ``assignmentId`` field and the usual
  ``turkGetParam`` script: "In this meaning, what kind of word is it?" (noun / verb / adjective / adverb radios,
  ``required``; truth ``gold_part_of_speech``, 7 / 8 / 8 / 7), "Write a new example sentence of your own that
  uses the word correctly, in the meaning shown on the card. ... between 6 and 25 words ... You may change the
  word's ending ... Please do not copy the sentence on the card." (a textarea, ``maxlength="200"``, nothing in
  the HTML requires it) and "Did you know this word before today?" (a ``<select required>`` of three, empty
  first option); the form's ``onsubmit`` refuses a sentence outside 6 to 25 words (a blank is 0 words), and one
  that does not hold the word's stem (the word shown, read from the card's ``#theword``, less its last two
  letters past five letters, else its last one, at least three); controls: the file ``hitflow new`` proposes
  from ``gold_part_of_speech`` (``vocab_cards_controls.csv``), named in ``[answers] controls``, no share;
- diy_plans: TWO readers' home-improvement plans a page (``title``, ``plan``), a plain ``${column}`` fragment
  with its own CSS and an "Instructions:" paragraph (it says "You must tick at least one box"): "What kind of
  job is this mainly?" (electrical / plumbing / woodwork / painting / roofing radios, ``required``; 6 of each
  in the file, ``gold_work``), "Which of these safety steps does the plan already include? Tick all that
  apply." (five checkboxes sharing ``name="safety_steps"``, four ``value="${option1}"`` ... ``"${option4}"``
  from the item, the fifth "none"; none ``required``) and "What is the biggest thing that could go wrong with
  this plan? One sentence, no more than 25 words. Be specific to this job." (a ``required`` textarea; the limit
  only in prose); a ``submit`` listener on ``mturk_form`` by id refuses no box ticked (``!document
  .querySelector('input[name=safety_steps]:checked')``); ``gold_steps`` (``|``-joined options the plan states,
  or ``none``) and ``gold_risk`` (``|``-joined words of what could go wrong) kept for figures and the judge;
  controls: a separate file of 12 plans of its own (``diy_plans_controls.csv``) on ``work_type`` at a share of
  0.2;
- story_openings: FOUR short-story openings a page (``opening``), on MTurk's crowd HTML elements
  (``<crowd-form>`` with ``<crowd-instructions>``: short summary, detailed instructions, a positive and a
  negative example): "Which genre is this story?" (a ``crowd-radio-group required`` of five
  ``crowd-radio-button``s SHARING ``name="genre"``; ``gold_genre``, 6 of each), "What do you think happens
  next? (1 or 2 sentences, at most 40 words)" (a ``crowd-text-area required``, ``max-length="280"``; the
  instructions: the characters or things of the paragraph, following from this opening) and "How much do you
  want to keep reading?" (a ``crowd-slider`` 1-10, ``value="5"``); ``gold_cast`` (``|``-joined names and things
  of the opening) kept for the judge; no controls (the import's proposal from ``gold_genre`` is left unnamed;
  ``[campaign] truth`` names it);
- dog_behaviour: ONE dog owner's message a page (``dog``: name, breed, age; ``message``), a full HTML document
  for Prolific (its own CSS, a study header, ``<form id="dogForm">`` posting to a Prolific completion URL,
  hidden ``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID`` filled from ``URLSearchParams`` one by one):
  "According to the owner, did this behaviour start within the last month?" (yes / no / the owner doesn't say
  radios, ``required``; truth ``gold_recent``, 15 / 13 / 2), "What do you think is the most likely cause of this
  behaviour? One sentence, up to 30 words. Give a cause, based on the details in the message ..." (a textarea,
  ``maxlength="250"``, nothing in the HTML requires it), "How worried should the owner be?" (five star
  ``<button type="button">``s whose click listeners write a hidden ``worry`` field, 1-5) and "Should the owner
  take the dog to a vet about this?" (a ``<select required>`` of three, empty first option); a ``submit``
  listener on the form by id refuses a cause of fewer than 4 words, and no star clicked; ``gold_cause``
  (``|``-joined words of likely causes from the message's details) kept for the judge; no controls (the
  import's proposal from ``gold_recent`` is left unnamed);
- dental_voicemails: THREE typed-up voicemails to a dental practice a page (``received``, ``transcript``), a
  ``${column}`` fragment in MTurk's Bootstrap 3 template style (its stylesheet ``<link>``, a ``<section
  class="container">``, panels; the instructions in a panel headed "Instructions"): "What does the caller
  want?" (book / reschedule / cancel / question radios, ``required``; ``gold_request``, 13 / 6 / 6 / 5), "Is it
  urgent?" (yes / no radios, ``required``; ``gold_urgent``, 7 yes) and "How many people does the caller want to
  be seen?" (``<input type="number" min="0" max="6" step="1" required>``; ``gold_people``); no free text;
  controls: the requester's own file of 10 of the items file's own ids (``dental_voicemails_controls.csv``:
  ``item_id,field,answer`` on ``request``, no other columns), named in ``[answers] controls``, no share (the
  import's proposal from ``gold_request`` is overwritten by it).

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: vocab_cards part_of_speech, familiar, example_sentence (the script's: a blank is 0 words);
diy_plans work_type, biggest_risk, safety_steps (the script's: no box ticked); story_openings genre,
what_next (the slider always holds a value); dog_behaviour recent, see_vet, likely_cause (the script's: a blank
has fewer than 4 words), worry (the script's: no star); dental_voicemails request, urgent, people. Off the
ledger too, the script's requirements the ledger may not see: vocab_cards ``sentence_outside_6_25``,
``sentence_without_word``; diy_plans ``no_box_ticked``; dog_behaviour ``no_stars``, ``cause_under_4``.

The free-text judges and limits, written before any run and without reading the simulator's, the import's or
QC's code (four kinds of question: an example sentence using a given word, what could go wrong with a plan, a
guess at what happens next in a story, the likely cause of an animal's behaviour). "A word of X" is a word
equal to, or starting with, one of X's ``|``-listed words (3+ letters), or holding one of its phrases or
figures:

- vocab_cards ``example_sentence`` (stated: 6 to 25 words, a new sentence of one's own using the word in the
  card's meaning, not the card's sentence copied; the script: 6-25 words, the word's stem held): answers when it
  is one sentence, holds a word starting with the word's stem (the script's stem), shares no run of eight words
  with the card's ``context`` sentence and no run of six with its ``definition`` (a definition is not an
  example).
- diy_plans ``biggest_risk`` (stated: one sentence, at most 25 words, specific to this job; required): answers
  when it is one sentence and has a word of ``gold_risk``.
- story_openings ``what_next`` (stated: 1 or 2 sentences, at most 40 words, the opening's characters or things,
  following from it; required; 280 characters): answers when it is one or two sentences, has a word of
  ``gold_cast``, and shares no run of eight words with the opening (copied).
- dog_behaviour ``likely_cause`` (stated: one sentence, up to 30 words, a cause from the message's details; the
  script: 4 words or more): answers when it is one sentence, has a word of ``gold_cause``, and shares no run of
  eight words with the message (copied).

The runner's limit is each field's stated minimum (1 where only a maximum is stated; the script's where a
script states one: 6, 4); each page's extra line adds the whole stated limit and the share within it that also
answers. Further figures, off the ledger: vocab_cards honest ``part_of_speech`` equal to the gold, approved
sentences outside 6-25 words or without the stem, ``familiar`` blank; diy_plans honest ``work_type`` and
``safety_steps`` sets equal to the gold, approved blocks with no box ticked, with "none" and a step, a risk over
25 words; story_openings honest ``genre`` equal to the gold, the honest ``keep_reading`` values left at the
slider's 5, approved guesses over 40 words or of three sentences or more; dog_behaviour honest ``recent`` equal
to the gold, approved pages with no stars, a cause under 4 or over 30 words; dental_voicemails honest
``request``, ``urgent`` and ``people`` (as a number) equal to the gold, approved ``people`` blank or outside 0-6.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout18.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout18.py``) it finds
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
from bench.gate_heldout3 import one_sentence
from bench.gate_heldout4 import _items, cli, whole_limit
from bench.gate_heldout5 import _given, _ticks, approved_breaking
from bench.gate_heldout6 import _combine

PAGES_DIR = ROOT / "bench" / "gate_heldout18"
RESULTS = ROOT / "bench" / "results-gate-heldout18.json"


def _listed(item: dict[str, str], column: str) -> list[str]:
    return [t.strip().lower() for t in item.get(column, "").split("|") if t.strip()]


def has_word_of(text: str, listed: list[str]) -> bool:
    """A word equal to or starting with a listed word (3+ letters), or a listed phrase or figure held."""
    low = text.lower()
    said = [w.lower() for w in words(text)]
    for token in listed:
        if re.fullmatch(r"[a-z]+", token):
            if any(w == token or (len(token) >= 3 and w.startswith(token)) for w in said):
                return True
        elif re.search(r"(?<![\w.])" + re.escape(token) + r"(?![\w])", low):
            return True
    return False


def _sentences(text: str) -> int:
    return len([s for s in re.split(r"[.!?]+(?:\s+|$)", text.strip()) if s.strip()])


def _runs(text: str, n: int) -> set[tuple[str, ...]]:
    said = [w.lower() for w in words(text)]
    return {tuple(said[k:k + n]) for k in range(len(said) - n + 1)}


def _copies(text: str, shown: str, n: int = 8) -> bool:
    return bool(_runs(text, n) & _runs(shown, n))


def stem(word: str) -> str:
    """The page's own script's stem of the card's word (checkAnswers in vocab_cards.html)."""
    word = word.strip().lower()
    return word[:len(word) - 2] if len(word) > 5 else word[:max(3, len(word) - 1)]


def uses_word(text: str, item: dict[str, str]) -> bool:
    root = stem(item.get("word", ""))
    return bool(root) and any(w.lower().startswith(root) for w in words(text))


def example_answers(text: str, item: dict[str, str]) -> bool:
    """One sentence using the word (its stem), not the card's sentence (8-word run) or definition (6) copied."""
    return (one_sentence(text) and uses_word(text, item) and not _copies(text, item.get("context", ""))
            and not _copies(text, item.get("definition", ""), 6))


def risk_answers(text: str, item: dict[str, str]) -> bool:
    """One sentence with a word of gold_risk."""
    return one_sentence(text) and has_word_of(text, _listed(item, "gold_risk"))


def next_answers(text: str, item: dict[str, str]) -> bool:
    """One or two sentences, a word of gold_cast, no 8-word run of the opening."""
    return (0 < _sentences(text) <= 2 and has_word_of(text, _listed(item, "gold_cast"))
            and not _copies(text, item.get("opening", "")))


def cause_answers(text: str, item: dict[str, str]) -> bool:
    """One sentence, a word of gold_cause, no 8-word run of the message."""
    return (one_sentence(text) and has_word_of(text, _listed(item, "gold_cause"))
            and not _copies(text, item.get("message", "")))


def right_share(page: str, fld: str, gold: str, same: Any = None) -> Any:
    """Honest answers of ``fld`` equal to the item's ``gold`` column (``same``: another comparison), on the items
    that have one; this set's folder."""
    equal = same or (lambda said, known: said.strip().lower() == known.strip().lower())

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [(i, f[fld]) for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and fld in f and items[i].get(gold, "").strip()]
        right = sum(bool(equal(v, items[i][gold])) for i, v in given)
        return {f"honest_{fld}_right": f"{right}/{len(given)}", f"honest_{fld}_right_share": share(right, len(given))}
    return extra


def honest_share(page: str, fld: str, name: str, counts: Any) -> Any:
    """Of the honest answers of ``fld``, the share ``counts(value)``."""

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [f.get(fld, "") for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and fld in f]
        hit = sum(bool(counts(v)) for v in given)
        return {name: f"{hit}/{len(given)}", f"{name}_share": share(hit, len(given))}
    return extra


def _n_words(fields: dict[str, str], fld: str) -> int:
    return len(words(fields.get(fld, "")))


def _blank(fld: str) -> Any:
    return lambda f: fld in f and not f[fld].strip()


def _outside(fld: str, low: int, high: int) -> Any:
    return lambda f: bool(f.get(fld, "").strip()) and not low <= _n_words(f, fld) <= high


def _under(fld: str, least: int) -> Any:
    return lambda f: fld in f and _n_words(f, fld) < least


def _same_number(said: str, known: str) -> bool:
    try:
        return float(said.strip()) == float(known.strip())
    except ValueError:
        return False


def _people_off(fields: dict[str, str]) -> bool:
    if "people" not in fields:
        return False
    value = fields["people"].strip()
    try:
        return not 0 <= float(value) <= 6
    except ValueError:
        return True  # blank or not a number


def _none_and_a_step(fields: dict[str, str]) -> bool:
    ticks = _ticks(fields.get("safety_steps", ""))
    return "none" in ticks and len(ticks) > 1


def sentence_without_word(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
    """Approved vocab_cards assignments with a sentence given that lacks the script's stem of the card's word."""
    items = _items("vocab_cards", PAGES_DIR)
    approved = {r[0] for r in db.execute("SELECT assignment_id FROM decisions WHERE campaign = ? AND action = "
                                         "'approve'", [campaign])}
    hit = {(a, w) for (a, w, i), f in _given(db, campaign).items()
           if i in items and f.get("example_sentence", "").strip() and not uses_word(f["example_sentence"], items[i])}
    return {"sentence_without_word": {"assignments": len(hit), "approved": sum(a in approved for a, _w in hit),
                                      "approved_honest": sum(a in approved and profiles.get(w) in HONEST
                                                             for a, w in hit)}}


vocab_extra = _combine(
    whole_limit("vocab_cards", "example_sentence", example_answers, limit=(6, 25, True), folder=PAGES_DIR),
    approved_breaking({"sentence_outside_6_25": lambda f: "example_sentence" in f
                       and not 6 <= _n_words(f, "example_sentence") <= 25,
                       "familiar_blank": _blank("familiar")}),
    sentence_without_word,
    right_share("vocab_cards", "part_of_speech", "gold_part_of_speech"))
diy_extra = _combine(
    whole_limit("diy_plans", "biggest_risk", risk_answers, limit=(1, 25, True), folder=PAGES_DIR),
    approved_breaking({"no_box_ticked": lambda f: not _ticks(f.get("safety_steps", "")),
                       "none_and_a_step": _none_and_a_step,
                       "risk_over_25": _outside("biggest_risk", 0, 25),
                       "work_type_blank": _blank("work_type")}),
    right_share("diy_plans", "work_type", "gold_work"),
    right_share("diy_plans", "safety_steps", "gold_steps", lambda s, k: _ticks(s) == _ticks(k)))
story_extra = _combine(
    whole_limit("story_openings", "what_next", next_answers, limit=(1, 40, False), folder=PAGES_DIR),
    honest_share("story_openings", "keep_reading", "keep_reading_left_at_5", lambda v: v.strip() in ("5", "5.0")),
    approved_breaking({"next_over_40": _outside("what_next", 0, 40),
                       "next_3_sentences_or_more": lambda f: _sentences(f.get("what_next", "")) > 2,
                       "genre_blank": _blank("genre")}),
    right_share("story_openings", "genre", "gold_genre"))
dog_extra = _combine(
    whole_limit("dog_behaviour", "likely_cause", cause_answers, limit=(4, 30, True), folder=PAGES_DIR),
    approved_breaking({"no_stars": _blank("worry"), "cause_under_4": _under("likely_cause", 4),
                       "cause_over_30": _outside("likely_cause", 0, 30), "see_vet_blank": _blank("see_vet")}),
    right_share("dog_behaviour", "recent", "gold_recent"))
dental_extra = _combine(
    approved_breaking({"people_blank_or_outside_0_6": _people_off, "urgent_blank": _blank("urgent")}),
    right_share("dental_voicemails", "request", "gold_request"),
    right_share("dental_voicemails", "urgent", "gold_urgent"),
    right_share("dental_voicemails", "people", "gold_people", _same_number))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # one item; a full document with its own form; the sentence's 6-25 words and the word's stem by the
    # onsubmit script only; the proposed controls
    _page("vocab_cards", 1, ("part_of_speech", "familiar", "example_sentence"), texts={
        "example_sentence": TextField(6, example_answers, "one sentence holding the script's stem of the word, no "
                                      "8-word run of the card's sentence, no 6-word run of its definition")},
          keys={"controls": '"vocab_cards_controls.csv"'}, truth='{part_of_speech = "gold_part_of_speech"}',
          controls=True, extra=vocab_extra),
    # two a page; a checkbox group whose options are the item's, "at least one" by a submit listener; the
    # 25 words only in prose; separate controls at a share
    _page("diy_plans", 2, ("work_type", "safety_steps", "biggest_risk"), texts={
        "biggest_risk": TextField(1, risk_answers, "one sentence with a word of gold_risk")},
          keys={"controls": '"diy_plans_controls.csv"', "control_share": "0.2"},
          truth='{work_type = "gold_work"}', controls=True, extra=diy_extra),
    # four a page; crowd elements, the radio buttons sharing one name; a slider; no controls
    _page("story_openings", 4, ("genre", "what_next"), texts={
        "what_next": TextField(1, next_answers, "one or two sentences, a word of gold_cast, no 8-word run of the "
                               "opening")},
          truth='{genre = "gold_genre"}', extra=story_extra),
    # one item; Prolific's document; a star widget's script writes a hidden field; the stars and the cause's
    # 4 words are a submit listener's only
    _page("dog_behaviour", 1, ("recent", "see_vet", "likely_cause", "worry"), texts={
        "likely_cause": TextField(4, cause_answers, "one sentence, a word of gold_cause, no 8-word run of the "
                                  "message")},
          truth='{recent = "gold_recent"}', extra=dog_extra),
    # three a page; a Bootstrap fragment, a number field; the requester's own controls file of the items'
    # own ids, no share
    _page("dental_voicemails", 3, ("request", "urgent", "people"),
          keys={"controls": '"dental_voicemails_controls.csv"'}, truth='{request = "gold_request"}',
          controls=True, extra=dental_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
