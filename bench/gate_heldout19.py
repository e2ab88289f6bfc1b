"""``make bench-gate-heldout19``: bench/gate_heldout.py's gate and rehearsal on a nineteenth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses named in its brief (bench/gate_heldout19/), each with a
30-item file of content of its own:

- pun_jokes: ONE joke a page (``joke``) for a reading app for teenagers learning English, a full HTML document
  with its own CSS, its own ``<form>`` (``mturk_form``, MTurk's ``externalSubmit``, ``onsubmit="return
  checkJoke();"``), MTurk's ``assignmentId`` field and the usual ``turkGetParam`` script: "What does the joke
  depend on?" (one word with two meanings / two words that sound alike / no wordplay radios, ``required``;
  truth ``gold_wordplay``, 14 / 11 / 5), "Explain the joke to a learner who didn't get it. Say which word or
  sound the joke plays on and the two things it could mean. If there is no wordplay, say what makes it funny
  instead. Write one or two sentences, between 5 and 30 words. Don't just repeat the joke." (a textarea,
  ``maxlength="220"``, nothing in the HTML requires it; a live word count) and "How funny is it?" (five star
  ``<button type="button">``s whose click listeners write a hidden ``funny`` field, 1-5); ``checkJoke`` refuses,
  each with an ``alert`` message, an explanation outside 5 to 30 words (a blank is 0 words) and no star clicked;
  ``gold_explain`` (``|``-joined words of the played-on word, sound or point) kept for the judge; controls: the
  file ``hitflow new`` proposes from ``gold_wordplay`` (``pun_jokes_controls.csv``), named in ``[answers]
  controls``, no share;
- food_bank_shifts: TWO volunteer shifts a page at a community food bank (``volunteer``, ``shift_date``,
  ``shift_time``, the coordinator's ``note``), a plain ``${column}`` fragment with its own CSS and an
  "Instructions:" paragraph (it says "You must tick at least one task"): "Which tasks did NAME do on this
  shift? Tick all that apply." (six fixed checkboxes sharing ``name="tasks"``: sorting, packing, driving,
  reception, cleaning, cooking; none ``required``), "Was this NAME's first shift with us?" (yes / no / the note
  doesn't say radios, ``required``; truth ``gold_first_shift``) and "Write a thank-you text to NAME. Use their
  first name and mention one specific thing they did on this shift ... One or two sentences, no more than 30
  words." (a ``required`` textarea; the limit only in prose); a ``submit`` listener on ``mturk_form`` by id
  refuses no box ticked (``!document.querySelector('input[name="tasks"]:checked')``) with an ``alert``;
  ``gold_tasks`` (``|``-joined boxes the note states) and ``gold_deed`` (``|``-joined words of what the
  volunteer did) kept for figures and the judge; controls: a separate file of 12 shifts of its own
  (``food_bank_shifts_controls.csv``) on ``first_shift``, at a share of 0.2;
- card_verses: ONE greeting-card verse a page, three lines of four (``line1``, ``line2``, ``line3``), on MTurk's
  crowd HTML elements (``<crowd-form>`` with ``<crowd-instructions>``: short summary, detailed instructions, a
  positive and a negative example): "What occasion is this card for?" (a ``crowd-radio-group required`` of six
  ``crowd-radio-button``s SHARING ``name="occasion"``; ``gold_occasion``, 5 of each), "Write the missing fourth
  line. It must rhyme with the last word of line 2 and suit the card. No more than 12 words." (a ``crowd-input
  required``, ``max-length="90"``; the instructions: rhyme with line 2, fit the occasion and tone, no more than
  12 words, do not repeat one of the three lines), "How well do the first three lines suit the occasion?" (a
  ``crowd-slider`` 0-10, ``value="5"``) and an instructed-response item, "Quick check. To show us you are
  reading the questions, please select "Green" here." (a second ``crowd-radio-group required``, red / green /
  blue, ``name="colour_check"``); ``gold_rhyme`` (``|``-joined endings that rhyme with line 2's last word)
  kept for the judge; no controls (the import's proposal from ``gold_occasion`` is left unnamed; ``[campaign]
  truth`` names it);
- energy_tips: FIVE household energy-saving tips a page (``tip``), a full HTML document for Prolific (a study
  header, its own CSS, ``<form id="studyForm">`` posting to a Prolific completion URL, hidden
  ``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID`` filled from ``URLSearchParams`` one by one), a survey
  about the worker's own home: "Do you already do this at home?" (yes, usually / sometimes / no / doesn't apply
  radios, ``required``), "How likely are you to do this over the next month?" (``<input type="range">`` 0-10,
  ``value="5"``, not required) and "What, if anything, makes this hard for you, or what would make it easier?
  Answer in one sentence of no more than 20 words. If you already do it, tell us what helped you start." (a
  ``required`` textarea, ``maxlength="160"``); no script check, no right answers, no truth, no controls;
  ``gold_topic`` (``|``-joined words of the tip's things and its usual obstacles) kept for the judge;
- flatpack_reviews: THREE customer reviews of self-assembly furniture a page (``product``, ``reviewer``,
  ``review``), a ``${column}`` fragment in MTurk's Bootstrap 3 template style (its stylesheet ``<link>``, a
  ``<section class="container">``, panels; the instructions in a panel headed "Instructions"): "Does the
  reviewer say that any parts were missing or damaged?" (yes / no radios, ``required``;
  ``gold_missing_parts``, 9 yes), "What does the reviewer think of the assembly instructions?" (clear / mixed /
  unclear / doesn't mention them radios, ``required``; ``gold_instructions_rating``, 11 / 6 / 7 / 6), "Copy the
  phrase from the review that best shows how easy or hard it was to put together. Copy it word for word,
  between 3 and 15 words." (a ``required`` text input, ``maxlength="120"``) and "According to the review, about
  how many minutes did the assembly take? (0 if it doesn't say)" (``<input type="number" min="0" max="600"
  step="1" required>``; ``gold_minutes``); ``gold_ease`` (``|``-joined phrases of the review about the effort)
  kept for the judge; controls: the requester's own file of 10 of the items file's own ids
  (``flatpack_reviews_controls.csv``: ``item_id,field,answer`` on ``instructions_rating``, no other columns),
  named in ``[answers] controls``, no share (the import's proposal is overwritten by it).

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: pun_jokes wordplay, explanation (the script's: a blank is 0 words), funny (the script's: no star);
food_bank_shifts first_shift, thanks, tasks (the script's: no box ticked); card_verses occasion, last_line,
colour_check (the slider always holds a value); energy_tips already, barrier (the slider always holds a
value); flatpack_reviews missing_parts, instructions_rating, quote, minutes. Off the ledger too, the script's
requirements the ledger may not see: pun_jokes ``explanation_outside_5_30``, ``no_stars``; food_bank_shifts
``no_box_ticked``.

The free-text judges and limits, written before any run from the pages' own words and without reading the
simulator's, the import's or QC's code (five kinds of question not asked in earlier sets: explaining a joke,
a thank-you message naming what a person did, a rhyming line finishing a verse, what makes a habit hard or
easier for the worker themselves, and a phrase copied word for word from a text). "A word of X" is a word
equal to, or starting with, one of X's ``|``-listed words (3+ letters), or holding one of its phrases:

- pun_jokes ``explanation`` (stated: one or two sentences, 5 to 30 words, the word or sound played on and its
  two meanings, else what makes it funny, not the joke repeated; the script: 5-30 words): answers when it is
  one or two sentences, has a word of ``gold_explain``, and shares no run of six words with the joke (the joke
  repeated: jokes are short).
- food_bank_shifts ``thanks`` (stated: one or two sentences, at most 30 words, the volunteer's first name and
  one specific thing they did; required): answers when it is one or two sentences, holds the volunteer's name,
  a word of thanks (thank, thanks, grateful, appreciate, cheers) and a word of ``gold_deed``, and shares no run
  of eight words with the note (copied).
- card_verses ``last_line`` (stated: at most 12 words, rhymes with line 2's last word, suits the occasion, not
  one of the three lines repeated; required; 90 characters): answers when its last word ends in one of
  ``gold_rhyme``'s endings and it shares no run of five words with any of the three lines.
- energy_tips ``barrier`` (stated: one sentence, at most 20 words, what makes this hard for the worker or what
  would make it easier, or what helped them start; required; 160 characters): answers when it is one sentence,
  has a word of ``gold_topic`` or of REASONS (cost, money, time, forget, remind, habit, landlord, family,
  nothing, already...: what stops or helps a person), and shares no run of eight words with the tip.
- flatpack_reviews ``quote`` (stated: copied word for word from the review, 3 to 15 words, the phrase that best
  shows how easy or hard it was to put together; required; 120 characters): answers when at least 80% of its
  words are one unbroken run of the review's words, and it has a word of EASE (easy, hard, simple, quick,
  fiddly, tricky, minutes, hours...) or a 4+ letter word of ``gold_ease``'s phrases.

The runner's limit is each field's stated minimum (1 where only a maximum is stated; 5 and 3 where a range is
stated); each page's extra line adds the whole stated limit and the share within it that also answers.
Further figures, off the ledger: pun_jokes honest ``wordplay`` equal to the gold, approved explanations outside
5-30 words, approved pages with no star; food_bank_shifts honest ``first_shift`` and ``tasks`` sets equal to
the gold, approved blocks with no box ticked, thanks over 30 words; card_verses honest ``occasion`` equal to
the gold, the attention item failed by honest and bad profiles (and bad work failing it unnoticed), the honest
``suits_occasion`` values left at the slider's 5, approved lines over 12 words; energy_tips the honest
``likely`` values left at the slider's 5, approved reasons over 20 words or of two sentences or more;
flatpack_reviews honest ``missing_parts``, ``instructions_rating`` and ``minutes`` (as a number) equal to the
gold, approved ``minutes`` blank or outside 0-600, approved quotes outside 3-15 words.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout19.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout19.py``) it finds
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
from bench.gate_heldout3 import attention_tally, one_sentence
from bench.gate_heldout4 import _items, cli, whole_limit
from bench.gate_heldout5 import _given, _ticks, approved_breaking
from bench.gate_heldout6 import _combine

PAGES_DIR = ROOT / "bench" / "gate_heldout19"
RESULTS = ROOT / "bench" / "results-gate-heldout19.json"

THANKS = ("thank", "thanks", "thankyou", "grateful", "appreciate", "appreciated", "cheers")
REASONS = ["cost", "costs", "money", "price", "afford", "expensive", "cheap", "time", "busy", "forget", "forgot",
           "remember", "remind", "habit", "lazy", "landlord", "rent", "renting", "family", "partner", "kids",
           "children", "flatmate", "housemate", "nothing", "already", "know", "easier", "easy", "hard", "help",
           "cold", "comfort", "save", "saving", "bill", "bills", "effort", "routine", "space", "tools"]
EASE = ["easy", "easier", "easiest", "hard", "harder", "simple", "straightforward", "quick", "quickly", "fiddly",
        "tricky", "difficult", "nightmare", "awkward", "confusing", "struggle", "ages", "minutes", "minute", "hour",
        "hours", "afternoon", "evening", "evenings", "alone", "two-person", "force", "pain", "repetitive",
        "daunting", "fine", "nothing", "done", "tools", "big"]


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


def explanation_answers(text: str, item: dict[str, str]) -> bool:
    """One or two sentences, a word of gold_explain, no 6-word run of the joke."""
    return (0 < _sentences(text) <= 2 and has_word_of(text, _listed(item, "gold_explain"))
            and not _copies(text, item.get("joke", ""), 6))


def thanks_answers(text: str, item: dict[str, str]) -> bool:
    """One or two sentences with the volunteer's name, a word of thanks, a word of gold_deed; no 8-word run of
    the note."""
    said = [w.lower() for w in words(text)]
    name = item.get("volunteer", "").strip().lower()
    return (0 < _sentences(text) <= 2 and bool(name) and name in said and any(w in THANKS for w in said)
            and has_word_of(text, _listed(item, "gold_deed")) and not _copies(text, item.get("note", "")))


def rhymes(text: str, item: dict[str, str]) -> bool:
    said = [w.lower().strip("'-") for w in words(text)]
    return bool(said) and any(said[-1].endswith(end) for end in _listed(item, "gold_rhyme"))


def last_line_answers(text: str, item: dict[str, str]) -> bool:
    """The last word ends in one of gold_rhyme's endings; no 5-word run of any of the three lines."""
    return rhymes(text, item) and not any(_copies(text, item.get(c, ""), 5) for c in ("line1", "line2", "line3"))


