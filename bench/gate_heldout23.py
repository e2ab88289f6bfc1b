"""``make bench-gate-heldout23``: bench/gate_heldout.py's gate and rehearsal on a twenty-third held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses named in its brief (bench/gate_heldout23/), each with a
30-item file of content of its own:

- cheque_amounts: ONE paper cheque a page for a university's money-skills study (``payee``, ``amount``,
  ``cheque_date``, ``today``), a full HTML document for Prolific with its own CSS (no framework), ``<form
  id="study">`` posting to a Prolific completion URL, hidden ``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID``
  filled from ``URLSearchParams`` by a closing script: "Write the amount in words, as you would on the 'pounds'
  line of this cheque." ("Write the pounds in words; the pence can be in figures. No more than 15 words.",
  example "Forty-two pounds and 15p"; a ``required`` text input, ``maxlength="120"``), "Is this cheque
  post-dated, that is, dated later than today's date?" (yes / no radios, ``required``; ``gold_postdated`` kept
  for a figure, 9 yes / 21 no), "How often do you write a paper cheque yourself?" (a ``required``
  ``<select name="cheque_use">`` of four with an empty first option) and an instructed-response item, "Which of
  these do you use to pay bills? ... for this question please ignore the options' meaning and select 'Carrier
  pigeon'." (four radios ``name="pay_check"``, ``required``; the instructed answer ``pigeon``); no script
  check, no truth, no controls; ``gold_pounds`` (the pounds in words) and ``gold_pence`` kept for the judge;
- film_plots: ONE made-up film plot a page for a film-guessing game (``title``, ``plot``), on MTurk's crowd HTML
  elements (``<crowd-form>`` with ``<crowd-instructions>``: short summary, detailed instructions, a positive
  and a negative example): "Is this film a comedy or a drama?" (a ``crowd-radio-group`` with no name of two
  ``crowd-radio-button``s SHARING ``name="genre"``, valued comedy/drama, ``required`` on the first only; truth
  ``gold_genre``, 15 / 15), "Retell the plot in 3 to 6 emoji (emoji only, no words)" (a ``crowd-input
  required``, ``max-length="40"``) and "How much would you like to watch this film?" (a ``crowd-slider
  name="watch"`` 0-10); ``gold_emoji`` (``|``-joined fitting emoji) kept for the judge; controls: the file
  ``hitflow new`` proposes from ``gold_genre`` (``film_plots_controls.csv``), named in ``[answers] controls``,
  no share;
- campsite_listings: TWO campsite listings a page for a booking website (``site``, ``description``), a
  ``${column}`` fragment on Bootstrap 5.3's stylesheet from its CDN, an instructions card, a card per listing
  (``.camp-block``): "Which facilities does the listing mention? Tick all that apply." (eight checkboxes
  SHARING ``name="facilities"``: showers, toilets, hookup, shop, dogs, wifi, campfires, none; none
  ``required``) and "Three sounds you would hear at night here (separated by commas)" (the instructions: "name
  three sounds ... separated by commas, for example: owls, waves, rustling leaves. Keep each sound short (up
  to 3 words)"; a text input NOT ``required``, ``maxlength="80"``); a closing script, on ``load``, adds a
  ``submit`` listener to ``document.forms[0]`` (MTurk's wrapping form) that, per ``.camp-block``, refuses no
  box ticked and anything but exactly three non-empty comma-separated parts, writing the message into the
  block, calling ``preventDefault`` and an ``alert``; ``gold_facilities`` (``|``-joined boxes the listing
  states) kept for a figure and ``gold_sounds`` for the judge; no truth, no controls;
- club_posts: FIVE sports clubs' social media posts a page (``club``, ``post``), a plain ``${column}``
  fragment with inline styles, a warning that some answers are checked: "What is this post mainly doing?"
  (two radios ``name="purpose"``, recruiting / result, ``required`` on the first; truth ``gold_purpose``, 15 /
  15) and "Suggest three hashtags for this post." ("Each hashtag starts with # and has no spaces in it, e.g.
  #parkrun #sundayrun #5k. Put a space between them."; a ``required`` text input, ``maxlength="60"``);
  ``gold_tags`` (``|``-joined words a fitting tag would hold) kept for the judge; controls: the requester's own
  file of 8 of the items file's own ids (``club_posts_controls.csv``: ``item_id,field,answer`` on
  ``purpose``), named in ``[answers] controls`` at a share of 0.2;
- tongue_twisters: ONE tongue twister a page for a children's speech-therapy app (``twister``, ``sound``), a
  ``${column}`` fragment with its own CSS and its own script: "How hard was it to say quickly? Click the
  stars" (a hand-written five-star widget: ``<span data-v>`` stars whose ``onclick`` writes 1-5 into a hidden
  ``name="difficulty"`` that starts empty; no check that it was clicked), "Now make up your own tongue twister
  (not this one and not a famous one) with 6 to 12 words, where most of the words start with the sound SOUND"
  (a ``required`` textarea, no maxlength) and "Is English your first language?" (yes / no radios,
  ``required``); no submit check, no truth, no controls.

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: cheque_amounts amount_words, postdated, cheque_use, pay_check; film_plots genre, emoji (a slider
always holds a value); campsite_listings facilities, night_sounds (both the script's); club_posts purpose,
hashtags; tongue_twisters own_twister, first_language (the stars: no check). Off the ledger too, the script's
requirements the ledger may not see: campsite_listings ``no_box_ticked``, ``sounds_not_three``.

The free-text judges and limits, written before any run from the pages' own words and without reading the
simulator's, the import's or QC's code (five kinds of question not asked in sets 1-22: an amount of money
written in words, a plot retold in emoji, a list of sounds one would hear at a place, hashtags for a post, and
a tongue twister of one's own on a given sound). "A word of X" is bench/gate_heldout19.py's ``has_word_of``
over X's ``|``-listed words:

- cheque_amounts ``amount_words`` (stated: the pounds in words, pence in words or figures, at most 15 words;
  required; 120 characters): answers when it holds ``gold_pounds`` (lowercase, hyphens as spaces, "and"
  aside), a word starting "pound" (or "quid"), and, where ``gold_pence`` is set, the pence in words or their
  figures (``50``, ``05``, ``5p``...).
- film_plots ``emoji`` (stated: 3 to 6 emoji, emoji only, no letters, words or numbers; required; 40
  characters): answers when it holds no letter or digit, only symbols (Unicode "So"/"Sk", joiners, variation
  selectors, skin tones, tags) and spaces or punctuation between them, 3 to 6 emoji (a joined sequence, a flag
  or a modified emoji is one), and one of ``gold_emoji`` (variation selectors aside).
- campsite_listings ``night_sounds`` (stated: three sounds, separated by commas, each up to 3 words; the
  script: exactly three non-empty comma-separated parts): answers when it is three non-empty comma-separated
  parts of 1 to 3 words each, two or more of them a word of ``gold_sounds`` or of NIGHT (owls, wind, rain,
  foxes, traffic, waves, river... sounds anywhere at night), no two the same.
- club_posts ``hashtags`` (stated: three hashtags, each starting with # and no spaces in it, separated by
  spaces; required; 60 characters): answers when it is exactly three space-separated tokens, each ``#`` then
  letters, digits or underscores, no two the same (case aside), and one of them holds a word of ``gold_tags``
  or a 4+ letter word of the post or club name (common words aside).
- tongue_twisters ``own_twister`` (stated: 6 to 12 words, most of them starting with the sound shown, not this
  twister and not a famous one; required): answers when at least half its words of 2+ letters (SMALL aside:
  a, the, of, and, in, on, to...) and at least three start with ``sound``'s letters, and it shares no run of
  four words with the twister shown and is not a FAMOUS one (Peter Piper, sea shells, woodchuck...).

The runner's limit is each field's stated minimum (1 for amount_words, 0 for emoji, whose words are no words,
3 for night_sounds and hashtags, 6 for own_twister); each page's extra line adds the whole stated limit (words
for amount_words and own_twister; emoji, comma parts and hashtags counted as such for the others) and the
share within it that also answers. Further figures, off the ledger: cheque_amounts honest ``postdated``
equal to the gold, the attention item failed by honest and bad profiles (and bad work failing it unnoticed),
approved amounts over 15 words; film_plots honest ``genre`` equal to the gold, the honest ``watch`` spread,
approved emoji answers holding letters or digits; campsite_listings honest ``facilities`` sets equal to the
gold, approved blocks with no box ticked, with "none" and another box, or sounds not three parts;
club_posts honest ``purpose`` equal to the gold, approved hashtags without a ``#``; tongue_twisters the
honest ``difficulty`` spread (blank: the stars never clicked), approved blocks with the stars never clicked
and twisters outside 6-12 words.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout23.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout23.py``) it finds
its own bench package, so a checkout without this set (an older commit) can be measured from its own folder.
"""

