"""``make bench-gate-heldout15``: bench/gate_heldout.py's gate and rehearsal on a fifteenth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses named in its brief (bench/gate_heldout15/), each with a
30-item file of content of its own:

- trial_summaries: ONE plain-language clinical-trial summary a page, a full HTML document with its own CSS,
  its own ``<form>`` (``mturk_form``, MTurk's ``externalSubmit``), MTurk's ``assignmentId`` field and the
  usual ``turkGetParam`` script: "Does the summary tell you whether the treatment worked?" (yes / partly / no
  radios, ``required``; truth ``gold_outcome``), a Likert grid of three statements on a five-point agreement
  scale (``plain_words``, ``who_clear``, ``side_effects_clear``: radios, each ``required``), "What question
  would a patient thinking about this treatment still want answered after reading the summary? ... one
  question, between 8 and 30 words, about this trial" (a ``required`` textarea; the range only stated) and
  "Optional: which words in the summary would a reader without medical training not understand? ... up to
  15 words in all. Leave it blank if every word is clear." (a text input, optional); no controls;
- recall_notices: THREE product-recall notices a page, a plain ``${column}`` fragment with its own CSS:
  "Which hazards does the notice mention? Tick all that apply (at least one)" (nine checkboxes sharing
  ``name="hazards"``, "Not stated" among them, none ``required``), the household risk (low / medium / high
  radios, ``required``), "What does the notice tell owners to do?" (a ``<select required>`` with an empty
  first option; truth ``gold_action`` on 12 of the 30 rows) and "Why did you choose that risk level? Point
  to what in this notice made you decide, in 8 to 25 words" (a ``required`` textarea; the range only
  stated); a ``submit`` listener on ``document.querySelector('form')`` (added on DOMContentLoaded, guarded
  so the repeated block adds it once) refuses a notice block with no checkbox ticked; controls: the 12 rows
  of the items file with ``gold_action``, the file ``hitflow new`` proposes (``recall_notices_controls.csv``),
  named in ``[answers] controls``, no share; ``gold_hazards`` kept for the figures;
- timetable_notices: TWO bus and tram service-change notices a page, each beside its new timetable, on MTurk's
  crowd HTML elements (``<crowd-form>`` with ``<crowd-instructions>``, short summary, detailed instructions
  and examples): "Does everything in the notice agree with the timetable?" (a ``crowd-radio-group`` of two
  ``crowd-radio-button``s SHARING ``name="matches"``, each ``required``; truth ``gold_matches``), "If no:
  rewrite the wrong sentence of the notice so that it agrees with the timetable. Write the whole corrected
  sentence, up to 35 words. Leave this empty if the notice agrees." (a ``crowd-input``, ``max-length="240"``,
  not required) and "How clear would this notice be for a visitor who does not know the area? (1 = very
  confusing, 7 = very clear)" (a ``crowd-slider`` 1-7, ``required``); ``gold_fix`` (the timetable's words the
  corrected sentence needs) and ``gold_wrong`` (the notice's wrong words) kept for the judge; no controls;
- podcast_episodes: ONE podcast episode's show notes a page, a plain ``${column}`` fragment with an
  "Instructions:" paragraph: "Suggest a title for this episode that tells a listener what it is about. At
  most 10 words; do not just repeat the show's name." (a text input, ``maxlength="80"``, ``required``), the
  category (a ``<select required>`` of seven, empty first option), "How many guests (not counting the host)"
  (``<input type="number" min="0" max="6" step="1" required>``) and "On what date was the episode recorded?"
  (``<input type="date" min="2015-01-01" max="2026-12-31" required>``); truth ``{category, guests, recorded}``
  = ``gold_category``, ``gold_guests``, ``gold_recorded``; controls: a separate file of 12 episodes of its own
  (``podcast_episodes_controls.csv``) on ``category`` at a share of 0.25;
- sighting_logs: FOUR volunteers' wildlife sighting logs a page, a full HTML document for Prolific (its own
  CSS, header, ``<form id="surveyForm">`` posting to a Prolific completion URL): the five things a record needs
  are stated once (species, how many, date, place, observer's name or initials); "Does this log have all five
  things the database needs?" (yes / no radios, ``required``; truth ``gold_complete``), "If no: what is
  missing? Name what a checker would need to ask the volunteer for, in 2 to 12 words. Leave empty if the log is
  complete." (a textarea, nothing in the HTML requires it) and "How sure are you?" (five star ``<button
  type="button">``s whose click listener writes a hidden ``sureness`` field, 1-5); a ``submit`` listener on the
  form by id refuses a log with no stars clicked, or "no" with fewer than 2 words in the missing box.
  ``gold_missing`` (species / count / date / place / observer) kept for the judge; no controls.

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: trial_summaries outcome_stated, plain_words, who_clear, side_effects_clear, patient_question
(hard_words is optional); recall_notices hazards (at least one box a notice: the script's), risk, action,
risk_reason; timetable_notices matches, clarity (corrected_sentence is asked only after "no" and nothing
requires it: counted off the ledger, ``no_without_correction``); podcast_episodes episode_title, category,
guests, recorded; sighting_logs complete, sureness (the script's). Off the ledger too, the script's
requirements the ledger may not see: recall_notices ``no_hazard_ticked``; sighting_logs ``no_sureness`` and
``no_without_missing`` ("no" with fewer than 2 words missing, the script's).

The free-text judges and limits, written before any run and without reading the simulator's, the import's or
QC's code (five kinds of question: a question a reader would still ask, the reason for a choice, a
correction of the text shown, a title, what is missing; and one optional box). "A word of X" is a word
sharing its first four letters with a 4+ letter word of X, common and generic words of the page's domain
(trial, treatment, notice, product, episode, log...) aside:

- trial_summaries ``patient_question`` (stated: one question of 8 to 30 words, about this trial; required):
  answers when it is a question (a "?" or a question word first) and has a word of this trial's title or
  summary (the trial's generic words aside: trial, treatment, patient, study, people, side effects, results...).
- trial_summaries ``hard_words`` (optional; stated: up to 15 words, blank if every word is clear): of the
  answers given, those of at most 15 words that name a word of this summary, or say none are hard; its figure
  is over the answers given, with the share given beside it.
- recall_notices ``risk_reason`` (stated: 8 to 25 words, pointing to this notice; required): answers when it
  gives a ground (GROUND: because, since, could, may, hazard, fire, shock, burn, choke, cut, fall, allergy,
  child, baby, serious, only, batch, affected, fixed...) and has a word of this notice (its product or text,
  the generic recall words aside).
- timetable_notices ``corrected_sentence`` (stated: the whole corrected sentence, up to 35 words; empty when
  the notice agrees), on the items whose ``gold_matches`` is no: answers when it holds at least half (and one)
  of the fix's words (``gold_fix``; numbers and times exactly, other words by their first four letters), does
  not hold the notice's wrong words (``gold_wrong``) as a run, and keeps three or more words of the notice (a
  sentence of it rewritten, not the fix alone). On the items that agree the figure is instead the share of
  honest answers left empty, as the page asks (``corrected_empty_on_agreeing``).
- podcast_episodes ``episode_title`` (stated: at most 10 words, not just the show's name; required): answers
  when it has a word of this episode's notes (the show's name and generic podcast words aside) and is not the
  show's name.
- sighting_logs ``missing`` (stated: 2 to 12 words; required by the script after "no"), on the logs whose
  ``gold_complete`` is no: answers when it names the part this log lacks (``gold_missing``: species, count,
  date, place or observer, by PART's words for each).

The runner's limit is each field's stated minimum (1 where only a maximum is stated); each page's extra line
adds the whole stated limit and the share within it that also answers. Further figures, off the ledger:
trial_summaries honest outcome_stated equal to ``gold_outcome``, approved questions outside 8 to 30 words;
recall_notices approved notices with no box ticked or "not stated" with a hazard, approved reasons outside 8
to 25 words, honest actions equal to ``gold_action`` (12 rows) and honest hazard sets equal to
``gold_hazards``; timetable_notices honest ``matches`` equal to ``gold_matches``, approved "no" with the
correction blank, approved corrections over 35 words; podcast_episodes honest categories, guest counts and
dates equal to the gold, approved titles over 10 words, approved guest counts outside 0-6 or not whole;
sighting_logs honest ``complete`` equal to ``gold_complete``, approved logs with no stars, "no" with fewer than
2 words missing, missing outside 2 to 12 words given, and the share of honest missing boxes left empty on
complete logs.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout15.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout15.py``) it finds
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

PAGES_DIR = ROOT / "bench" / "gate_heldout15"
RESULTS = ROOT / "bench" / "results-gate-heldout15.json"

COMMON_WORDS = STOP | {"about", "would", "could", "should", "just", "your", "yours", "very", "really", "please",
                       "them", "than", "only", "also", "like", "more", "most", "much", "each", "every", "other",
                       "does", "because", "good", "here", "need", "needs", "make", "know", "want", "this",
                       "these", "those", "what", "which", "will", "there", "their", "they", "with", "from",
                       "have", "been", "were", "when", "where", "then", "that", "into", "after", "before"}
TRIAL_WORDS = {"trial", "trials", "treatment", "treatments", "treated", "patient", "patients", "study", "studies",
               "people", "person", "side", "effect", "effects", "result", "results", "took", "take", "taking",
               "part", "participants", "group", "groups", "work", "worked", "works", "summary", "doctor",
               "doctors", "medical", "medicine", "safe", "safety", "long", "term", "term?", "join", "joining"}
RECALL_WORDS = {"notice", "product", "products", "owner", "owners", "customer", "customers", "refund", "return",
                "returned", "stop", "stopped", "using", "used", "risk", "risks", "level", "recall", "recalled",
                "household", "households", "keep", "keeps", "serious", "high", "medium", "says", "said", "chose",
                "choose", "chosen", "mentions", "mentioned", "states", "stated"}
PODCAST_WORDS = {"episode", "episodes", "podcast", "recorded", "record", "guest", "guests", "host", "talk", "talks",
                 "talking", "join", "joins", "joined", "week", "this", "show", "notes", "listener", "listeners"}
QUESTION = re.compile(r"^\W*(what|which|how|why|when|where|who|whose|whom|is|are|was|were|does|do|did|has|have|"
                      r"had|can|could|would|will|may|might|should|shall|am|if)\b", re.I)
GROUND = re.compile(
    r"\b(because|since|as|so|could|may|might|can|cause\w*|hazard\w*|danger\w*|harm\w*|injur\w*|fire|flames?|"
    r"overheat\w*|heat\w*|hot|shock\w*|electr\w*|live|burn\w*|scald\w*|chok\w*|swallow\w*|cut|cuts|sharp|"
    r"blade\w*|fall\w*|collaps\w*|tip\w*|drown\w*|allerg\w*|nuts?|milk|eggs?|asbestos|chemical\w*|toxic|"
    r"child\w*|kids?|bab(y|ies)|infants?|toddlers?|death|fatal|deadly|severe|serious|minor|small|only|rare\w*|"
    r"few|some|batch\w*|lots?|serial|affected|fix\w*|repair\w*|replace\w*|easy|simple|immediate\w*|sudden\w*|"
    r"without warning|while|during)\b", re.I)
PART = {
    "species": re.compile(r"\b(species|what (kind|type|sort) of|which (bird|butterfly|moth|animal|bat|bee|kind|"
                          r"type)|name of the (bird|butterfly|moth|animal|creature|insect)|identif\w*|what (it|they) "
                          r"(was|were|is|are))\b", re.I),
    "count": re.compile(r"\b(count\w*|how many|number( of (birds|animals|them|individuals|moths|butterflies|bees|"
                        r"bats|newts|seen))?|numbers|quantity|exact (number|count)|total)\b", re.I),
    "date": re.compile(r"\b(date|dated|when|day|which day)\b", re.I),
    "place": re.compile(r"\b(place|location|located|where|site|address|grid( ref\w*)?|village|town|postcode|area|"
                        r"street)\b", re.I),
    "observer": re.compile(r"\b(observer\w*|initials|who (saw|seen|recorded|sent|made|wrote|spotted)|recorder\w*|"
                           r"(their|your|volunteer'?s|person'?s|observer'?s) name|name of the (observer|volunteer|"
                           r"person|recorder)|surname|full name|signed|signature)\b", re.I),
}
NONE_HARD = re.compile(r"^\W*(none|nothing|no|n/?a|all clear|every word is clear|they are all clear)\W*$", re.I)
NUMERIC = re.compile(r"^[\d:.,]+$")
OFF = ("", "false", "0", "off", "no", "none", "null")


def _stems(text: str, generic: frozenset[str] | set[str] = frozenset()) -> set[str]:
    return {w.lower()[:4] for w in words(text)
            if len(w) >= 4 and w.lower() not in COMMON_WORDS and w.lower() not in generic}


def _shares_stem(text: str, source: str, generic: frozenset[str] | set[str] = frozenset()) -> bool:
    return bool(_stems(text, generic) & _stems(source, generic))


def _is_question(text: str) -> bool:
    return "?" in text or bool(QUESTION.search(text.strip()))


def asks_about_trial(text: str, item: dict[str, str]) -> bool:
    """A question with a word of this trial (title or summary), the generic trial words aside."""
    return _is_question(text) and _shares_stem(text, f"{item.get('trial_title', '')} {item.get('summary', '')}",
                                               TRIAL_WORDS)


def names_hard_words(text: str, item: dict[str, str]) -> bool:
    """Optional: a word of this summary named (at most 15 words), or "none" said."""
    return bool(NONE_HARD.search(text.strip())) or (len(words(text)) <= 15
                                                     and _shares_stem(text, item.get("summary", "")))


def gives_risk_ground(text: str, item: dict[str, str]) -> bool:
    """A ground (GROUND) and a word of this notice (product or text), the generic recall words aside."""
    notice = f"{item.get('product', '')} {item.get('notice_text', '')}"
    return bool(GROUND.search(text)) and _shares_stem(text, notice, RECALL_WORDS)


def _tokens(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[\w:.']+", text.replace("'s ", " ")) if w.strip(".")]


def _key(token: str) -> str:
    token = token.strip(".,")
    return token if NUMERIC.match(token) else token[:4]


def _has_run(said: list[str], run: list[str]) -> bool:
    n = len(run)
    return n > 0 and any(said[i:i + n] == run for i in range(len(said) - n + 1))


def corrects_notice(text: str, item: dict[str, str]) -> bool:
    """Half (and one) of the fix's words, not the wrong words as a run, and three words of the notice kept."""
    said = [t.strip(".,") for t in _tokens(text)]
    keys = {_key(t) for t in said}
    fix = [t for t in _tokens(item.get("gold_fix", "")) if t not in COMMON_WORDS and t not in ("to", "via", "no")]
    fix_keys = {_key(t) for t in fix} or {_key(t) for t in _tokens(item.get("gold_fix", ""))}
    wrong = [t.strip(".,") for t in _tokens(item.get("gold_wrong", ""))]
    if not said or not fix_keys:
        return False
    kept = len(_stems(text) & _stems(item.get("notice", ""))) >= 3
    return (len(fix_keys & keys) >= max(1, len(fix_keys) / 2) and not _has_run(said, wrong) and kept)