def barrier_answers(text: str, item: dict[str, str]) -> bool:
    """One sentence, a word of gold_topic or of REASONS, no 8-word run of the tip."""
    return (one_sentence(text) and has_word_of(text, _listed(item, "gold_topic") + REASONS)
            and not _copies(text, item.get("tip", "")))


def _longest_run(said: list[str], shown: list[str]) -> int:
    best = 0
    for i in range(len(said)):
        for j in range(len(shown)):
            k = 0
            while i + k < len(said) and j + k < len(shown) and said[i + k] == shown[j + k]:
                k += 1
            best = max(best, k)
    return best


def copied_word_for_word(text: str, item: dict[str, str]) -> bool:
    said = [w.lower() for w in words(text)]
    return bool(said) and _longest_run(said, [w.lower() for w in words(item.get("review", ""))]) >= 0.8 * len(said)


def quote_answers(text: str, item: dict[str, str]) -> bool:
    """80% of its words one unbroken run of the review, and a word of EASE or a 4+ letter word of gold_ease."""
    ease = [w for w in words(" ".join(_listed(item, "gold_ease"))) if len(w) >= 4]
    return copied_word_for_word(text, item) and has_word_of(text, EASE + [w.lower() for w in ease])


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


def _same_number(said: str, known: str) -> bool:
    try:
        return float(said.strip()) == float(known.strip())
    except ValueError:
        return False


