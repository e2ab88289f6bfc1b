"""``make bench-gate-heldout21``: bench/gate_heldout.py's gate and rehearsal on a twenty-first held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses named in its brief (bench/gate_heldout21/), each with a
30-item file of content of its own:

- fable_morals: ONE short fable a page for a school reading book (``fable``, ``character_a``,
  ``character_b``), on MTurk's crowd HTML elements (``<crowd-form>`` with ``<crowd-instructions>``: short
  summary, detailed instructions, a positive and a negative example): "Which of these two characters acts more
  wisely in the fable?" (a ``crowd-radio-group name="wiser" required`` of two ``crowd-radio-button``s each named
  on its own, ``wiser_a``/``wiser_b``, valued a/b; truth ``gold_wiser``, 13 a / 8 b / 9 blank where neither is
  plainly wiser), "What is the moral of this fable? Write it as a short saying, one sentence of no more than 15
  words, in your own words." (a ``crowd-text-area required``, ``max-length="120"``) and "Which age group would
  enjoy this fable most?" (a ``crowd-classifier name="age_group"`` of four categories inside the crowd-form);
  ``gold_moral`` (``|``-joined words of the lesson) kept for the judge; controls: the file ``hitflow new``
  proposes from ``gold_wiser`` (``fable_morals_controls.csv``), named in ``[answers] controls``, no share;
- text_abbreviations: FIVE chat messages a page, each with an abbreviation (``message``, ``abbr``), a plain
  ``${column}`` fragment with its own CSS, an "Instructions:" paragraph and a two-row table: "What does ABBR
  stand for in this message? Write the words in full." (a ``required`` text input, ``maxlength="60"``) and "Is
  this message about work or about personal life?" (work / personal radios, ``required``; truth
  ``gold_setting``, 15 / 15); ``gold_expansion`` (``|``-joined accepted expansions) kept for the judge;
  controls: the requester's own file of 8 of the items file's own ids (``text_abbreviations_controls.csv``:
  ``item_id,field,answer`` on ``setting``), named in ``[answers] controls`` at a share of 0.2;
- party_declines: TWO invitations a page (``host``, ``invitation``), a ``${column}`` fragment on Bootstrap 5's
  stylesheet from its CDN, an ``alert`` box of instructions with ``id="instructions"``, a card per invitation
  (``.invite-block``): "What does the invitation ask guests to do? Tick all that apply (at least one)." (seven
  checkboxes SHARING ``name="asks"``: rsvp, bring_food, dress_code, secret, money, no_gifts, none, none
  ``required``) and "Your reply to HOST saying you can't come" ("Polite, with a reason, wishing them well. 10 to
  40 words.", a ``required`` textarea, no maxlength); a closing script adds a ``submit`` listener to
  ``document.querySelector('form')`` (MTurk's wrapping form) that, per ``.invite-block``, refuses no box ticked
  and a reply outside 10-40 words, writing the message into the block (no ``alert``) and calling
  ``preventDefault``; ``gold_asks`` (``|``-joined boxes the invitation states) kept for a figure; no truth, no
  controls;
- place_names: ONE place name a page that is not said as spelled (``place``, ``country``), a full HTML
  document for Prolific with its own CSS (no framework), ``<form id="study">`` posting to a Prolific completion
  URL, hidden ``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID`` with ids, filled one by one from
  ``URLSearchParams`` by a closing script: "How do you think people who live there say it? Write it the way it
  sounds." ("with a hyphen between the syllables and the stressed syllable in CAPITALS", examples TEMZ,
  NOR-idge, arr-ih-ZOH-nuh; a ``required`` text input, ``maxlength="40"``), "Before today, had you heard this
  name said out loud?" (yes / no / not sure radios, ``required``), "How confident are you in your answer to
  question 1?" (a ``required`` ``<select name="confidence">`` of four with an empty first option) and an
  instructed-response Likert row, '"I enjoy learning about places I have never been to." It is important that
  you pay attention to this study. Please select "Strongly disagree" for this statement.' (five radios
  ``name="statement"`` valued 1-5 in a table, labels in the row below, ``required``; the instructed answer 1);
  no script check, no truth, no controls; ``gold_sound`` (``|``-joined accepted respellings) kept for the judge;
- size_sorter: THREE "big number" facts a page for a science centre's activity sheet (``fact``, ``order_by``,
  ``thing1`` to ``thing4``), a ``${column}`` fragment with its own CSS and its own script: "Put these four in
  order, ORDER_BY. Drag them (or use the arrows)." (a hand-written sortable ``<ol>``: four ``draggable`` items
  with ▲/▼ ``type="button"`` buttons; the script writes the keys first to last, e.g. ``3,1,4,2``, into a hidden
  ``name="order"`` field that starts empty, on each drop or arrow click; truth ``gold_order``, never the order
  shown) and "Help a ten-year-old picture the number in this fact. Compare it with something they know from
  everyday life. One sentence, no more than 20 words." (a ``required`` textarea, ``maxlength="160"``); a
  ``submit`` listener on ``document.getElementById('mturk_form')`` refuses while any list's hidden order is
  empty (never moved), with a message in the block and an ``alert``; no controls.

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: fable_morals wiser, moral, age_group (a classifier always takes one); text_abbreviations expansion,
setting; party_declines reply, asks (the script's: no box ticked); place_names sounds_like, heard, confidence,
statement; size_sorter picture, order (the script's: the list never moved). Off the ledger too, the scripts'
requirements the ledger may not see: party_declines ``no_box_ticked``, ``reply_outside_10_40``; size_sorter
``order_blank``.

The free-text judges and limits, written before any run from the pages' own words and without reading the
simulator's, the import's or QC's code (five kinds of question not asked in sets 1-20: the moral of a fable,
an abbreviation written out, a polite refusal of an invitation, a place name respelled as it sounds, and an
everyday comparison that makes a number imaginable). "A word of X" is bench/gate_heldout19.py's
``has_word_of`` over X's ``|``-listed words:

- fable_morals ``moral`` (stated: one sentence, at most 15 words, a short saying in one's own words;
  required; 120 characters): answers when it is one sentence, has a word of ``gold_moral`` or of MAXIM
  (never, always, don't, should, better, pays, wins...: the shape of a saying), and shares no run of six words
  with the fable.
- text_abbreviations ``expansion`` (stated: the words in full, the meaning that fits the message; required; 60
  characters): answers when it holds one of ``gold_expansion``'s phrases (case, hyphens and punctuation aside)
  or its words' first letters (all, or all but of/and/the/to/in/on/for/my) spell the abbreviation's letters,
  and it is not the abbreviation alone.
- party_declines ``reply`` (stated: 10 to 40 words, polite, can't come, a reason, wishing the host well;
  required; the script: 10-40 words): answers when it has a word of refusal (DECLINE: can't, unable,
  unfortunately, sadly, miss...), of a reason (REASON: because, since, away, working, already, plans...) and of
  good wishes (WELL: hope, wish, enjoy, have a great..., congratulations...), and shares no run of eight words
  with the invitation.
- place_names ``sounds_like`` (stated: spelled as it sounds, hyphens between syllables, the stressed one in
  capitals; required; 40 characters): answers when it is not the name as spelled (letters only, case
  ignored), holds only letters, hyphens, apostrophes and spaces, and starts (letters only, lowercase) with the
  first two letters of one of ``gold_sound``'s respellings, or is one of them.
- size_sorter ``picture`` (stated: one sentence, at most 20 words, the fact's number compared with something
  everyday; required; 160 characters): answers when it is one sentence, has a word of comparison (COMPARE: as
  ... as, like, size of, times, twice, half, than, about, equal...), a 3+ letter word of its own (not of the
  fact, common words and COMPARE aside: the everyday thing) and shares no run of six words with the fact.

The runner's limit is each field's stated minimum (1 where only a maximum is stated; 10 on party_declines);
each page's extra line adds the whole stated limit and the share within it that also answers. Where the page
states no word count the limit is read off its own words: text_abbreviations 1 to 12 (60 characters), and
place_names 1 to 4 (its examples are one word each, hyphens joining syllables). Further figures, off the
ledger: fable_morals honest ``wiser`` equal to the gold (where there is one), the honest ``age_group`` spread,
approved morals over 15 words or of two sentences or more; text_abbreviations honest ``setting`` equal to
the gold, approved expansions that are the abbreviation alone; party_declines honest ``asks`` sets equal to
the gold, approved blocks with no box ticked, with "none" and another box, or a reply outside 10-40 words;
place_names the honest answers written as asked (a hyphen or a single syllable, and a syllable in capitals),
the attention item failed by honest and bad profiles (and bad work failing it unnoticed), approved answers
that are the name as spelled; size_sorter honest ``order`` equal to the gold, approved blocks with the list
never moved, pictures over 20 words or of two sentences or more.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout21.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout21.py``) it finds
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
from bench.gate_heldout3 import STOP, attention_tally, one_sentence
from bench.gate_heldout4 import cli, whole_limit
from bench.gate_heldout5 import _ticks, approved_breaking
from bench.gate_heldout6 import _combine
from bench.gate_heldout19 import _blank, _copies, _listed, _outside, _sentences, has_word_of

PAGES_DIR = ROOT / "bench" / "gate_heldout21"
RESULTS = ROOT / "bench" / "results-gate-heldout21.json"

MAXIM = ["never", "always", "don't", "dont", "do not", "should", "shouldn't", "better", "best", "pays", "wins",
         "can't", "cannot", "must", "those who", "whoever", "if you", "it is", "it's", "beware", "be careful"]
SMALL = {"of", "and", "the", "to", "in", "on", "for", "my", "a"}
DECLINE = re.compile(r"\b(can't|cannot|can not|cant|won't be able|wont be able|unable|not be able|not able|"
                     r"unfortunately|sadly|afraid|regret|miss|missing|decline|won't make|wont make|couldn't|"
                     r"not make it|not going to make|not coming|can't come|won't be there|wont be there)\b", re.I)
REASON = re.compile(r"\b(because|as|since|due|i'm|im|i am|i have|i've|ive|got|we're|we are|we have|working|"
                    r"work|away|abroad|travell?ing|trip|ill|sick|poorly|family|prior|already|busy|commitment|"
                    r"plans|appointment|shift|exam|exams|holiday|wedding|visiting|booked|out of town)\b", re.I)
WELL = re.compile(r"\b(hope|hoping|wish|wishing|enjoy|have a (great|lovely|wonderful|fantastic|brilliant|good|fab"
                  r"|amazing|fun)|congrat\w*|happy|best wishes|all the best|have fun|great time|lovely time|"
                  r"good luck|celebrate|many happy)\b", re.I)
COMPARE = re.compile(r"\b(as \w+ as|like|size of|same as|times|twice|half|than|about|around|roughly|nearly|"
                     r"almost|equal|equals|similar|weight of|length of|height of|enough to|imagine|think of|"
                     r"stacked|end to end|laid|lined up|full of)\b", re.I)
COMPARE_WORDS = {"as", "like", "size", "same", "times", "twice", "half", "than", "about", "around", "roughly",
                 "nearly", "almost", "equal", "equals", "similar", "weight", "length", "height", "enough",
                 "imagine", "think", "stacked", "end", "laid", "lined", "full", "that's", "thats", "that", "is",
                 "it's", "its", "would", "be"}
RESPELLING = re.compile(r"^[A-Za-z' -]+$")


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def moral_answers(text: str, item: dict[str, str]) -> bool:
    """One sentence, a word of gold_moral or of MAXIM, no 6-word run of the fable."""
    return (one_sentence(text) and has_word_of(text, _listed(item, "gold_moral") + MAXIM)
            and not _copies(text, item.get("fable", ""), 6))


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^a-z' ]", " ", text.lower().replace("-", " ").replace("’", "'")).split())


def expansion_answers(text: str, item: dict[str, str]) -> bool:
    """A phrase of gold_expansion, or words whose first letters spell the abbreviation; not the abbreviation."""
    abbr, said = _letters(item.get("abbr", "")), _plain(text)
    if not said or _letters(text) == abbr:
        return False
    if any(f" {_plain(p)} " in f" {said} " for p in _listed(item, "gold_expansion")):
        return True
    initials = [w[0] for w in said.split()]
    big = [w[0] for w in said.split() if w not in SMALL]
    return abbr in ("".join(initials), "".join(big))


def reply_answers(text: str, item: dict[str, str]) -> bool:
    """A word of refusal, of a reason and of good wishes; no 8-word run of the invitation."""
    said = text.replace("’", "'")
    return (bool(DECLINE.search(said) and REASON.search(said) and WELL.search(said))
            and not _copies(said, item.get("invitation", "")))


def _spelling(text: str, item: dict[str, str]) -> bool:
    return _letters(text) == _letters(item.get("place", ""))


def sounds_answers(text: str, item: dict[str, str]) -> bool:
    """Not the spelling; a respelling's characters only; starts as one of gold_sound's respellings does."""
    said = _letters(text)
    if not said or _spelling(text, item) or not RESPELLING.match(text.strip()):
        return False
    known = [_letters(s) for s in _listed(item, "gold_sound")]
    return said in known or any(len(k) >= 2 and said.startswith(k[:2]) for k in known)


def as_asked(value: str) -> bool:
    """Written as the page asks: hyphens between syllables (or one syllable) and a syllable in capitals."""
    chunks = [c for c in re.split(r"[-\s]+", value.strip()) if c]
    return bool(chunks) and any(len(c) >= 2 and c.isupper() for c in chunks) and ("-" in value or len(chunks) == 1)


def picture_answers(text: str, item: dict[str, str]) -> bool:
    """One sentence, a word of comparison and a 3+ letter word of its own, no 6-word run of the fact."""
    fact = {w.lower() for w in words(item.get("fact", ""))}
    own = [w for w in words(text) if len(w) >= 3 and w.lower() not in fact and w.lower() not in STOP
           and w.lower() not in COMPARE_WORDS and not w.isdigit()]
    return (one_sentence(text) and bool(COMPARE.search(text)) and bool(own)
            and not _copies(text, item.get("fact", ""), 6))


_here = partial(gate_heldout20.read_off, PAGES_DIR)  # set 20's figures, read off this set's folder


right_share, honest_at, honest_spread = (_here(gate_heldout20.right_share), _here(gate_heldout20.honest_at),
                                         _here(gate_heldout20.honest_spread))


def _order_same(said: str, known: str) -> bool:
    return [k.strip() for k in said.split(",")] == [k.strip() for k in known.split(",")]


fable_extra = _combine(
    whole_limit("fable_morals", "moral", moral_answers, limit=(1, 15, True), folder=PAGES_DIR),
    approved_breaking({"moral_over_15": _outside("moral", 0, 15),
                       "moral_2_sentences_or_more": lambda f: _sentences(f.get("moral", "")) > 1,
                       "wiser_blank": _blank("wiser")}),
    right_share("fable_morals", "wiser", "gold_wiser"),
    honest_spread("fable_morals", "age_group"))
abbr_extra = _combine(
    whole_limit("text_abbreviations", "expansion", expansion_answers, limit=(1, 12, False), folder=PAGES_DIR),
    approved_breaking({"setting_blank": _blank("setting"),
                       "expansion_is_abbreviation": lambda f: bool(f.get("expansion", "").strip())
                       and " " not in f["expansion"].strip() and f["expansion"].strip().isupper()}),
    right_share("text_abbreviations", "setting", "gold_setting"))
party_extra = _combine(
    whole_limit("party_declines", "reply", reply_answers, limit=(10, 40, False), folder=PAGES_DIR),
    approved_breaking({"no_box_ticked": lambda f: "asks" in f and not _ticks(f["asks"]),
                       "none_and_another": lambda f: "none" in _ticks(f.get("asks", ""))
                       and len(_ticks(f.get("asks", ""))) > 1,
                       "reply_outside_10_40": lambda f: "reply" in f and not 10 <= len(words(f["reply"])) <= 40}),
    right_share("party_declines", "asks", "gold_asks", lambda s, k: _ticks(s) == _ticks(k)))
place_extra = _combine(
    whole_limit("place_names", "sounds_like", sounds_answers, limit=(1, 4, False), folder=PAGES_DIR),
    honest_at("place_names", "sounds_like", "written_as_asked", as_asked),
    attention_tally("statement", lambda value: value.strip() == "1"),
    approved_breaking({"heard_blank": _blank("heard"), "confidence_blank": _blank("confidence"),
                       "sounds_like_blank": _blank("sounds_like")}))
size_extra = _combine(
    whole_limit("size_sorter", "picture", picture_answers, limit=(1, 20, True), folder=PAGES_DIR),
    approved_breaking({"order_blank": lambda f: "order" in f and not f["order"].strip(),
                       "picture_over_20": _outside("picture", 0, 20),
                       "picture_2_sentences_or_more": lambda f: _sentences(f.get("picture", "")) > 1}),
    right_share("size_sorter", "order", "gold_order", _order_same))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # one item; crowd elements: a radio group of buttons each named on its own, a classifier inside the form;
    # the proposed controls
    _page("fable_morals", 1, ("wiser", "moral", "age_group"), texts={
        "moral": TextField(1, moral_answers, "one sentence, a word of gold_moral or MAXIM, no 6-word run of the "
                           "fable")},
          keys={"controls": '"fable_morals_controls.csv"'}, truth='{wiser = "gold_wiser"}', controls=True,
          extra=fable_extra),
    # five a page; a plain fragment; the requester's own controls file of the items' own ids, at a share
    _page("text_abbreviations", 5, ("expansion", "setting"), texts={
        "expansion": TextField(1, expansion_answers, "a phrase of gold_expansion or words whose initials spell "
                               "the abbreviation")},
          keys={"controls": '"text_abbreviations_controls.csv"', "control_share": "0.2"},
          truth='{setting = "gold_setting"}', controls=True, extra=abbr_extra),
    # two a page; Bootstrap; boxes sharing a name; "at least one box" and 10-40 words by a submit listener on
    # MTurk's form, the message written into the block; no truth, no controls
    _page("party_declines", 2, ("asks", "reply"), texts={
        "reply": TextField(10, reply_answers, "a word of DECLINE, REASON and WELL, no 8-word run of the "
                           "invitation")},
          extra=party_extra),
    # one item; Prolific's own document; a select; an instructed-response Likert row
    _page("place_names", 1, ("sounds_like", "heard", "confidence", "statement"), texts={
        "sounds_like": TextField(1, sounds_answers, "not the spelling, a respelling's characters, starting as a "
                                 "gold_sound respelling")},
          extra=place_extra),
    # three a page; a hand-written drag-to-order list writing a hidden field; its submit listener refuses a
    # list never moved; truth, no controls
    _page("size_sorter", 3, ("order", "picture"), texts={
        "picture": TextField(1, picture_answers, "one sentence, a word of COMPARE and one of its own, no 6-word "
                             "run of the fact")},
          truth='{order = "gold_order"}', extra=size_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