def titles_episode(text: str, item: dict[str, str]) -> bool:
    """A word of this episode's notes (the show's name and podcast words aside), and not the show's name."""
    show = item.get("show_name", "")
    generic = PODCAST_WORDS | {w.lower() for w in words(show)}
    said = " ".join(w.lower() for w in words(text))
    return said != " ".join(w.lower() for w in words(show)) and _shares_stem(text, item.get("episode_notes", ""),
                                                                              generic)


def names_missing_part(text: str, item: dict[str, str]) -> bool:
    """The part this log lacks (gold_missing) named by PART's words for it."""
    part = PART.get(item.get("gold_missing", "").strip())
    return bool(part and part.search(text))


def _is_no(item: dict[str, str], col: str) -> bool:
    return item.get(col, "").strip().lower() == "no"


def right_share(page: str, fld: str, gold: str, same: Any = None, read: Any = None) -> Any:
    """Honest answers of ``fld`` (``read``: from an item's fields) equal to the item's ``gold`` column (``same``:
    another comparison), on the items that have one; this set's folder."""
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


def honest_share(page: str, fld: str, name: str, counts: Any, applies: Any = lambda _i: True) -> Any:
    """Of the honest answers of ``fld`` on the items ``applies`` picks, the share ``counts(value)``."""

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [f.get(fld, "") for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and applies(items[i])]
        hit = sum(bool(counts(v)) for v in given)
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


