"""``make bench-gate-heldout14``: bench/gate_heldout.py's gate and rehearsal on a fourteenth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses (bench/gate_heldout14/), each with a 30-item file:

- insurance_letters: one insurer's letter about a claim a page, a Prolific-style full HTML document with its own
  CSS, its own ``<form onsubmit="return validateForm()">`` posting to the requester's server, Prolific's
  ``PROLIFIC_PID``/``STUDY_ID``/``SESSION_ID`` hidden fields filled by a ``<body onload>`` script: "What has the
  insurer decided?" (accepted / partly / declined / more_info radios, ``required``; truth ``gold_outcome``), "By
  what date does the customer have to reply or do something?" (an ``<input type="date">`` beside a checkbox
  ``no_deadline`` "The letter gives no date", neither ``required``: the form's ``onsubmit`` refuses NEITHER given
  and BOTH given), the tone (a ``<select required>`` with an empty first option) and "Rewrite the insurer's
  decision in plain English ... what was decided and what happens next. 10 to 35 words ... do not copy
  sentences from the letter" (a ``required`` textarea; the range only stated); controls: 14 separate letters
  of its own file (``insurance_letters_controls.csv``) on ``outcome`` at a share of 0.2; truth ``{outcome =
  "gold_outcome", reply_by = "gold_reply_by", no_deadline = "gold_no_deadline"}`` (an empty cell: no date, box not
  ticked);
- app_reviews: four app-store reviews a page, a plain ``${column}`` fragment loading jQuery from a CDN: "What
  does the reviewer complain about? Tick all that apply (at least one)" (nine checkboxes sharing
  ``name="problems"``, none ``required``: a jQuery ``$('#mturk_form').on('submit', ...)`` loops over
  ``.review-card`` blocks and refuses one with no box ticked), "Could a developer reproduce the problem?"
  (yes / partly / no radios, ``required``), an anger slider (``<input type="range" 0-100 value=50>``) and "Write
  ONE question you would ask this reviewer so the developers can fix the problem. 6 to 25 words, ending with a
  question mark. Ask about something the review leaves out." (a ``required`` text input); ``gold_reproducible``
  on 14 of the 30 rows: the controls are those rows of the items file, the file ``hitflow new`` proposes
  (``config/app_reviews_controls.csv``), named in ``[answers] controls`` as its message says, no share;
  truth ``{reproducible = "gold_reproducible", problems = "expert_tags"}`` (a tick set a review, ``|``-joined);
- weather_warnings: one public weather warning a page on MTurk's crowd HTML elements (``<crowd-form>`` with
  ``<crowd-instructions>`` holding short/detailed instructions and examples): the hazard as a
  ``<crowd-radio-group required>`` of six ``crowd-radio-button``s SHARING ``name="hazard"`` (truth
  ``gold_hazard``), the severity as a ``crowd-slider`` 1-10, "Who does the warning tell to do something? Tick
  all that apply." (seven ``crowd-checkbox``es sharing ``name="audience"``, "Nobody in particular" among them,
  none ``required``: a ``submit`` listener added on ``all-crowd-elements-ready`` to
  ``document.querySelector('crowd-form')`` refuses none ticked), "Write a headline for a radio news bulletin
  ... 4 to 12 words. Say what weather and where (or when)." (a ``crowd-input required``) and "(Optional) Is
  there a word or phrase ... most listeners would not understand? Quote it and say why, in up to 20 words.
  Leave empty if everything is clear." (a ``crowd-text-area``, optional); no controls;
- lab_notes: three lab-notebook entries a page, a plain ``${column}`` fragment with no script: a Likert grid of
  three statements (``says_what``, ``says_amounts``, ``repeatable``: five radios each, 1-5, ``required``), "How
  many measured values with a unit does the entry give?" (``<input type="number" min="0" max="30" step="1"
  required>``; truth ``gold_measurements``) and "What would someone need to know to repeat this step that the
  entry does not say? List the missing things, separated by commas (2 to 25 words). If nothing is missing,
  write "nothing missing"." (a ``required`` textarea); ``gold_complete``/``gold_missing`` kept for the judge;
  no controls;
- job_ads: two pairs of job ads a page, a full MTurk HTML document (``mturk_form``, ``externalSubmit``,
  ``assignmentId`` and ``turkSetAssignmentID()``) whose Submit is a ``<button type="button"
  onclick="sendAnswers()">`` ending in ``form.submit()``: "Which ad gives a clearer idea of the day-to-day
  work?" (a / b / same radios, ``required``; truth ``gold_clearer``), "Which ad states the pay?" (a ``<select
  required>`` whose first option is ``selected disabled``; truth ``gold_pay_shown``), "How welcoming is ad B
  ...? Click the stars" (a five-star widget writing a hidden ``welcoming``; ``sendAnswers`` refuses it empty)
  and "Compare what the two ads ask of applicants ... One or two sentences, 10 to 40 words, saying something
  about both ads." (a ``required`` textarea; ``sendAnswers`` calls ``reportValidity()``); no controls.

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: insurance_letters outcome, tone, plain_version (the date OR the no-date box is the ``onsubmit``'s
either-or, which no one field carries: counted off the ledger instead, ``no_date_nor_none``, and
``date_and_none``); app_reviews problems (at least one box a review: the script's), reproducible,
ask_reviewer; weather_warnings hazard, audience (at least one box: the script's), headline (unclear is
optional); lab_notes says_what, says_amounts, repeatable, measurements, missing; job_ads clearer, pay_shown,
welcoming (the script's: a hidden field the stars write), comparison.

The free-text judges and limits, written before any run and without reading the simulator's, the import's or
QC's code (five kinds of question: a plain-English rewrite, a question to ask the writer, a headline, a list of
what is missing, a comparison of two things; and one optional box). "A word of X" is a word sharing its first
four letters with a 4+ letter word of X, common words (COMMON_WORDS) aside:

- insurance_letters ``plain_version`` (stated: 10 to 35 words, own words; required): answers when it refers to
  this letter (a word of its text, policy or insurer, or one of its figures: an amount, a date's day), states a
  decision or next step (DECISION: pay, paid, cover, refund, accept, approve, refuse, decline, reject, won't,
  cannot, unable, part, some, most, need, send, ask, want, decide, excess, repair, replace, appeal, review...)
  and copies no run of six consecutive words of the letter.
- app_reviews ``ask_reviewer`` (stated: 6 to 25 words, ONE question ending with "?"; required): answers when it
  is one question (a "?" or a question word first, at most one "?") and refers to this review (a word of the
  app's name or the review, words of three letters counting here: "app", "ads").
- weather_warnings ``headline`` (stated: 4 to 12 words, what weather and where or when; required): answers when
  it names this warning's weather (a word of its hazard's family: wind/gale/gust/storm, rain/flood/downpour/
  surge, snow/ice/frost/blizzard/freez..., heat/hot/temperature, fog/visibility/mist, thunder/lightning/hail/
  storm; or any weather word that is a word of the warning) and where or when (a word of the area, a capitalised
  place of the warning's text, or a time word: today, tonight, overnight, weekend, a weekday, morning...).
- weather_warnings ``unclear`` (stated: optional, up to 20 words, quote it and say why, empty if clear): answers,
  when given, when it quotes or names a word of this warning, or names a wording problem (WORDING: jargon,
  technical, unclear, confusing, vague, means, meaning, abbreviation...), or says nothing is unclear; its share is
  over the answers given, with the share given beside it (``unclear_given_share``).
- lab_notes ``missing`` (stated: 2 to 25 words, a comma-separated list, or "nothing missing"; required): on an
  entry that is complete (``gold_complete`` yes) "nothing missing" answers, and so does a list naming a KIND of
  detail; on an incomplete one it answers when it names a KIND of detail (amount, volume, mass, concentration,
  temperature, time, duration, speed, size, depth, brand, kit, reagent, recipe, method, settings, wavelength,
  voltage, dilution, number of...) and refers to this entry (a word of its experiment or entry, or of
  ``gold_missing``); "nothing missing" there does not answer.
- job_ads ``comparison`` (stated: one or two sentences, 10 to 40 words, about both ads; required): answers when
  it is about both ads (names ad A and ad B, first and second, "both", "neither", "the other", or a word of
  ad A that ad B lacks and one of ad B that ad A lacks), compares (COMPARE: while, whereas, but, both, neither,
  more, less, than, only, unlike, however, instead, same, similar, different, whilst, other, too, either...)
  and speaks of what is asked of applicants (ASKED_OF: experience, qualification, degree, licence, skill, hours,
  shift, weekend, night, travel, driving, van, training, require, need, must, essential, expect, portfolio,
  registration, years, remote, office, part-time, full-time, flexible, certificate, card...) or of a word of
  either ad.

The runner's limit is each field's stated minimum (0 for the optional box); each page's extra line adds the
whole stated limit and the share within it that also answers. Further figures, off the ledger:
insurance_letters, approved with neither a date nor the no-date box (``no_date_nor_none``) or both
(``date_and_none``), plain versions outside 10 to 35 words, honest outcomes equal to ``gold_outcome``, honest
dates equal to ``gold_reply_by`` where it has one, honest "no date" where it has none; app_reviews, approved
reviews with no box ticked, questions outside 6 to 25 words or not ending with "?", honest ``reproducible``
equal to ``gold_reproducible`` where given, honest tick sets equal to and overlapping ``expert_tags``;
weather_warnings, approved with no audience ticked or "nobody" with another box, headlines outside 4 to 12
words, honest hazards equal to ``gold_hazard``, honest audience sets overlapping ``gold_audience``; lab_notes,
approved counts blank or outside 0-30 or not whole, missing lists outside 2 to 25 words, honest counts equal to
and within one of ``gold_measurements``; job_ads, approved with ``welcoming`` blank or outside 1-5, comparisons
outside 10 to 40 words or over two sentences, honest ``clearer`` and ``pay_shown`` equal to their gold.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout14.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout14.py``) it finds
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
from bench.gate_heldout3 import STOP
from bench.gate_heldout4 import _items, cli, whole_limit
from bench.gate_heldout5 import _given, _ticks, approved_breaking
from bench.gate_heldout6 import _combine

PAGES_DIR = ROOT / "bench" / "gate_heldout14"
RESULTS = ROOT / "bench" / "results-gate-heldout14.json"

COMMON_WORDS = STOP | {"about", "would", "could", "should", "just", "your", "yours", "very", "really", "please",
                       "them", "than", "only", "also", "like", "more", "most", "much", "each", "every", "other",
                       "does", "because", "good", "here", "need", "needs", "make", "know", "want", "this", "these",
                       "those", "that", "with", "what", "when", "which", "will", "have", "they", "their", "there",
                       "from", "were", "been", "into", "some", "after", "before", "still", "then", "said", "says",
                       # three-letter words (the app review's judge reads words of three letters)
                       "the", "and", "you", "did", "was", "for", "are", "any", "can", "how", "why", "who", "not",
                       "but", "has", "had", "its", "our", "out", "get", "got", "use", "one", "two", "yes", "now",
                       "way", "see", "too", "all", "may", "her", "his", "him", "she", "off", "own", "try", "let",
                       "say", "new", "per", "via", "etc", "else", "ever"}
# a decision or a next step, as a friend would be told it
DECISION = re.compile(
    r"\b(pay\w*|paid|cover\w*|refund\w*|reimburs\w*|accept\w*|approv\w*|refus\w*|declin\w*|reject\w*|won'?t|"
    r"will not|not going to|can'?t|cannot|unable|part|partly|partial\w*|some|most|half|rest|balance|need\w*|"
    r"send\w*|sent|ask\w*|want\w*|wait\w*|decid\w*|decision|yet|money|amount|excess|repair\w*|replac\w*|"
    r"fix\w*|appeal\w*|review\w*|complain\w*|ombudsman|deadline|reply|respond|close\w*|deduct\w*|owe\w*|"
    r"full|nothing|no money|claim\w*)\b", re.I)
FIGURE = re.compile(r"\d[\d,.]*")
QUESTION_WORD = re.compile(r"^(what|which|how|why|when|where|who|whose|is|are|was|were|does|do|did|has|have|had|"
                           r"can|could|would|will|may|might|should|shall|any)\b", re.I)
HAZARD_FAMILY = {
    "wind": r"wind\w*|gale\w*|gust\w*|storm\w*|blow\w*|breez\w*|hurrican\w*",
    "rain_flood": r"rain\w*|flood\w*|downpour\w*|shower\w*|surge\w*|tid\w*|river\w*|wet|water\w*|deluge",
    "snow_ice": r"snow\w*|ice|icy|frost\w*|blizzard\w*|freez\w*|sleet|wintry|avalanch\w*|cold|whiteout",
    "heat": r"heat\w*|hot|temperatur\w*|scorch\w*|sweltering|sun\w*|warm\w*|swelter\w*",
    "fog": r"fog\w*|visibilit\w*|mist\w*|haze|murk\w*",
    "thunder": r"thunder\w*|lightning|hail\w*|storm\w*|downpour\w*",
}
WEATHER = re.compile(r"\b(" + "|".join(HAZARD_FAMILY.values()) + r")\b", re.I)
WHEN = re.compile(r"\b(today|tonight|tomorrow|overnight|weekend|week|morning|afternoon|evening|night|dawn|rush hour|"
                  r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun|"
                  r"days?|hours?|early|later?|now|this|next|coming)\b", re.I)
WORDING = re.compile(r"\b(jargon|technical|unclear|confus\w*|vague\w*|ambigu\w*|mean\w*|abbreviat\w*|acronym\w*|"
                     r"term|terms|word|words|phrase\w*|wording|worded|sentence\w*|understand\w*|not clear|"
                     r"doesn'?t say|does not say|explain\w*|unit|units|mph|metres?)\b", re.I)
NOTHING = re.compile(r"^\W*(nothing|none|no|n/?a|nope|all clear|clear|fine|everything is clear|it'?s clear|"
                     r"nothing (is )?(missing|unclear|confusing))\b", re.I)
KIND = re.compile(
    r"\b(amounts?|volumes?|mass|masses|weights?|quantit\w*|how (much|many|long)|number of|concentrat\w*|dilut\w*|"
    r"temperatur\w*|temp|times?|timing|duration|long|speed|rpm|g-force|centrifug\w*|sizes?|dimension\w*|depth|"
    r"lengths?|brand|supplier|manufacturer|kit|reagents?|recipe|ingredients?|method|protocol|procedure|steps?|"
    r"settings?|wavelength|voltage|current|stain\w*|medium|media|solution|buffer|strength|percentage|"
    r"magnification|units?|model|equipment|date|dates|which|what|who|where|readings?|results?|values?|"
    r"count|age|sample|samples|passage|lighting|light|humidity|amplitude|angle|pore|filter|ladder|agent|"
    r"cleaning|arena|details?|conditions?)\b", re.I)
NOTHING_MISSING = re.compile(r"^\W*(nothing( is)? missing|nothing|none|n/?a|no(thing)? missing|complete|"
                             r"it'?s complete|all there)\W*$", re.I)
AD_A = re.compile(r"\b((ad|advert|advertisement|job|posting|listing|company)\s+a|first (ad|one|advert|listing|"
                  r"company|posting)|the first|ad 1|ad one|former)\b", re.I)
AD_B = re.compile(r"\b((ad|advert|advertisement|job|posting|listing|company)\s+b|second (ad|one|advert|listing|"
                  r"company|posting)|the second|ad 2|ad two|latter)\b", re.I)
BOTH = re.compile(r"\b(both|neither|the other|each (ad|one)|either|one ad|one of them|one asks|one wants|one needs|"
                  r"one requires|one says|whereas the|while the)\b", re.I)
COMPARE = re.compile(r"\b(while|whilst|whereas|but|both|neither|more|less|fewer|than|only|unlike|however|instead|"
                     r"same|similar\w*|different|differ\w*|other|compar\w*|versus|vs|too|either|also|contrast|"
                     r"whereas|although|though|just|nothing)\b", re.I)
ASKED_OF = re.compile(
    r"\b(experienc\w*|qualif\w*|degree|licen[cs]e\w*|skill\w*|hours?|shifts?|weekends?|nights?|travel\w*|driv\w*|"
    r"vans?|train\w*|requir\w*|need\w*|must|essential|expect\w*|portfolio|registration|registered|years?|remote|"
    r"office|part-time|full-time|flexib\w*|certificat\w*|card|ask\w*|demand\w*|attitude|passion\w*|knowledge|"
    r"able|ability|background|own|applicants?|candidates?|nothing)\b", re.I)
PROBLEMS = ("crashes", "login", "sync", "ads", "payments", "battery", "design", "support", "other")


def _stems(text: str, shortest: int = 4) -> set[str]:
    """The first four letters of each word of ``shortest`` letters or more, quotes and dashes trimmed."""
    said = (w.strip("'-").lower() for w in words(text))
    return {w[:4] for w in said if len(w) >= shortest and w not in COMMON_WORDS}


def _shares_stem(text: str, source: str, shortest: int = 4) -> bool:
    return bool(_stems(text, shortest) & _stems(source, shortest))


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _copies(text: str, source: str, run: int = 6) -> bool:
    said, shown = _letters(text).split(), f" {_letters(source)} "
    return any(f" {' '.join(said[i:i + run])} " in shown for i in range(len(said) - run + 1))


def _figures(text: str) -> set[str]:
    return {f.strip(".,").replace(",", "") for f in FIGURE.findall(text)} - {""}


def rewrites_decision(text: str, item: dict[str, str]) -> bool:
    """About this letter (its words or figures), a decision or next step (DECISION), no six words copied."""
    letter = item.get("letter", "")
    about = _shares_stem(text, f"{letter} {item.get('policy_type', '')} {item.get('insurer', '')}") \
        or bool(_figures(text) & _figures(letter))
    return about and bool(DECISION.search(text)) and not _copies(text, letter)


def _is_question(text: str) -> bool:
    return "?" in text or bool(QUESTION_WORD.search(text.strip()))


def asks_reviewer(text: str, item: dict[str, str]) -> bool:
    """One question ("?" or a question word first, at most one "?") with a word of this review or its app (three
    letters or more here: "app", "ads", "log" are a review's own words)."""
    return _is_question(text) and text.count("?") <= 1 \
        and _shares_stem(text, f"{item.get('app_name', '')} {item.get('review_text', '')}", shortest=3)


def _places(text: str) -> str:
    """The capitalised words of a warning past its first (names of places, roads, rivers)."""
    return " ".join(w for w in words(text)[1:] if w[:1].isupper() and len(w) >= 4)


def heads_warning(text: str, item: dict[str, str]) -> bool:
    """This warning's weather (its hazard's family, or a weather word of its text) and where or when."""
    family = HAZARD_FAMILY.get(item.get("gold_hazard", ""), "")
    warning = item.get("warning_text", "")
    weather = bool(family and re.search(r"\b(" + family + r")\b", text, re.I)) \
        or any(_shares_stem(m.group(0), warning) for m in WEATHER.finditer(text))
    where = _shares_stem(text, f"{item.get('area', '')} {_places(warning)}") or bool(WHEN.search(text)) \
        or _shares_stem(text, item.get("valid_from", ""))
    return weather and where


def names_unclear(text: str, item: dict[str, str]) -> bool:
    """A word of this warning quoted or named, a wording problem named, or "nothing unclear"."""
    return _shares_stem(text, item.get("warning_text", "")) or bool(WORDING.search(text)) \
        or bool(NOTHING.search(text))


def names_missing(text: str, item: dict[str, str]) -> bool:
    """"Nothing missing" on a complete entry; else a KIND of detail, about this entry (or what it lacks)."""
    complete = item.get("gold_complete", "").strip().lower() == "yes"
    if NOTHING_MISSING.search(text.strip()):
        return complete
    source = f"{item.get('experiment', '')} {item.get('entry', '')} {item.get('gold_missing', '')}"
    return bool(KIND.search(text)) and (complete or _shares_stem(text, source))


def _both_ads(text: str, item: dict[str, str]) -> bool:
    if (AD_A.search(text) and AD_B.search(text)) or BOTH.search(text):
        return True
    a, b = _stems(item.get("ad_a", "")), _stems(item.get("ad_b", ""))
    said = _stems(text)
    return bool(said & (a - b)) and bool(said & (b - a))


def compares_ads(text: str, item: dict[str, str]) -> bool:
    """About both ads, a comparing word (COMPARE), and what is asked of applicants (ASKED_OF) or an ad's word."""
    ads = f"{item.get('ad_a', '')} {item.get('ad_b', '')}"
    return _both_ads(text, item) and bool(COMPARE.search(text)) \
        and (bool(ASKED_OF.search(text)) or _shares_stem(text, ads))


def _sentences(text: str) -> int:
    return len([s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()])


def right_share(page: str, fld: str, gold: str, same: Any = None, read: Any = None) -> Any:
    """Honest answers of ``fld`` (``read``: from an item's fields) equal to the item's ``gold`` column (``same``:
    another comparison), on the items that have one."""
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


def honest_share(page: str, name: str, counts: Any, applies: Any = lambda _i: True) -> Any:
    """Of the honest answers on the items ``applies`` picks, the share ``counts(fields)``."""

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [f for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and applies(items[i])]
        hit = sum(bool(counts(f)) for f in given)
        return {name: f"{hit}/{len(given)}", f"{name}_share": share(hit, len(given))}
    return extra


def given_judged(page: str, fld: str, judge: Any, high: int) -> Any:
    """An optional box: of the honest answers given (not blank), those within 1..``high`` words that answer."""

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [(i, f.get(fld, "")) for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items]
        filled = [(i, t) for i, t in given if t.strip()]
        good = [(i, t) for i, t in filled if len(words(t)) <= high and judge(t, items[i])]
        return {f"honest_{fld}_given": f"{len(filled)}/{len(given)}",
                f"{fld}_given_share": share(len(filled), len(given)),
                f"{fld}_given_within_and_answers": len(good), f"{fld}_given_all_share": share(len(good), len(filled))}
    return extra


def _blank(fld: str) -> Any:
    return lambda f: fld in f and not f[fld].strip()


def _outside(fld: str, low: int, high: int) -> Any:
    return lambda f: bool(f.get(fld, "").strip()) and not low <= len(words(f[fld])) <= high


def _ticked(value: str) -> bool:
    return value.strip().lower() not in ("", "false", "0", "off", "no", "none", "null")


def _no_date_nor_none(fields: dict[str, str]) -> bool:
    """The onsubmit's either-or broken: no date and the no-date box not ticked (None-safe where neither is kept)."""
    if "reply_by" not in fields and "no_deadline" not in fields:
        return False
    return not fields.get("reply_by", "").strip() and not _ticked(fields.get("no_deadline", ""))


def _date_and_none(fields: dict[str, str]) -> bool:
    return bool(fields.get("reply_by", "").strip()) and _ticked(fields.get("no_deadline", ""))


def _no_date_said(fields: dict[str, str]) -> str | None:
    """What the worker said on a letter without a date: 'yes' where only the box is ticked."""
    if "reply_by" not in fields and "no_deadline" not in fields:
        return None
    return "yes" if _ticked(fields.get("no_deadline", "")) and not fields.get("reply_by", "").strip() else "no"


def _not_qmark(fields: dict[str, str]) -> bool:
    said = fields.get("ask_reviewer", "").strip()
    return bool(said) and not said.endswith("?")


def _nobody_and_more(fields: dict[str, str]) -> bool:
    ticks = _ticks(fields.get("audience", ""))
    return "nobody" in ticks and len(ticks) > 1


def _count_off(fields: dict[str, str]) -> bool:
    """A count blank, not a whole number, or outside 0-30."""
    said = fields.get("measurements", "").strip()
    try:
        return not said or not (float(said).is_integer() and 0 <= float(said) <= 30)
    except ValueError:
        return True


def _near(said: str, known: str) -> bool:
    try:
        return abs(float(said) - float(known)) <= 1
    except ValueError:
        return False


def _same_number(said: str, known: str) -> bool:
    try:
        return float(said) == float(known)
    except ValueError:
        return False


def _stars_off(fields: dict[str, str]) -> bool:
    said = fields.get("welcoming", "").strip()
    return "welcoming" in fields and said not in ("1", "2", "3", "4", "5")


def _over_two_sentences(fields: dict[str, str]) -> bool:
    said = fields.get("comparison", "").strip()
    return bool(said) and _sentences(said) > 2


def _overlap(said: str, known: str) -> bool:
    return bool(_ticks(said) & _ticks(known))


letters_extra = _combine(
    whole_limit("insurance_letters", "plain_version", rewrites_decision, limit=(10, 35, False), folder=PAGES_DIR),
    approved_breaking({"no_date_nor_none": _no_date_nor_none, "date_and_none": _date_and_none,
                       "plain_version_outside_10_35": _outside("plain_version", 10, 35),
                       "tone_blank": _blank("tone")}),
    right_share("insurance_letters", "outcome", "gold_outcome"),
    right_share("insurance_letters", "reply_by", "gold_reply_by"),
    right_share("insurance_letters", "no_date", "gold_no_deadline", read=_no_date_said))
reviews_extra = _combine(
    whole_limit("app_reviews", "ask_reviewer", asks_reviewer, limit=(6, 25, False), folder=PAGES_DIR),
    approved_breaking({"no_problem_ticked": _blank("problems"),
                       "ask_outside_6_25": _outside("ask_reviewer", 6, 25), "ask_not_ending_qmark": _not_qmark}),
    right_share("app_reviews", "reproducible", "gold_reproducible"),
    right_share("app_reviews", "problems", "expert_tags", lambda s, k: _ticks(s) == _ticks(k)),
    right_share("app_reviews", "problems_overlap", "expert_tags", _overlap, lambda f: f.get("problems")))
warnings_extra = _combine(
    whole_limit("weather_warnings", "headline", heads_warning, limit=(4, 12, False), folder=PAGES_DIR),
    given_judged("weather_warnings", "unclear", names_unclear, 20),
    approved_breaking({"no_audience_ticked": _blank("audience"), "nobody_and_a_group": _nobody_and_more,
                       "headline_outside_4_12": _outside("headline", 4, 12),
                       "unclear_over_20": _outside("unclear", 0, 20)}),
    right_share("weather_warnings", "hazard", "gold_hazard"),
    right_share("weather_warnings", "audience_overlap", "gold_audience", _overlap, lambda f: f.get("audience")))
notes_extra = _combine(
    whole_limit("lab_notes", "missing", names_missing, limit=(2, 25, False), folder=PAGES_DIR),
    approved_breaking({"measurements_off": _count_off, "missing_outside_2_25": _outside("missing", 2, 25),
                       "likert_blank": lambda f: any(_blank(k)(f) for k in ("says_what", "says_amounts",
                                                                            "repeatable"))}),
    right_share("lab_notes", "measurements", "gold_measurements", _same_number),
    right_share("lab_notes", "measurements_within_1", "gold_measurements", _near, lambda f: f.get("measurements")),
    honest_share("lab_notes", "honest_nothing_missing_on_complete",
                 lambda f: bool(NOTHING_MISSING.search(f.get("missing", "").strip())),
                 lambda i: i.get("gold_complete") == "yes"),
    honest_share("lab_notes", "honest_nothing_missing_on_incomplete",
                 lambda f: bool(NOTHING_MISSING.search(f.get("missing", "").strip())),
                 lambda i: i.get("gold_complete") != "yes"))
ads_extra = _combine(
    whole_limit("job_ads", "comparison", compares_ads, limit=(10, 40, False), folder=PAGES_DIR),
    approved_breaking({"welcoming_blank_or_off": _stars_off, "comparison_outside_10_40": _outside("comparison", 10, 40),
                       "comparison_over_two_sentences": _over_two_sentences}),
    right_share("job_ads", "clearer", "gold_clearer"),
    right_share("job_ads", "pay_shown", "gold_pay_shown"))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # a Prolific full document, its own form; onsubmit's either-or (date / no-date box); separate controls at a share
    _page("insurance_letters", 1, ("outcome", "tone", "plain_version"), texts={"plain_version": TextField(
        10, rewrites_decision, "about this letter (a word or figure of it), a decision or next step (pay, refuse, "
        "part, need, send...), no six words copied")},
          keys={"controls": '"insurance_letters_controls.csv"', "control_share": "0.2"},
          truth='{outcome = "gold_outcome", reply_by = "gold_reply_by", no_deadline = "gold_no_deadline"}',
          controls=True, extra=letters_extra),
    # a ${column} fragment on jQuery: "at least one box" is a jQuery submit handler's; the controls are the items
    # file's rows with gold_reproducible, the file the import proposes
    _page("app_reviews", 4, ("problems", "reproducible", "ask_reviewer"), texts={"ask_reviewer": TextField(
        6, asks_reviewer, "one question ('?' or a question word first, at most one '?') with a word of this review "
        "or its app")},
          keys={"controls": '"app_reviews_controls.csv"'},
          truth='{reproducible = "gold_reproducible", problems = "expert_tags"}', controls=True, extra=reviews_extra),
    # crowd-form: the radio group shares one name; the audience group's "at least one" is a submit listener's
    _page("weather_warnings", 1, ("hazard", "audience", "headline"), texts={
        "headline": TextField(4, heads_warning, "this warning's weather (its hazard's family or a weather word of "
                              "it) and where or when (area, a place of it, a time word)"),
        "unclear": TextField(0, names_unclear, "optional: a word of the warning, a wording problem named, or "
                             "'nothing unclear' (the share over the answers given is the extra line's)")},
          truth='{hazard = "gold_hazard"}', extra=warnings_extra),
    # a fragment, no script: a Likert grid, a number, a "what is missing" list
    _page("lab_notes", 3, ("says_what", "says_amounts", "repeatable", "measurements", "missing"), texts={
        "missing": TextField(2, names_missing, "'nothing missing' on complete entries; else a kind of detail "
                             "(amount, temperature, time, brand...) about this entry or what it lacks")},
          truth='{measurements = "gold_measurements"}', extra=notes_extra),
    # a full MTurk document: a star widget writes a hidden field; the Submit is a script's button (form.submit())
    _page("job_ads", 2, ("clearer", "pay_shown", "welcoming", "comparison"), texts={"comparison": TextField(
        10, compares_ads, "about both ads (A and B, both, neither, or a word of each), a comparing word, and what "
        "is asked of applicants")},
          truth='{clearer = "gold_clearer", pay_shown = "gold_pay_shown"}', extra=ads_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
