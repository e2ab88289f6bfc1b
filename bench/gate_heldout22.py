"""``make bench-gate-heldout22``: bench/gate_heldout.py's gate and rehearsal on a twenty-second held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses named in its brief (bench/gate_heldout22/), each with a
30-item file of content of its own:

- paint_names: ONE paint colour a page for a paint maker's catalogue (``hex``, ``family``), on MTurk's crowd
  HTML elements (``<crowd-form>`` with ``<crowd-instructions>``: summary, detailed instructions, a positive
  and a negative example), the swatch a ``<div>`` whose ``background`` is ``${hex}``: "Does this colour feel
  warm or cool?" (a ``crowd-radio-group name="tone" required`` of two ``crowd-radio-button``s named
  ``tone_warm``/``tone_cool``, valued warm/cool; truth ``gold_tone``, 13 warm / 13 cool / 4 blank greys and
  white), "Make up a name for this paint. 2 to 4 words. Don't use the word "FAMILY"." (a ``crowd-input
  required``, ``max-length="30"``) and "How light or dark is it?" (a ``crowd-slider name="lightness"`` 0-10,
  ``required``); no controls;
- garden_aspect: ONE homeowner's note on the sun in their UK back garden a page (``garden``), a plain
  ``${column}`` fragment with its own CSS and script: "Which way does this back garden face?" (a hand-written
  SVG compass rose: eight clickable ``<g class="pt" data-dir=...>`` points, n/ne/e/se/s/sw/w/nw, the script
  writes the one clicked into a hidden ``name="facing"`` that starts empty; truth ``gold_facing``), "Would
  sun-loving plants do well at the far end of this garden?" (yes / no radios, ``required``; truth
  ``gold_sun_plants``) and an instructed-response item, "Which season do you like best for gardening? We check
  that people read the questions: whatever you really think, please choose Autumn here." (four radios
  ``name="season"``, ``required``; the instructed answer ``autumn``); a ``submit`` listener on
  ``document.getElementById('mturk_form') || document.forms[0]`` refuses an empty ``facing`` with a message
  by the compass and an ``alert``; no free text, no controls;
- gift_ideas: TWO people a page someone must buy a present for (``person``, ``budget``), a full HTML document
  for Prolific with its own CSS (no framework), ``<form id="giftform">`` posting to a Prolific completion URL,
  hidden ``PROLIFIC_PID``, ``STUDY_ID``, ``SESSION_ID`` filled from ``URLSearchParams`` in a loop: "Who is the
  present for, to the person who wrote the note?" (a ``required`` ``<select name="relation">`` of seven with a
  ``selected disabled`` empty first option; truth ``gold_relation``), "Which interests does the note mention?
  Tick all that apply (at least one)." (eight checkboxes SHARING ``name="interests"``, none ``required``, no
  script: the "at least one" is the question's words only; ``gold_interests`` ``|``-joined, kept for a figure)
  and "Suggest ONE present and say why it would suit them" ("Name one specific thing you could buy within the
  budget, and in the same answer say why it suits this person. 15 to 40 words.", a ``required`` textarea, no
  maxlength); no controls;
- taboo_words: THREE cards a page for a word-guessing game for adult English learners (``word``, ``banned``:
  three words), a ``${column}`` fragment on Bulma 1.0's stylesheet from its CDN: "Your clue for a friend (8 to
  25 words)" (a ``required`` textarea, ``maxlength="200"``; the instructions: not the word, any part of it or
  a banned word, simple English, no "sounds like", spelling or translations) and "Is WORD a noun, a verb or an
  adjective? Think of how it is most often used." (noun / verb / adjective radios ``name="pos"``,
  ``required``; truth ``gold_pos``, 10 / 9 / 9 and 2 blank where the word is both); controls: the file
  ``hitflow new`` proposes from ``gold_pos`` (``taboo_words_controls.csv``), named in ``[answers] controls``,
  no share;
- news_tense: FIVE present-tense live updates of a local news site a page (``update``), a plain ``${column}``
  fragment with its own CSS: "Rewritten for tomorrow's paper" (past tense, one sentence, no more than 25 words,
  every fact kept, nothing added; a ``required`` text input, ``maxlength="200"``) and "Section" (local / sport
  / weather / business radios, ``required``; truth ``gold_section``, 8 / 7 / 8 / 7); ``gold_past``
  (``|``-joined past-tense verbs that report the update) kept for the judge; controls: the requester's own file
  of 8 of the items file's ids (``news_tense_controls.csv``: ``item_id,field,answer`` on ``section``), named in
  ``[answers] controls`` at a share of 0.2.

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: paint_names tone, paint_name, lightness (a slider always has a value); garden_aspect facing (the
script's: the compass never clicked), sun_plants, season; gift_ideas relation, gift (``interests`` is not:
nothing in the browser enforces the question's "at least one"); taboo_words clue, pos; news_tense past,
section. Off the ledger too: garden_aspect's ``facing_blank``, gift_ideas's ``no_box_ticked``.

The free-text judges and limits, written before any run from the pages' own words and without reading the
simulator's, the import's or QC's code (four kinds of question not asked in sets 1-21: a made-up product name,
a gift suggested with its reason, a clue for a word that avoids banned words, and a report rewritten in the
past tense). "Says a word of X" is an exact word (or phrase) of X's ``|``-list, so a present "cuts" is not
the past "cut":

- paint_names ``paint_name`` (stated: 2 to 4 words, not the word FAMILY, a name to make someone want to paint
  a room with it; required; 30 characters): answers when it has no word of ``family`` (nor one starting with
  it), no digit, no ``#``, one sentence of at most 6 words, and a 3+ letter word that is not a stop word or
  BLAND (nice, colour, paint, pretty...).
- news_tense ``past`` (stated: past tense, one sentence, at most 25 words, every fact kept, nothing added;
  required; 200 characters): answers when it says a word of ``gold_past``, is not the update as it stands
  (words, case aside), and holds at least half the update's 4+ letter words (their first four letters; the
  update's verbs in the present aside: those ``gold_past`` replaces).
- gift_ideas ``gift`` (stated: ONE specific present within the budget and why it suits this person, 15 to 40
  words; required): answers when it has a word of a reason (BECAUSE: because, as, since, loves, enjoys,
  suits, perfect, would...), a 4+ letter word of the note (what ties the present to the person), a 4+ letter
  word of its own (not the note's, nor a stop or reason word: the present) and shares no run of eight words
  with the note.
- taboo_words ``clue`` (stated: 8 to 25 words, not the word, any part of it or a banned word, no "sounds
  like", spelling out or translation; required; 200 characters): answers when no word of it is the word,
  starts with a banned word or the word's first five letters, or is a 4+ letter part of the word; it says no
  "sounds like", "rhymes" or "spelled"; and it has at least three words that are not stop words.

The runner's limit is each field's stated minimum (2 on paint_names, 15 on gift_ideas, 8 on taboo_words, 1 on
news_tense where only a maximum is stated); each page's extra line adds the whole stated limit and the share
within it that also answers. Further figures, off the ledger: paint_names honest ``tone`` equal to the gold
(the group read as ``tone`` or, where the ledger keeps its buttons, as ``tone_warm``/``tone_cool``), the
honest ``lightness`` spread, approved names holding the family word; garden_aspect honest ``facing`` and
``sun_plants`` equal to the gold, the attention item failed by honest and bad profiles (and bad work failing
it unnoticed), approved pages with the compass never clicked; gift_ideas honest ``relation`` and
``interests`` (as sets) equal to the gold, approved blocks with no box ticked or a suggestion outside 15-40
words; taboo_words honest ``pos`` equal to the gold, approved clues using the word or a banned word;
news_tense honest ``section`` equal to the gold, approved rewrites over 25 words, of two sentences or more, or
the update unchanged.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout22.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout22.py``) it finds
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

PAGES_DIR = ROOT / "bench" / "gate_heldout22"
RESULTS = ROOT / "bench" / "results-gate-heldout22.json"

COMMON = STOP | {"the", "and", "a", "an", "of", "to", "in", "on", "for", "it", "is", "its", "it's", "you", "your",
                 "be", "are", "at", "or", "but", "not", "can", "do", "so", "as", "by", "he", "she", "his", "her",
                 "him", "them", "i", "my", "me", "we", "our", "us", "very", "just", "also", "would", "could",
                 "like", "one", "use", "used", "thing", "something", "get", "has", "had", "was", "about"}
BLAND = {"nice", "good", "colour", "color", "paint", "pretty", "lovely", "shade", "tone", "warm", "cool", "light",
         "dark", "name", "great", "beautiful"}
BECAUSE = re.compile(r"\b(because|as|since|so|loves?|enjoys?|likes?|into|keen|fan|suits?|suited|perfect|ideal|"
                     r"great for|good for|would|could|will|help|helps|useful|handy|fits?|given|for (his|her|their)"
                     r")\b", re.I)
REASON_WORDS = {"because", "since", "loves", "love", "enjoys", "enjoy", "likes", "like", "into", "keen", "suits",
                "suit", "suited", "perfect", "ideal", "great", "good", "would", "could", "will", "help", "helps",
                "useful", "handy", "fits", "fit", "given", "budget", "present", "gift", "within", "under"}
NOT_A_CLUE = re.compile(r"\b(sounds? like|rhymes?|spell\w*|starts? with the letter|in (french|spanish|german))\b",
                        re.I)


def _says(text: str, listed: list[str]) -> bool:
    """An exact word of ``listed`` (or a listed phrase held): "cuts" is not "cut"."""
    said = " " + " ".join(w.lower() for w in words(text.replace("’", "'"))) + " "
    return any(f" {' '.join(words(token))} " in said for token in listed if token)


def name_answers(text: str, item: dict[str, str]) -> bool:
    """No word of the family, no digit or #, one sentence of at most 6 words, a 3+ letter word not bland."""
    said = [w.lower() for w in words(text)]
    own = [w for w in said if len(w) >= 3 and w not in COMMON and w not in BLAND]
    return (bool(own) and len(said) <= 6 and one_sentence(text) and not re.search(r"[\d#]", text)
            and not has_word_of(text, _listed(item, "family")))