def _n_words(fields: dict[str, str], fld: str) -> int:
    return len(words(fields.get(fld, "")))


def _blank(fld: str) -> Any:
    return lambda f: fld in f and not f[fld].strip()


def _outside(fld: str, low: int, high: int) -> Any:
    return lambda f: bool(f.get(fld, "").strip()) and not low <= _n_words(f, fld) <= high


def _not_whole_in(fld: str, low: int, high: int) -> Any:
    def off(fields: dict[str, str]) -> bool:
        said = fields.get(fld, "").strip()
        try:
            return bool(said) and not (float(said).is_integer() and low <= float(said) <= high)
        except ValueError:
            return True
    return off


def _same_number(said: str, known: str) -> bool:
    try:
        return float(said) == float(known)
    except ValueError:
        return False


def _stated_none_and_more(fields: dict[str, str]) -> bool:
    ticks = _ticks(fields.get("hazards", ""))
    return "not_stated" in ticks and len(ticks) > 1


def _no_without(fld: str, choice: str, least: int) -> Any:
    return lambda f: f.get(choice, "").strip().lower() == "no" and _n_words(f, fld) < least


def _matches(fields: dict[str, str]) -> str | None:
    """The notice's yes/no however the ledger keeps the shared-name crowd buttons (None: not on the ledger)."""
    if "matches" in fields:
        return fields["matches"].strip()
    on = [v for v in ("yes", "no") if fields.get(v, "").strip().lower() not in OFF]
    return on[0] if on else ("" if any(v in fields for v in ("yes", "no")) else None)


