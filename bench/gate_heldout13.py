"""``make bench-gate-heldout13``: bench/gate_heldout.py's gate and rehearsal on a thirteenth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses (bench/gate_heldout13/), each with a 30-item file:

- warranty_claims: one appliance warranty claim a page, a full HTML document with its own CSS, its own
  ``<form>`` and MTurk's ``assignmentId`` field, the policy in a box above: "What should we do with this
  claim?" (approve / deny / more_info radios, ``required``; truth ``gold_decision``) and "Why? Point to what
  in the claim made you decide. Between 8 and 30 words" (a ``required`` textarea; the range only stated);
  controls: 14 separate claims of its own file (``warranty_claims_controls.csv``) on ``decision`` at a share
  of 0.2;
- menu_allergens: three restaurant dishes a page, a full document with its own CSS and form: "Which of these
  does the description say the dish contains? (tick all that apply)" (ten checkboxes sharing
  ``name="allergens"``, "None of these" among them) and "What does the description leave out that a customer
  with a food allergy would still need to know? 3 to 20 words" (a text input); nothing carries ``required``:
  a ``submit`` listener on the form (by id) loops over ``.dish`` blocks and refuses a dish with no box
  ticked or that input blank; truth ``gold_allergens`` kept for the figures, no controls;
- support_tickets: four customer emails of an internet provider a page, a plain ``${column}`` fragment:
  the team (five radios, ``required``), the urgency (a ``<select required>`` with an empty first option),
  "How many separate problems or requests" (``<input type="number" min="1" max="5" required>``), "What
  should the agent do first? one sentence of 5 to 20 words, as an instruction" (a ``required`` text input)
  and "Anything confusing about this email or these questions? (optional)" (a textarea); ``gold_team`` on 12
  of the 30 rows: the controls are those rows of the items file, the file ``hitflow new`` proposes
  (``config/support_tickets_controls.csv``), named in ``[answers] controls`` as its message says, no share;
- station_announcements: two speech-recognition transcripts of railway announcements a page, an MTurk
  fragment with a script: "Does it contain a mistake?" (yes / no radios) and "If yes: type the announcement
  as the announcer really said it, with every mistake fixed (the whole announcement, 5 to 40 words)" (a
  textarea), neither ``required`` in the HTML: a ``submit`` listener on ``document.forms[0]`` refuses a block
  with no radio checked, or "yes" with fewer than 5 words typed; truth ``{has_error = "gold_error"}``
  (``gold_text``, the announcement as said, kept for the judge), no controls;
- council_petitions: one town-council petition a page on MTurk's crowd HTML elements (``<crowd-form>`` with
  ``<crowd-instructions>``): the department as a ``<crowd-radio-group>`` of six ``crowd-radio-button``s
  EACH WITH ITS OWN NAME (roads, parks, waste, housing, planning, leisure), and "In one sentence of 6 to 20
  words, what does the petition ask the council to do?" (a ``crowd-text-area`` with ``required``); a
  ``crowd-form`` ``onsubmit`` set on ``all-crowd-elements-ready`` refuses a submit while no
  ``crowd-radio-button[checked]`` exists; truth ``{choice = "gold_department"}`` (the group is the field
  ``choice``, as the import and the dry run name it), no controls.

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: warranty_claims decision, reason; menu_allergens allergens (at least one box a dish: the script's)
and missing_info (the script's); support_tickets team, priority, problem_count, next_step (comments is
optional); station_announcements has_error (the script's; ``corrected`` only when "yes", so counted off the
ledger instead, ``yes_without_correction``); council_petitions summary (the department spans six separately
named buttons, so it is counted off the ledger instead, ``no_department``).

The free-text judges and limits, written before any run and without reading the simulator's, the import's or
QC's code (five kinds of question: the reason for a choice, what is missing, a next step, a correction of
the text shown, a short summary; and one optional box). "A word of X" is a word sharing its first four
letters with a 4+ letter word of X, common words aside:

- warranty_claims ``reason`` (stated: 8 to 30 words; required): answers when it refers to this claim (a word
  of its product or claim text, or names its order number, dates or age: order, receipt, date, year, month,
  old) and gives a ground (GROUND: because, since, so, as, which, covered, warranty, policy, fault, defect,
  damage, dropped, water, wear, expired, missing, no order, not enough, vague, unclear...).
- menu_allergens ``missing_info`` (stated: 3 to 20 words; required by the script): answers when it names
  something left out (LEFT_OUT: whether, if, which, what, type/kind of, made with, cooked/fried in, oil,
  sauce, dressing, stock, batter, bread, traces, may contain, cross-contamination, not say, no mention,
  unclear, missing, ingredients...) and refers to this dish (a word of its name or description, or an
  allergen's name); "nothing missing" does not answer.
- support_tickets ``next_step`` (stated: one sentence of 5 to 20 words, an instruction; required): answers
  when it holds an instruction (bench/gate_heldout3.py's VERBS after a sentence start or "should / to /
  please / first...", or the support desk's: refund, credit, book, explain, escalate, apologise, transfer,
  offer, quote, schedule, reply, waive, raise, send...) and refers to this email (a word of its subject or
  message).
- station_announcements ``corrected`` (stated: 5 to 40 words; required by the script when "yes"), on the
  items whose ``gold_error`` is yes: answers when it is not the transcript as shown, keeps at least half of
  its words, and carries at least half (and one) of the fix words (the words of ``gold_text`` not in the
  transcript, a number word and its digits counting as one).
- council_petitions ``summary`` (stated: one sentence of 6 to 20 words; required): answers when it is one
  sentence, refers to this petition (a word of its title or text), says what is asked (ASKED: keep, stop,
  build, fix, add, install, open, repair, replace, refuse, reject, allow, give, require, enforce, protect,
  fund, provide, limit, let, extend, put, bring back, wants, asks, calls for...) and is not a copy of a
  sentence of the petition.
- support_tickets ``comments`` (optional, no limit): its figure is the share of honest answers left blank
  and the sample; no judge.

The runner's limit is each field's stated minimum; each page's extra line adds the whole stated limit and the
share within it that also answers. Further figures, off the ledger: warranty_claims, honest decisions equal
to ``gold_decision``, approved reasons outside 8 to 30 words; menu_allergens, approved dishes with no box
ticked or "none" ticked with another box, honest allergen sets equal to ``gold_allergens``; support_tickets,
approved problem counts blank or outside 1-5 or not whole, honest teams equal to ``gold_team`` where given;
station_announcements, approved "yes" with fewer than 5 words corrected, honest has_error equal to
``gold_error``; council_petitions, approved with no department, honest departments equal to
``gold_department``, approved summaries outside 6 to 20 words.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout13.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout13.py``) it finds
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
from bench.gate_heldout3 import STOP, VERBS, one_sentence
from bench.gate_heldout4 import _items, cli, whole_limit
from bench.gate_heldout5 import _given, _ticks, approved_breaking
from bench.gate_heldout6 import _combine

PAGES_DIR = ROOT / "bench" / "gate_heldout13"
RESULTS = ROOT / "bench" / "results-gate-heldout13.json"

COMMON_WORDS = STOP | {"about", "would", "could", "should", "just", "your", "yours", "very", "really", "please",
                       "them", "than", "only", "also", "like", "more", "most", "much", "each", "every", "other",
                       "does", "because", "good", "customer", "council", "petition", "dish", "claim"}
GROUND = re.compile(
    r"\b(because|since|so|as|which|due|cover\w*|warrant\w*|polic\w*|fault\w*|defect\w*|manufactur\w*|damag\w*|"
    r"drop\w*|impact|crack\w*|water|liquid|spill\w*|wet|rain|wear|worn|expired|out of|within|over|under|missing|"
    r"no order|without|proof|not enough|enough|vague|unclear|doesn't say|does not say|accident\w*|misuse|chew\w*|"
    r"repair\w*|opened|tamper\w*|battery|batteries|filter\w*|normal|age)\b", re.I)
CLAIM_FACTS = re.compile(r"\b(order\w*|receipt|dates?|dated|years?|months?|old|bought|purchas\w*)\b", re.I)
LEFT_OUT = re.compile(
    r"\b(whether|if|which|what|type of|kind of|made with|made from|cooked in|fried in|fried|oil|sauce|dressing|"
    r"stock|batter\w*|bread|bun|pastry|flour|traces?|may contain|cross[- ]contam\w*|contamin\w*|not say|"
    r"doesn't say|does not say|no mention|not mention\w*|unclear|missing|unknown|ingredients?|contains?|"
    r"gluten[- ]free|dairy[- ]free|vegan|mayo\w*|glaze\w*|marinade|stuffing|topping|garnish\w*)\b", re.I)
ALLERGEN = re.compile(r"\b(gluten|wheat|barley|rye|milk|dairy|lactose|egg\w*|nuts?|tree nuts?|peanuts?|fish|"
                      r"shellfish|crustacean\w*|mollus\w*|soy\w*|soya|sesame|celery|mustard|sulph\w*|lupin)\b", re.I)
NOTHING = re.compile(r"^\W*(nothing|none|n/?a|no)\b(\s*(missing|needed|else))?\W*$", re.I)
DESK_VERBS = r"(refund|credit|book|explain|escalat|apologi[sz]|transfer|offer|quote|schedul|reply|respond|waive|" \
             r"raise|send|process|correct|amend|walk|guide|advise|email|call|confirm|check|arrange|close|cancel)\w*"
INSTRUCTION = re.compile(r"(?:^|[.;:,!]\s*|\b(?:should|must|needs? to|ha(?:ve|s) to|to|will|please|then|first|"
                         r"immediately|urgently|and|can)\s+)(?:\w+ly\s+)?\b(?:" + VERBS + "|" + DESK_VERBS + r")\b",
                         re.I)
ASKED = re.compile(
    r"\b(keep\w*|stop\w*|build\w*|fix\w*|add\w*|install\w*|open\w*|reopen\w*|repair\w*|replac\w*|refus\w*|"
    r"reject\w*|allow\w*|give\w*|requir\w*|enforc\w*|protect\w*|fund\w*|provid\w*|limit\w*|let|extend\w*|"
    r"put\w*|bring back|restor\w*|resurfac\w*|introduc\w*|creat\w*|ban\w*|prevent\w*|make|wants?|asks?|"
    r"calls? for|request\w*|demand\w*|offer\w*|clear\w*|plant\w*|lower\w*|reduc\w*|increas\w*|run\w*|"
    r"close\w*|change\w*|preserv\w*|save\w*|hire|employ\w*|deal\w*|tackl\w*|fill\w*|remov\w*)\b", re.I)
NUMBERS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
           "nine": "9", "ten": "10"}
DEPARTMENTS = ("roads", "parks", "waste", "housing", "planning", "leisure")
OFF = ("", "false", "0", "off", "no", "none", "null")


def _stems(text: str) -> set[str]:
    return {w.lower()[:4] for w in words(text) if len(w) >= 4 and w.lower() not in COMMON_WORDS}


def _shares_stem(text: str, source: str) -> bool:
    return bool(_stems(text) & _stems(source))


def gives_ground(text: str, item: dict[str, str]) -> bool:
    """A ground for the decision (GROUND) about this claim (its words, or its order number, dates, age)."""
    claim = f"{item.get('product', '')} {item.get('claim_text', '')}"
    about = _shares_stem(text, claim) or bool(CLAIM_FACTS.search(text))
    return about and bool(GROUND.search(text))


def names_left_out(text: str, item: dict[str, str]) -> bool:
    """Something left out (LEFT_OUT) about this dish (its words or an allergen); "nothing" is no answer."""
    if NOTHING.search(text.strip()):
        return False
    dish = f"{item.get('dish', '')} {item.get('description', '')}"
    return bool(LEFT_OUT.search(text)) and (_shares_stem(text, dish) or bool(ALLERGEN.search(text)))


def instructs_agent(text: str, item: dict[str, str]) -> bool:
    """An instruction (INSTRUCTION) about this email (a word of its subject or message)."""
    mail = f"{item.get('subject', '')} {item.get('message', '')}"
    return bool(INSTRUCTION.search(text.strip())) and _shares_stem(text, mail)


def _norm(text: str) -> list[str]:
    return [NUMBERS.get(w.lower(), w.lower()) for w in words(text)]


def corrects_transcript(text: str, item: dict[str, str]) -> bool:
    """Not the transcript as shown, half its words kept, and half (at least one) of the fix words in it."""
    said, shown, meant = _norm(text), _norm(item.get("transcript", "")), _norm(item.get("gold_text", ""))
    fixes = set(meant) - set(shown)
    if not said or said == shown or not fixes:
        return False
    kept = len(set(said) & set(shown)) >= 0.5 * len(set(shown))
    return kept and len(fixes & set(said)) >= max(1, len(fixes) / 2)


def _copies_sentence(text: str, petition: str) -> bool:
    said = " ".join(_norm(text))
    return any(said and said == " ".join(_norm(s)) for s in re.split(r"(?<=[.!?])\s+", petition))


def sums_up_petition(text: str, item: dict[str, str]) -> bool:
    """One sentence about this petition (its words) saying what is asked (ASKED), not a copy of its sentence."""
    source = f"{item.get('title', '')} {item.get('petition', '')}"
    return (one_sentence(text) and _shares_stem(text, source) and bool(ASKED.search(text))
            and not _copies_sentence(text, item.get("petition", "")))


def right_share(page: str, fld: str, gold: str, same: Any = None, read: Any = None) -> Any:
    """Honest answers of ``fld`` (``read``: from an item's fields) equal to the item's ``gold`` column, on the
    items that have one (bench/gate_heldout11.py's, reading this set's folder)."""
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


def _department(fields: dict[str, str]) -> str | None:
    """The department chosen: the group's one field where the ledger has it, else the button whose field is
    on ('' none; None: no such field on the ledger)."""
    if "choice" in fields:
        return fields["choice"].strip()
    if not any(d in fields for d in DEPARTMENTS):
        return None
    return next((d for d in DEPARTMENTS if _on(fields.get(d, ""))), "")


def _blank(fld: str) -> Any:
    return lambda f: fld in f and not f[fld].strip()


def _outside(fld: str, low: int, high: int) -> Any:
    return lambda f: bool(f.get(fld, "").strip()) and not low <= len(words(f[fld])) <= high


def _count_off(fields: dict[str, str]) -> bool:
    """A problem count blank, not a whole number, or outside 1-5."""
    said = fields.get("problem_count", "").strip()
    try:
        return not said or not (float(said).is_integer() and 1 <= float(said) <= 5)
    except ValueError:
        return True


def _none_and_more(fields: dict[str, str]) -> bool:
    ticks = _ticks(fields.get("allergens", ""))
    return "none" in ticks and len(ticks) > 1


def _yes_unfixed(fields: dict[str, str]) -> bool:
    return fields.get("has_error", "").strip().lower() == "yes" and len(words(fields.get("corrected", ""))) < 5


warranty_extra = _combine(
    whole_limit("warranty_claims", "reason", gives_ground, limit=(8, 30, False), folder=PAGES_DIR),
    approved_breaking({"reason_outside_8_30": _outside("reason", 8, 30), "decision_blank": _blank("decision")}),
    right_share("warranty_claims", "decision", "gold_decision"))
menu_extra = _combine(
    whole_limit("menu_allergens", "missing_info", names_left_out, limit=(3, 20, False), folder=PAGES_DIR),
    approved_breaking({"no_allergen_ticked": _blank("allergens"), "none_and_an_allergen": _none_and_more,
                       "missing_info_outside_3_20": _outside("missing_info", 3, 20)}),
    right_share("menu_allergens", "allergens", "gold_allergens", lambda s, k: _ticks(s) == _ticks(k)))
tickets_extra = _combine(
    whole_limit("support_tickets", "next_step", instructs_agent, limit=(5, 20, True), folder=PAGES_DIR),
    approved_breaking({"problem_count_off": _count_off, "priority_blank": _blank("priority"),
                       "next_step_outside_5_20": _outside("next_step", 5, 20)}),
    right_share("support_tickets", "team", "gold_team"))
announcements_extra = _combine(
    whole_limit("station_announcements", "corrected", corrects_transcript, lambda i: i.get("gold_error") == "yes",
                limit=(5, 40, False), folder=PAGES_DIR),
    approved_breaking({"yes_without_correction": _yes_unfixed, "has_error_blank": _blank("has_error")}),
    right_share("station_announcements", "has_error", "gold_error"))
petitions_extra = _combine(
    whole_limit("council_petitions", "summary", sums_up_petition, limit=(6, 20, True), folder=PAGES_DIR),
    approved_breaking({"no_department": lambda f: _department(f) == "",
                       "summary_outside_6_20": _outside("summary", 6, 20)}),
    right_share("council_petitions", "department", "gold_department", read=_department))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # a full document with its own form; separate controls at a share; the 8-30 words only stated
    _page("warranty_claims", 1, ("decision", "reason"), texts={"reason": TextField(
        8, gives_ground, "a ground (because, covered, warranty, fault, damage, dropped, missing, vague...) about "
        "this claim (a word of it, or its order number, dates, age)")},
          keys={"controls": '"warranty_claims_controls.csv"', "control_share": "0.2"},
          truth='{decision = "gold_decision"}', controls=True, extra=warranty_extra),
    # "at least one box" and the text box are a submit listener's only
    _page("menu_allergens", 3, ("allergens", "missing_info"), texts={"missing_info": TextField(
        3, names_left_out, "something left out (whether, which, type of, oil, sauce, traces, not say...) about "
        "this dish (a word of it or an allergen); 'nothing missing' is no answer")}, extra=menu_extra),
    # a select and a number; the controls are the items file's rows with gold_team, the file the import proposes
    _page("support_tickets", 4, ("team", "priority", "problem_count", "next_step"), texts={
        "next_step": TextField(5, instructs_agent, "an instruction (check, refund, book, explain, escalate...) "
                               "about this email (a word of its subject or message)"),
        "comments": TextField(0, lambda _t, _i: True, "optional: none (blank share and sample only)")},
          keys={"controls": '"support_tickets_controls.csv"'}, truth='{team = "gold_team"}', controls=True,
          extra=tickets_extra),
    # the radio and the conditional correction are a submit listener's only
    _page("station_announcements", 2, ("has_error",), texts={"corrected": TextField(
        5, corrects_transcript, "on transcripts with a mistake: not the transcript, half its words kept, half "
        "the fix words (gold_text's words not in it) in it", lambda item: item.get("gold_error") == "yes")},
          truth='{has_error = "gold_error"}', extra=announcements_extra),
    # crowd-form: the department (six separately named buttons) is an onsubmit's only
    _page("council_petitions", 1, ("summary",), texts={"summary": TextField(
        6, sums_up_petition, "one sentence about this petition (a word of it) saying what is asked (keep, stop, "
        "build, fix, add, refuse, allow...), not a copy of its sentence")},
          truth='{choice = "gold_department"}', extra=petitions_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