def _heads(text: str, skip: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """The first four letters of the 4+ letter words that are not common (nor ``skip``)."""
    return {w.lower()[:4] for w in words(text) if len(w) >= 4 and w.lower() not in COMMON and w.lower() not in skip}


def past_answers(text: str, item: dict[str, str]) -> bool:
    """A word of gold_past, not the update unchanged, half the update's 4+ letter words (present verbs aside)."""
    update = item.get("update", "")
    if not _says(text, _listed(item, "gold_past")):
        return False
    if [w.lower() for w in words(text)] == [w.lower() for w in words(update)]:
        return False
    present = {w.lower() for w in words(update) if w.lower().endswith("s") and len(w) >= 4
               and w.lower()[:4] in {p[:4] for p in _listed(item, "gold_past")}}
    shown = _heads(update, present)
    return bool(shown) and len(shown & _heads(text)) >= 0.5 * len(shown)


def gift_answers(text: str, item: dict[str, str]) -> bool:
    """A word of BECAUSE, a 4+ letter word of the note, a 4+ letter word of its own; no 8-word run of the note."""
    note = item.get("person", "")
    note_words = {w.lower() for w in words(note)}
    said = [w.lower() for w in words(text)]
    tie = [w for w in said if len(w) >= 4 and w in note_words and w not in COMMON]
    own = [w for w in said if len(w) >= 4 and w not in note_words and w not in COMMON and w not in REASON_WORDS]
    return bool(BECAUSE.search(text)) and bool(tie) and bool(own) and not _copies(text, note)


def _breaks_taboo(text: str, item: dict[str, str]) -> bool:
    """The word, a word starting with a banned word or the word's first five letters, or a 4+ letter part of it."""
    target = item.get("word", "").strip().lower()
    banned = [b.strip().lower() for b in item.get("banned", "").split(",") if b.strip()]
    for w in (w.lower() for w in words(text)):
        if w == target or (len(target) >= 5 and w.startswith(target[:5])):
            return True
        if any(w == b or (len(b) >= 3 and w.startswith(b)) for b in banned):
            return True
        if len(w) >= 4 and w in target:
            return True
    return False


def clue_answers(text: str, item: dict[str, str]) -> bool:
    """Keeps the rules (no word, part of it or banned word; no "sounds like") and has three words not stop words."""
    content = [w for w in words(text) if w.lower() not in COMMON]
    return len(content) >= 3 and not _breaks_taboo(text, item) and not NOT_A_CLUE.search(text)


_here = partial(gate_heldout20.read_off, PAGES_DIR)  # set 20's figures, read off this set's folder


right_share, honest_spread, breaking_item = (_here(gate_heldout20.right_share), _here(gate_heldout20.honest_spread),
                                             _here(gate_heldout20.approved_breaking_item))
ON = {"true", "on", "1", "yes", "checked"}


def _tone(fields: dict[str, str]) -> str | None:
    """The tone chosen, whether the ledger keeps the group (``tone``) or its buttons (``tone_warm``: true)."""
    if "tone" in fields:
        return fields["tone"]
    keys = [k for k in ("tone_warm", "tone_cool") if k in fields]
    if not keys:
        return None
    return next((k.removeprefix("tone_") for k in keys if fields[k].strip().lower() in ON | {k[5:]}), "")


def _same_set(said: str, known: str) -> bool:
    return _ticks(said) == _ticks(known)


def _unchanged(fields: dict[str, str], item: dict[str, str]) -> bool:
    said = [w.lower() for w in words(fields.get("past", ""))]
    return bool(said) and said == [w.lower() for w in words(item.get("update", ""))]


paint_extra = _combine(
    whole_limit("paint_names", "paint_name", name_answers, limit=(2, 4, False), folder=PAGES_DIR),
    right_share("paint_names", "tone", "gold_tone", None, _tone),
    honest_spread("paint_names", "lightness"),
    breaking_item("paint_names", {"name_has_family_word": lambda f, item: bool(f.get("paint_name", "").strip())
                                  and has_word_of(f["paint_name"], _listed(item, "family"))}),
    approved_breaking({"paint_name_blank": _blank("paint_name")}))
garden_extra = _combine(
    right_share("garden_aspect", "facing", "gold_facing"),
    right_share("garden_aspect", "sun_plants", "gold_sun_plants"),
    attention_tally("season", lambda value: value.strip().lower() == "autumn"),
    approved_breaking({"facing_blank": _blank("facing"), "sun_plants_blank": _blank("sun_plants"),
                       "season_blank": _blank("season")}))
gift_extra = _combine(
    whole_limit("gift_ideas", "gift", gift_answers, limit=(15, 40, False), folder=PAGES_DIR),
    right_share("gift_ideas", "relation", "gold_relation"),
    right_share("gift_ideas", "interests", "gold_interests", _same_set),
    approved_breaking({"no_box_ticked": lambda f: "interests" in f and not _ticks(f["interests"]),
                       "relation_blank": _blank("relation"),
                       "gift_outside_15_40": _outside("gift", 15, 40)}))
taboo_extra = _combine(
    whole_limit("taboo_words", "clue", clue_answers, limit=(8, 25, False), folder=PAGES_DIR),
    right_share("taboo_words", "pos", "gold_pos"),
    breaking_item("taboo_words", {"clue_says_word_or_banned": lambda f, item: _breaks_taboo(f.get("clue", ""),
                                                                                             item)}),
    approved_breaking({"clue_outside_8_25": _outside("clue", 8, 25)}))
news_extra = _combine(
    whole_limit("news_tense", "past", past_answers, limit=(1, 25, True), folder=PAGES_DIR),
    right_share("news_tense", "section", "gold_section"),
    breaking_item("news_tense", {"past_is_update_unchanged": _unchanged}),
    approved_breaking({"past_over_25": _outside("past", 0, 25),
                       "past_2_sentences_or_more": lambda f: _sentences(f.get("past", "")) > 1,
                       "section_blank": _blank("section")}))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # one item; crowd elements: a radio group of buttons named on their own, a crowd-input, a slider; truth on the
    # group, no controls
    _page("paint_names", 1, ("tone", "paint_name", "lightness"), texts={
        "paint_name": TextField(2, name_answers, "no family word, digit or #, at most 6 words, a word not bland")},
          truth='{tone = "gold_tone"}', extra=paint_extra),
    # one item; a plain fragment; a hand-written SVG compass writing a hidden field, refused empty by its submit
    # listener; an instructed-response item; truth, no free text, no controls
    _page("garden_aspect", 1, ("facing", "sun_plants", "season"),
          truth='{facing = "gold_facing", sun_plants = "gold_sun_plants"}', extra=garden_extra),
    # two a page; Prolific's own document; a select with truth; boxes sharing a name, "at least one" in words only
    _page("gift_ideas", 2, ("relation", "gift"), texts={
        "gift": TextField(15, gift_answers, "a word of BECAUSE, a word of the note and one of its own, no 8-word "
                          "run of the note")},
          truth='{relation = "gold_relation"}', extra=gift_extra),
    # three a page; Bulma; the proposed controls
    _page("taboo_words", 3, ("clue", "pos"), texts={
        "clue": TextField(8, clue_answers, "not the word, a part of it or a banned word, no 'sounds like', three "
                          "words not stop words")},
          keys={"controls": '"taboo_words_controls.csv"'}, truth='{pos = "gold_pos"}', controls=True,
          extra=taboo_extra),
    # five a page; a plain fragment; the requester's own controls file of the items' own ids, at a share
    _page("news_tense", 5, ("past", "section"), texts={
        "past": TextField(1, past_answers, "a word of gold_past, not the update unchanged, half its 4+ letter "
                          "words")},
          keys={"controls": '"news_tense_controls.csv"', "control_share": "0.2"},
          truth='{section = "gold_section"}', controls=True, extra=news_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