trials_extra = _combine(
    whole_limit("trial_summaries", "patient_question", asks_about_trial, limit=(8, 30, False), folder=PAGES_DIR),
    given_judged("trial_summaries", "hard_words", names_hard_words, 15),
    approved_breaking({"question_outside_8_30": _outside("patient_question", 8, 30),
                       "hard_words_over_15": _outside("hard_words", 0, 15)}),
    right_share("trial_summaries", "outcome_stated", "gold_outcome"))
recalls_extra = _combine(
    whole_limit("recall_notices", "risk_reason", gives_risk_ground, limit=(8, 25, False), folder=PAGES_DIR),
    approved_breaking({"no_hazard_ticked": _blank("hazards"), "not_stated_and_a_hazard": _stated_none_and_more,
                       "reason_outside_8_25": _outside("risk_reason", 8, 25), "action_blank": _blank("action")}),
    right_share("recall_notices", "action", "gold_action"),
    right_share("recall_notices", "hazards", "gold_hazards", lambda s, k: _ticks(s) == _ticks(k)))
timetable_extra = _combine(
    whole_limit("timetable_notices", "corrected_sentence", corrects_notice, lambda i: _is_no(i, "gold_matches"),
                limit=(1, 35, False), folder=PAGES_DIR),
    honest_share("timetable_notices", "corrected_sentence", "corrected_empty_on_agreeing", lambda v: not v.strip(),
                 lambda i: not _is_no(i, "gold_matches")),
    approved_breaking({"no_without_correction": lambda f: _matches(f) == "no"
                       and not f.get("corrected_sentence", "").strip(),
                       "no_matches_answer": lambda f: _matches(f) == "",
                       "correction_over_35": _outside("corrected_sentence", 0, 35),
                       "clarity_off_1_7": _not_whole_in("clarity", 1, 7)}),
    right_share("timetable_notices", "matches", "gold_matches", read=_matches))