from __future__ import annotations

import re
import sqlite3
import sys
import unicodedata
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file from another checkout: this set's bench package first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import gate_heldout20
from bench.gate_bench import share
from bench.gate_heldout import HONEST, ROOT, HeldoutPage, TextField, words
from bench.gate_heldout3 import STOP, _done_answers, attention_tally
from bench.gate_heldout4 import _items, cli, whole_limit
from bench.gate_heldout5 import _ticks, approved_breaking
from bench.gate_heldout6 import _combine
from bench.gate_heldout19 import _blank, _listed, _outside, _runs, has_word_of

PAGES_DIR = ROOT / "bench" / "gate_heldout23"
RESULTS = ROOT / "bench" / "results-gate-heldout23.json"

NIGHT = ["owl", "owls", "hoot", "wind", "breeze", "rain", "fox", "foxes", "traffic", "car", "cars", "wave", "waves",
         "sea", "surf", "river", "stream", "water", "waterfall", "brook", "trees", "leaves", "rustl", "crickets",
         "insects", "frogs", "toads", "sheep", "cows", "cattle", "birds", "gulls", "seagull", "geese", "ducks",
         "dogs", "bark", "barking", "music", "people", "voices", "talking", "laugh", "snor", "children", "train",
         "trains", "engine", "boats", "bells", "church", "clock", "tent", "zip", "fire", "crackl", "silence",
         "deer", "badger", "bats", "thunder", "generator", "lorries", "planes"]