def _minutes_off(fields: dict[str, str]) -> bool:
    if "minutes" not in fields:
        return False
    try:
        return not 0 <= float(fields["minutes"].strip()) <= 600
    except ValueError:
        return True  # blank or not a number


def _at_5(value: str) -> bool:
    return value.strip() in ("5", "5.0")


pun_extra = _combine(
    whole_limit("pun_jokes", "explanation", explanation_answers, limit=(5, 30, False), folder=PAGES_DIR),
    approved_breaking({"explanation_outside_5_30": lambda f: "explanation" in f
                       and not 5 <= _n_words(f, "explanation") <= 30,
                       "no_stars": _blank("funny")}),
    right_share("pun_jokes", "wordplay", "gold_wordplay"))
food_extra = _combine(
    whole_limit("food_bank_shifts", "thanks", thanks_answers, limit=(1, 30, False), folder=PAGES_DIR),
    approved_breaking({"no_box_ticked": lambda f: not _ticks(f.get("tasks", "")),
                       "thanks_over_30": _outside("thanks", 0, 30), "first_shift_blank": _blank("first_shift")}),
    right_share("food_bank_shifts", "first_shift", "gold_first_shift"),
    right_share("food_bank_shifts", "tasks", "gold_tasks", lambda s, k: _ticks(s) == _ticks(k)))