podcast_extra = _combine(
    whole_limit("podcast_episodes", "episode_title", titles_episode, limit=(1, 10, False), folder=PAGES_DIR),
    approved_breaking({"title_over_10": _outside("episode_title", 0, 10),
                       "guests_off_0_6": _not_whole_in("guests", 0, 6), "recorded_blank": _blank("recorded")}),
    right_share("podcast_episodes", "category", "gold_category"),
    right_share("podcast_episodes", "guests", "gold_guests", _same_number),
    right_share("podcast_episodes", "recorded", "gold_recorded"))
logs_extra = _combine(
    whole_limit("sighting_logs", "missing", names_missing_part, lambda i: _is_no(i, "gold_complete"),
                limit=(2, 12, False), folder=PAGES_DIR),
    honest_share("sighting_logs", "missing", "missing_empty_on_complete", lambda v: not v.strip(),
                 lambda i: not _is_no(i, "gold_complete")),
    approved_breaking({"no_sureness": _blank("sureness"), "no_without_missing": _no_without("missing", "complete", 2),
                       "missing_outside_2_12": _outside("missing", 2, 12),
                       "sureness_off_1_5": _not_whole_in("sureness", 1, 5)}),
    right_share("sighting_logs", "complete", "gold_complete"))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # one item; a full document with its own form; a Likert grid; the 8-30 words only stated; an optional box
    _page("trial_summaries", 1, ("outcome_stated", "plain_words", "who_clear", "side_effects_clear",
                                 "patient_question"), texts={
        "patient_question": TextField(8, asks_about_trial, "a question ('?' or a question word first) with a word "
                                      "of this trial (title or summary; generic trial words aside)"),
        "hard_words": TextField(0, names_hard_words, "optional: a word of this summary named (<= 15 words), or "
                                "'none'")},
          truth='{outcome_stated = "gold_outcome"}', extra=trials_extra),
    # three a page; "at least one box" is a submit listener's only; the controls the import proposes
    _page("recall_notices", 3, ("hazards", "risk", "action", "risk_reason"), texts={
        "risk_reason": TextField(8, gives_risk_ground, "a ground (because, could, fire, shock, choke, child, "
                                 "batch, only...) and a word of this notice (generic recall words aside)")},
          keys={"controls": '"recall_notices_controls.csv"'}, truth='{action = "gold_action"}', controls=True,
          extra=recalls_extra),
    # two a page; crowd elements, the radio buttons sharing one name; a slider; the correction asked after "no"
    _page("timetable_notices", 2, ("matches", "clarity"), texts={"corrected_sentence": TextField(
        1, corrects_notice, "on notices that disagree: half the fix's words (gold_fix), not the wrong words "
        "(gold_wrong) as a run, three words of the notice kept", lambda item: _is_no(item, "gold_matches"))},
          truth='{matches = "gold_matches"}', extra=timetable_extra),
    # one item; a title, a select, a number, a date; separate controls at a share
    _page("podcast_episodes", 1, ("episode_title", "category", "guests", "recorded"), texts={
        "episode_title": TextField(1, titles_episode, "a word of this episode's notes (show name and podcast "
                                   "words aside), not the show's name")},
          keys={"controls": '"podcast_episodes_controls.csv"', "control_share": "0.25"},
          truth='{category = "gold_category", guests = "gold_guests", recorded = "gold_recorded"}', controls=True,
          extra=podcast_extra),
    # four a page; a star widget's script writes a hidden field; the stars and "what is missing" are a submit
    # listener's only
    _page("sighting_logs", 4, ("complete", "sureness"), texts={"missing": TextField(
        2, names_missing_part, "on incomplete logs: the part it lacks (gold_missing: species, count, date, place, "
        "observer) named", lambda item: _is_no(item, "gold_complete"))},
          truth='{complete = "gold_complete"}', extra=logs_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