FAMOUS = ["peter piper", "sea shells", "seashells", "woodchuck", "wood chuck", "she sells", "red lorry",
          "yellow lorry", "betty botter", "fuzzy wuzzy", "how much wood", "toy boat", "unique new york"]
SMALL = {"a", "an", "the", "of", "and", "in", "on", "to", "at", "for", "with", "by", "is", "was", "her", "his",
         "its", "it", "as", "but", "or", "from"}
HASHTAG = re.compile(r"^#\w+$")
JOINERS = {"\u200d", "\ufe0f", "\ufe0e", "\u20e3"}  # zero-width joiner, variation selectors, keycap


def _norm(text: str) -> list[str]:
    return [w for w in re.sub(r"[^a-z0-9 ]", " ", text.lower().replace("-", " ")).split() if w != "and"]


def amount_answers(text: str, item: dict[str, str]) -> bool:
    """gold_pounds in words, a word of pounds, and the pence (words or figures) where there are any."""
    said = " " + " ".join(_norm(text)) + " "
    if " " + " ".join(_norm(item.get("gold_pounds", ""))) + " " not in said:
        return False
    if not re.search(r"\b(pound|quid)", text, re.I):
        return False
    pence = item.get("gold_pence", "").strip()
    if not pence:
        return True
    figures = item.get("amount", "").split(".")[-1]
    return (" " + " ".join(_norm(pence)) + " " in said
            or bool(re.search(rf"(?<!\d)0?{int(figures)}(?!\d)", text)))


def _modifier(ch: str) -> bool:
    return ch in JOINERS or 0x1F3FB <= ord(ch) <= 0x1F3FF or 0xE0020 <= ord(ch) <= 0xE007F