card_extra = _combine(
    whole_limit("card_verses", "last_line", last_line_answers, limit=(1, 12, False), folder=PAGES_DIR),
    attention_tally("colour_check", lambda value: value.strip().lower() == "green"),
    honest_share("card_verses", "suits_occasion", "suits_left_at_5", _at_5),
    approved_breaking({"line_over_12": _outside("last_line", 0, 12), "occasion_blank": _blank("occasion")}),
    right_share("card_verses", "occasion", "gold_occasion"))
energy_extra = _combine(
    whole_limit("energy_tips", "barrier", barrier_answers, limit=(1, 20, True), folder=PAGES_DIR),
    honest_share("energy_tips", "likely", "likely_left_at_5", _at_5),
    approved_breaking({"barrier_over_20": _outside("barrier", 0, 20),
                       "barrier_2_sentences_or_more": lambda f: _sentences(f.get("barrier", "")) > 1,
                       "already_blank": _blank("already")}))
flatpack_extra = _combine(
    whole_limit("flatpack_reviews", "quote", quote_answers, limit=(3, 15, False), folder=PAGES_DIR),
    approved_breaking({"minutes_blank_or_outside_0_600": _minutes_off, "quote_outside_3_15": _outside("quote", 3, 15),
                       "instructions_rating_blank": _blank("instructions_rating")}),
    right_share("flatpack_reviews", "missing_parts", "gold_missing_parts"),
    right_share("flatpack_reviews", "instructions_rating", "gold_instructions_rating"),
    right_share("flatpack_reviews", "minutes", "gold_minutes", _same_number))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # one item; a full document with its own form; the explanation's 5-30 words and the stars by the onsubmit
    # script only, each refused with a message; the proposed controls
    _page("pun_jokes", 1, ("wordplay", "explanation", "funny"), texts={
        "explanation": TextField(5, explanation_answers, "one or two sentences, a word of gold_explain, no 6-word "
                                 "run of the joke")},
          keys={"controls": '"pun_jokes_controls.csv"'}, truth='{wordplay = "gold_wordplay"}',
          controls=True, extra=pun_extra),
    # two a page; six fixed boxes, "at least one" by a submit listener with a message; the 30 words only in
    # prose; separate controls at a share
    _page("food_bank_shifts", 2, ("first_shift", "thanks", "tasks"), texts={
        "thanks": TextField(1, thanks_answers, "one or two sentences, the volunteer's name, a word of thanks and "
                            "of gold_deed, no 8-word run of the note")},
          keys={"controls": '"food_bank_shifts_controls.csv"', "control_share": "0.2"},
          truth='{first_shift = "gold_first_shift", tasks = "gold_tasks"}', controls=True, extra=food_extra),
    # one item; crowd elements, the radio buttons sharing one name; a slider; an instructed-response item; no
    # controls
    _page("card_verses", 1, ("occasion", "last_line", "colour_check"), texts={
        "last_line": TextField(1, last_line_answers, "the last word ends in a gold_rhyme ending, no 5-word run of "
                               "a line")},
          truth='{occasion = "gold_occasion"}', extra=card_extra),
    # five a page; Prolific's document, a survey of the worker's own home; a range input; no truth, no controls
    _page("energy_tips", 5, ("already", "barrier"), texts={
        "barrier": TextField(1, barrier_answers, "one sentence, a word of gold_topic or REASONS, no 8-word run of "
                             "the tip")},
          extra=energy_extra),
    # three a page; a Bootstrap fragment, a number field; the requester's own controls file of the items' own
    # ids, no share
    _page("flatpack_reviews", 3, ("missing_parts", "instructions_rating", "quote", "minutes"), texts={
        "quote": TextField(3, quote_answers, "80% of its words one unbroken run of the review, a word of EASE or "
                           "gold_ease")},
          keys={"controls": '"flatpack_reviews_controls.csv"'},
          truth='{missing_parts = "gold_missing_parts", instructions_rating = "gold_instructions_rating", '
                'minutes = "gold_minutes"}', controls=True, extra=flatpack_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