def emoji_count(text: str) -> int | None:
    """The emoji in ``text`` (a joined sequence, a flag pair or a modified emoji is one); None when it holds a
    letter or a digit, or a character that is neither a symbol nor a space or punctuation."""
    count, joined, flag_half = 0, False, False
    for ch in text:
        if ch.isalnum() and not _modifier(ch):
            return None
        if _modifier(ch):
            joined = ch == "\u200d"
            continue
        kind = unicodedata.category(ch)
        if kind in ("So", "Sk"):
            regional = 0x1F1E6 <= ord(ch) <= 0x1F1FF
            if not joined and not (regional and flag_half):
                count += 1
            flag_half = regional and not flag_half
            joined = False
        elif not (ch.isspace() or kind.startswith("P")):
            return None
    return count


def _bare(text: str) -> str:
    return "".join(ch for ch in text if ch not in JOINERS)


def emoji_answers(text: str, item: dict[str, str]) -> bool:
    """Emoji only, 3 to 6 of them, one of gold_emoji among them."""
    count = emoji_count(text)
    return (count is not None and 3 <= count <= 6
            and any(_bare(e) in _bare(text) for e in item.get("gold_emoji", "").split("|") if e))


def _parts(text: str) -> list[str]:
    return [p.strip() for p in text.split(",")]


def sounds_answers(text: str, item: dict[str, str]) -> bool:
    """Three comma-separated parts of 1 to 3 words, two or more naming a sound, no two the same."""
    parts = _parts(text)
    if len(parts) != 3 or not all(1 <= len(words(p)) <= 3 for p in parts):
        return False
    if len({p.lower() for p in parts}) < 3:
        return False
    return sum(has_word_of(p, _listed(item, "gold_sounds") + NIGHT) for p in parts) >= 2


def hashtags_answers(text: str, item: dict[str, str]) -> bool:
    """Three distinct #tags, one holding a word of gold_tags or a 4+ letter word of the post or the club."""
    tags = text.split()
    if len(tags) != 3 or not all(HASHTAG.match(t) for t in tags) or len({t.lower() for t in tags}) < 3:
        return False
    shown = {w.lower() for w in words(item.get("post", "") + " " + item.get("club", ""))
             if len(w) >= 4 and w.lower() not in STOP}
    bodies = [t[1:].lower() for t in tags]
    return any(g in b for b in bodies for g in _listed(item, "gold_tags")) or any(
        w in b for b in bodies for w in shown)


def twister_answers(text: str, item: dict[str, str]) -> bool:
    """Half or more of its words (SMALL aside), three at least, start with the sound; not the twister shown nor
    a famous one."""
    sound = item.get("sound", "").strip().lower()
    said = [w.lower() for w in words(text) if len(w) >= 2 and w.lower() not in SMALL]
    on_sound = sum(w.startswith(sound) for w in said)
    low = text.lower()
    return (bool(sound) and on_sound >= 3 and 2 * on_sound >= len(said)
            and not _runs(text, 4) & _runs(item.get("twister", ""), 4) and not any(f in low for f in FAMOUS))


def counted_limit(page: str, fld: str, judge: Callable[[str, dict[str, str]], bool],
                  count: Callable[[str], int | None], low: int, high: int, unit: str) -> Any:
    """As whole_limit, for a limit stated in units other than words (emoji, comma parts, hashtags)."""

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [(i, t) for _a, w, i, t in _done_answers(db, campaign, fld)
                 if profiles.get(w) in HONEST and i in items]
        within = [(i, t) for i, t in given if low <= (count(t) or 0) <= high]
        good = [(i, t) for i, t in within if judge(t, items[i])]
        return {f"honest_{fld}": len(given), f"{low}_to_{high}_{unit}": len(within),
                "and_answers": len(good), "all_share": share(len(good), len(given))}
    return extra


_here = partial(gate_heldout20.read_off, PAGES_DIR)  # set 20's figures, read off this set's folder


right_share, honest_spread = _here(gate_heldout20.right_share), _here(gate_heldout20.honest_spread)


def _has_letters(fld: str) -> Callable[[dict[str, str]], bool]:
    return lambda f: fld in f and any(ch.isalnum() for ch in f[fld])


cheque_extra = _combine(
    whole_limit("cheque_amounts", "amount_words", amount_answers, limit=(1, 15, False), folder=PAGES_DIR),
    right_share("cheque_amounts", "postdated", "gold_postdated"),
    attention_tally("pay_check", lambda value: value.strip() == "pigeon"),
    approved_breaking({"amount_over_15": _outside("amount_words", 0, 15), "cheque_use_blank": _blank("cheque_use"),
                       "postdated_blank": _blank("postdated")}))
film_extra = _combine(
    counted_limit("film_plots", "emoji", emoji_answers, emoji_count, 3, 6, "emoji"),
    right_share("film_plots", "genre", "gold_genre"),
    honest_spread("film_plots", "watch"),
    approved_breaking({"emoji_with_letters_or_digits": _has_letters("emoji"), "genre_blank": _blank("genre")}))
camp_extra = _combine(
    counted_limit("campsite_listings", "night_sounds", sounds_answers, lambda t: len(_parts(t)), 3, 3, "parts"),
    approved_breaking({"no_box_ticked": lambda f: "facilities" in f and not _ticks(f["facilities"]),
                       "none_and_another": lambda f: "none" in _ticks(f.get("facilities", ""))
                       and len(_ticks(f.get("facilities", ""))) > 1,
                       "sounds_not_three": lambda f: "night_sounds" in f
                       and len([p for p in _parts(f["night_sounds"]) if p]) != 3}),
    right_share("campsite_listings", "facilities", "gold_facilities", lambda s, k: _ticks(s) == _ticks(k)))
club_extra = _combine(
    counted_limit("club_posts", "hashtags", hashtags_answers, lambda t: len(t.split()), 3, 3, "tags"),
    right_share("club_posts", "purpose", "gold_purpose"),
    approved_breaking({"tag_without_hash": lambda f: any(not t.startswith("#") for t in f.get("hashtags", "").split()),
                       "purpose_blank": _blank("purpose")}))
twister_extra = _combine(
    whole_limit("tongue_twisters", "own_twister", twister_answers, limit=(6, 12, False), folder=PAGES_DIR),
    honest_spread("tongue_twisters", "difficulty"),
    approved_breaking({"stars_never_clicked": _blank("difficulty"),
                       "twister_outside_6_12": lambda f: "own_twister" in f
                       and not 6 <= len(words(f["own_twister"])) <= 12}))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # one item; Prolific's own document; a select; an instructed-response item among the options; no truth
    _page("cheque_amounts", 1, ("amount_words", "postdated", "cheque_use", "pay_check"), texts={
        "amount_words": TextField(1, amount_answers, "gold_pounds in words, a word of pounds, the pence where "
                                  "there are any")},
          extra=cheque_extra),
    # one item; crowd elements: buttons sharing a name in an unnamed group, a slider; the proposed controls
    _page("film_plots", 1, ("genre", "emoji"), texts={
        "emoji": TextField(0, emoji_answers, "emoji only, 3 to 6, one of gold_emoji")},
          keys={"controls": '"film_plots_controls.csv"'}, truth='{genre = "gold_genre"}', controls=True,
          extra=film_extra),
    # two a page; Bootstrap; boxes sharing a name; "at least one box" and "three sounds" by a submit listener
    # on MTurk's form; no truth, no controls
    _page("campsite_listings", 2, ("facilities", "night_sounds"), texts={
        "night_sounds": TextField(3, sounds_answers, "three comma-separated parts of 1-3 words, two naming a "
                                  "sound of gold_sounds or NIGHT")},
          extra=camp_extra),
    # five a page; a plain fragment; the requester's own controls file of the items' own ids, at a share
    _page("club_posts", 5, ("purpose", "hashtags"), texts={
        "hashtags": TextField(3, hashtags_answers, "three distinct #tags, one on the post's words or gold_tags")},
          keys={"controls": '"club_posts_controls.csv"', "control_share": "0.2"},
          truth='{purpose = "gold_purpose"}', controls=True, extra=club_extra),
    # one item; a hand-written star widget writing a hidden field, never checked; no truth, no controls
    _page("tongue_twisters", 1, ("own_twister", "first_language"), texts={
        "own_twister": TextField(6, twister_answers, "half its words on the sound, not the twister shown nor a "
                                 "famous one")},
          extra=twister_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
