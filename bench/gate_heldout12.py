"""``make bench-gate-heldout12``: bench/gate_heldout.py's gate and rehearsal on a twelfth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses (bench/gate_heldout12/), each with a 30-item file. In the
report they are page1..page5 in this order:

- page1 tenant_repairs: one tenant's repair request a page, a full HTML document with its own CSS, its own
  MTurk form (``mturk_form``, ``externalSubmit``) and the assignment-id boilerplate script (the crowd
  elements' script tag left in its head, as MTurk's editor writes it): "Who should we send?" (six radios,
  ``required``; truth ``gold_trade``), "How urgent is it?" (a ``<select required>`` with an empty first
  option), "How many days has the problem been going on?" (``<input type="number" min="0" max="365"
  required>``) and "What should our office do first? One sentence, 8 to 30 words, as an instruction to our
  staff" (a ``required`` textarea; nothing enforces the range); no controls (its gold columns kept for the
  figures);
- page2 talk_abstracts: two conference talk proposals a page, a ``${column}`` fragment: "How much does the talk
  expect the audience to know?" (three radios, ``required``; truth ``gold_level``), "Which of these groups
  would get something out of it? Tick all that apply (at least one)" (six boxes sharing ``name="audience"``,
  none ``required``) and "Why did you pick those groups? (5 to 30 words)" (a textarea, not ``required``); a
  ``submit`` listener on ``document.getElementById('mturk_form')`` (MTurk's own form id: the fragment has no
  form) refuses the submit with no box ticked or a reason outside 5 to 30 words; no controls;
- page3 menu_translations: three machine-translated menu lines a page, a plain ``${column}`` fragment: "Is the
  English translation right?" (correct / small_fix / wrong radios, ``required``) and "If it needs fixing,
  type the corrected English line ... (at most 20 words). Leave this empty if the translation is correct."
  (a text input, nothing requires it); controls: the 13 rows of its items file with a ``gold_verdict``
  (the file ``hitflow new`` writes from that column), no share; ``known_issue`` kept for the figures;
- page4 support_chats: two shop support chats a page, a Prolific-style full HTML document with its own CSS,
  form and "Next" button: "was the customer's problem solved?" (solved / partly / not_solved radios,
  ``required``; truth ``gold_resolved``), "How polite was the agent?" (a ``<select required>`` 1-5 whose first
  option is ``selected disabled``) and "In your own words, what was the customer's problem? A short summary,
  5 to 15 words. Please don't copy sentences from the chat." (a ``required`` textarea); 10 separate controls
  on ``resolved`` at a share of 0.2;
- page5 school_letters: one primary-school letter a page on MTurk's crowd HTML elements (``<crowd-form>``
  with ``<crowd-instructions>``): "What is the main thing this letter asks parents to do?" (a
  ``crowd-radio-group`` of five ``crowd-radio-button``s each with its own name, the reference's shape,
  nothing ``required``; ``gold_action`` kept for the figures), a ``crowd-slider`` 1-5, "Write one question a
  parent might still have ... 6 to 20 words" (a ``crowd-text-area required``) and "Optional: is any wording in
  the letter confusing? ... in up to 25 words. Leave blank if nothing is confusing." (a ``crowd-input``);
  no controls.

"Required" for the gate's required-blank figure is the page as written, its script included, as a person's
browser enforces it on the route it was written for: page1 trade, urgency, days_reported, first_step;
page2 level, audience (the listener's "at least one"), why (the listener's, 5 to 30 words: on MTurk the
form the listener names is there); page3 verdict (the corrected line is asked only when a line needs
fixing, and nothing enforces it: counted off the ledger, ``fix_verdict_blank_line``); page4 resolved,
politeness, summary; page5 parent_question (the radio group carries no ``required``: counted off the ledger,
``no_action_chosen``).

The free-text judges and limits, fixed before any run and without reading the simulator's, the import's or
QC's code (five kinds of question: a next step, a reason for a choice, a correction, a summary, a question to
ask; plus an optional comment). "Refers to this item" is always: a word sharing its first four letters with a
4+ letter word of the item's shown text, common words (COMMON_WORDS) aside.

- page1 ``first_step`` (stated: one sentence, 8 to 30 words, an instruction; required): answers when it is an
  instruction (an ACTION verb as the answer's or a clause's first word, or after should / must / need to /
  please / then...: call, ring, phone, contact, ask, tell, send, book, arrange, schedule, dispatch, advise,
  turn, shut, isolate, inspect, check, visit, treat, fix, repair, replace, log, raise, prioritise...) and
  refers to this request (its words, or a TRADE word: plumber, electrician, gas, engineer, locksmith, joiner,
  pest, handyman, boiler, heating, leak, lock, fuse...).
- page2 ``why`` (stated: 5 to 30 words; the listener refuses outside it): answers when it gives a reason for
  the groups (a GROUP word: student, beginner, developer, programmer, engineer, analyst, scientist, manager,
  lead, researcher, academic, public, anyone, everyone, specialist, expert, novice...; or a REASON word:
  because, since, as, assumes, requires, expects, needs, background, basic, advanced, practical, technical,
  introductory, aimed, suits, useful, relevant...) and refers to this proposal (its title, speaker or abstract).
- page3 ``fixed_line`` (stated: at most 20 words; empty when the line is correct), on the lines with a known
  issue (``known_issue`` not empty): answers when it is not the English shown (letters compared, case and
  punctuation aside) and refers to this line (its English or its original). On the correct lines the
  figure is instead the share of honest answers left empty, as the page asks (``fixed_line_empty_on_correct``).
- page4 ``summary`` (stated: 5 to 15 words, not copied; required): answers when it refers to this chat and
  copies no run of 6 consecutive words of the chat.
- page5 ``parent_question`` (stated: 6 to 20 words; required): answers when it IS a question (a "?" or a
  first word of ASK: what, which, how, why, when, where, who, is, are, do, does, can, could, will, should...)
  and refers to this letter.
- page5 ``confusing_wording`` (stated: optional, up to 25 words, blank if nothing is confusing): answers, when
  given, when it refers to this letter or names a wording problem (a word of WORDING: unclear, confusing,
  vague, ambiguous, jargon, wording, phrase, sentence, doesn't say, not clear...) or says nothing is confusing
  (nothing, none, no, n/a, clear, fine); its share is over the answers given, with the share given beside it.

The runner's limit is each field's stated minimum (1 where only a maximum is stated); each page's extra line
adds the whole stated limit and the share within it that also answers (``all_share``). Further figures, off
the ledger: page1 honest trades, urgencies equal to the gold and days within one of ``gold_days``, approved
assignments outside 8 to 30 words or one sentence, or with days outside 0-365 or not whole; page2 approved
assignments with no box ticked or a reason outside 5 to 30 words (the listener's rules), honest levels equal
to ``gold_level``, honest tick sets equal to and overlapping ``gold_audience``; page3 honest verdicts equal to
``gold_verdict`` (its 13 rows), approved lines judged needing a fix with the box blank; page4 honest
``resolved`` equal to ``gold_resolved``, approved summaries outside 5 to 15 words; page5 honest actions equal
to ``gold_action``, approved assignments with no action chosen, or a question outside 6 to 20 words or not a
question, and the share of honest workers giving the optional comment.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout12.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout12.py``) it finds
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

PAGES_DIR = ROOT / "bench" / "gate_heldout12"
RESULTS = ROOT / "bench" / "results-gate-heldout12.json"

COMMON_WORDS = STOP | {"about", "would", "could", "should", "just", "your", "yours", "very", "really", "please",
                       "them", "than", "only", "also", "like", "more", "most", "much", "each", "every", "other",
                       "does", "because", "good", "here", "need", "needs", "make", "know", "want", "thank",
                       "thanks", "said", "says", "this", "these", "those"}
MORE_VERBS = (r"(book|schedule|advise|shut|turn|isolate|treat|inspect|visit|assess|organi[sz]e|prioriti[sz]e|"
              r"raise|provide|offer|apolog\w*|reassure|explain|instruct|attend|unblock|drain|switch|"
              r"ventilate|evacuate|secure|board|tape|isolate|sort|deal|chase|follow)\w*")
ACTION = re.compile(r"(?:^|[.;:,!]\s*|\b(?:should|must|needs? to|ha(?:ve|s) to|to|will|please|then|first|"
                    r"immediately|urgently|and|can|we|office|staff)\s+)(?:\w+ly\s+)?\b(?:" + VERBS + "|"
                    + MORE_VERBS + r")\b", re.I)
TRADE = re.compile(r"\b(plumb\w*|electric\w*|gas|engineer\w*|locksmith\w*|joiner\w*|carpent\w*|pest\w*|"
                   r"handy\w*|boiler\w*|heat\w*|leak\w*|locks?|fuse\w*|wiring|tradesperson|contractor\w*)\b", re.I)
GROUP = re.compile(r"\b(students?|beginners?|newcomers?|novices?|developers?|programmers?|coders?|engineers?|"
                   r"analysts?|scientists?|managers?|leads?|leaders?|researchers?|academics?|public|anyone|"
                   r"everyone|everybody|people|specialists?|experts?|professionals?|practitioners?|teachers?|"
                   r"parents?|owners?|staff|teams?|technical|non-technical|laypeople|general)\b", re.I)
REASON = re.compile(r"\b(because|since|as|so|assumes?|requires?|expects?|needs?|background|basics?|basic|"
                    r"advanced|practical|hands-on|technical|introductory|intro|aimed|aims|suits?|suited|"
                    r"useful|relevant|interest\w*|level|experience\w*|knowledge|beginner|accessible|easy|"
                    r"complex|specialis\w*|specializ\w*|no prior|for)\b", re.I)
ASK = re.compile(r"^(what|which|how|why|when|where|who|whose|is|are|was|were|does|do|did|has|have|had|can|"
                 r"could|would|will|may|might|should|shall|any)\b", re.I)
WORDING = re.compile(r"\b(unclear|confus\w*|vague\w*|ambigu\w*|jargon|wording|worded|phrase\w*|sentence\w*|"
                     r"doesn't say|does not say|not clear|not sure|misleading|contradict\w*)\b", re.I)
NOTHING = re.compile(r"^\W*(nothing|none|no|n/?a|nope|clear|fine|all clear|it'?s clear|nothing confusing)\b", re.I)
ACTIONS = ("pay", "sign_return", "attend", "send_item", "info_only")


def _stems(text: str) -> set[str]:
    return {w.lower()[:4] for w in words(text) if len(w) >= 4 and w.lower() not in COMMON_WORDS}


def _shares_stem(text: str, source: str) -> bool:
    return bool(_stems(text) & _stems(source))


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def instructs_office(text: str, item: dict[str, str]) -> bool:
    """An instruction (ACTION) that refers to this request (its words, first four letters, or a TRADE word)."""
    return bool(ACTION.search(text)) and (_shares_stem(text, item.get("request_text", "")) or bool(TRADE.search(text)))


def gives_reason(text: str, item: dict[str, str]) -> bool:
    """A group or a reason named, and a word of this proposal (title, speaker, abstract)."""
    shown = f"{item.get('talk_title', '')} {item.get('speaker_role', '')} {item.get('abstract', '')}"
    return bool(GROUP.search(text) or REASON.search(text)) and _shares_stem(text, shown)


def corrects_line(text: str, item: dict[str, str]) -> bool:
    """Not the English shown, and a word of the line (its English or its original)."""
    return bool(_letters(text)) and _letters(text) != _letters(item.get("english", "")) \
        and _shares_stem(text, f"{item.get('english', '')} {item.get('original', '')}")


def _has_issue(item: dict[str, str]) -> bool:
    return bool(item.get("known_issue", "").strip())


def _copies(text: str, source: str, run: int = 6) -> bool:
    said, shown = _letters(text).split(), f" {_letters(source)} "
    return any(f" {' '.join(said[i:i + run])} " in shown for i in range(len(said) - run + 1))


def summarises_chat(text: str, item: dict[str, str]) -> bool:
    """A word of this chat, and no run of six words copied from it."""
    chat = item.get("chat", "")
    return _shares_stem(text, chat) and not _copies(text, chat)


def _is_question(text: str) -> bool:
    return "?" in text or bool(ASK.search(text.strip()))


def asks_about_letter(text: str, item: dict[str, str]) -> bool:
    """A question, with a word of this letter."""
    return _is_question(text) and _shares_stem(text, item.get("letter_text", ""))


def comments_wording(text: str, item: dict[str, str]) -> bool:
    """A word of this letter, a wording problem named, or "nothing confusing"."""
    return _shares_stem(text, item.get("letter_text", "")) or bool(WORDING.search(text)) or bool(NOTHING.search(text))


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
        right = sum(equal(v, items[i][gold]) for i, v in given)
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
        return {f"honest_{fld}_given": f"{len(filled)}/{len(given)}", f"{fld}_given_share": share(len(filled),
                                                                                                 len(given)),
                f"{fld}_given_within_and_answers": len(good), f"{fld}_given_all_share": share(len(good), len(filled))}
    return extra


def _n_words(fields: dict[str, str], fld: str) -> int:
    return len(words(fields.get(fld, "")))


def _blank(fld: str) -> Any:
    return lambda f: not f.get(fld, "").strip()


def _outside(fld: str, low: int, high: int) -> Any:
    return lambda f: fld in f and not low <= _n_words(f, fld) <= high


def _days_off(fields: dict[str, str]) -> bool:
    said = fields.get("days_reported", "").strip()
    try:
        return bool(said) and not (0 <= float(said) <= 365 and float(said) == int(float(said)))
    except ValueError:
        return True


def _near_days(said: str, known: str) -> bool:
    try:
        return abs(float(said) - float(known)) <= 1
    except ValueError:
        return False


def _overlap(said: str, known: str) -> bool:
    return bool(_ticks(said) & _ticks(known))


def _action(fields: dict[str, str]) -> str | None:
    """The chosen action however the ledger keeps the buttons: a field holding an action, or a button's own
    field set on (None: no action field on the ledger)."""
    for value in fields.values():
        if value.strip() in ACTIONS:
            return value.strip()
    on = [fld for fld in ACTIONS if fields.get(fld, "").strip().lower() in ("true", "on", "1", "yes")]
    if on:
        return on[0]
    return "" if any(fld in fields for fld in ACTIONS) or "choice" in fields else None


tenant_extra = _combine(
    whole_limit("tenant_repairs", "first_step", instructs_office, limit=(8, 30, True), folder=PAGES_DIR),
    approved_breaking({"first_step_outside_8_30": _outside("first_step", 8, 30),
                       "first_step_not_one_sentence": lambda f: bool(f.get("first_step", "").strip())
                       and not one_sentence(f["first_step"]),
                       "days_not_whole_0_365": _days_off, "urgency_blank": _blank("urgency")}),
    right_share("tenant_repairs", "trade", "gold_trade"),
    right_share("tenant_repairs", "urgency", "gold_urgency"),
    right_share("tenant_repairs", "days_reported", "gold_days", _near_days))
talks_extra = _combine(
    whole_limit("talk_abstracts", "why", gives_reason, limit=(5, 30, False), folder=PAGES_DIR),
    approved_breaking({"no_audience_ticked": _blank("audience"), "why_outside_5_30": _outside("why", 5, 30)}),
    right_share("talk_abstracts", "level", "gold_level"),
    right_share("talk_abstracts", "audience", "gold_audience", lambda s, k: _ticks(s) == _ticks(k)),
    right_share("talk_abstracts", "audience_overlap", "gold_audience", _overlap, lambda f: f.get("audience")))
menu_extra = _combine(
    whole_limit("menu_translations", "fixed_line", corrects_line, _has_issue, limit=(1, 20, False),
                folder=PAGES_DIR),
    honest_share("menu_translations", "fixed_line", "fixed_line_empty_on_correct", lambda v: not v.strip(),
                 lambda i: not _has_issue(i)),
    approved_breaking({"fix_verdict_blank_line": lambda f: f.get("verdict", "") in ("small_fix", "wrong")
                       and not f.get("fixed_line", "").strip(),
                       "fixed_line_over_20": _outside("fixed_line", 0, 20)}),
    right_share("menu_translations", "verdict", "gold_verdict"))
chats_extra = _combine(
    whole_limit("support_chats", "summary", summarises_chat, limit=(5, 15, False), folder=PAGES_DIR),
    approved_breaking({"summary_outside_5_15": _outside("summary", 5, 15), "politeness_blank": _blank("politeness")}),
    right_share("support_chats", "resolved", "gold_resolved"))
letters_extra = _combine(
    whole_limit("school_letters", "parent_question", asks_about_letter, limit=(6, 20, False), folder=PAGES_DIR),
    given_judged("school_letters", "confusing_wording", comments_wording, 25),
    approved_breaking({"no_action_chosen": lambda f: _action(f) == "",
                       "question_outside_6_20": _outside("parent_question", 6, 20),
                       "question_not_a_question": lambda f: bool(f.get("parent_question", "").strip())
                       and not _is_question(f["parent_question"])}),
    right_share("school_letters", "action", "gold_action", read=_action))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # page1: a full document, its own form; the 8-30 words and one sentence only stated
    _page("tenant_repairs", 1, ("trade", "urgency", "days_reported", "first_step"), texts={"first_step": TextField(
        8, instructs_office, "an instruction (ACTION verb first in a clause or after should/please/then...) that "
        "refers to this request (its words, first four letters, or a TRADE word)")},
          truth='{trade = "gold_trade"}', extra=tenant_extra),
    # page2: "at least one box" and the 5-30 word reason are a submit listener's on MTurk's form id
    _page("talk_abstracts", 2, ("level", "audience", "why"), texts={"why": TextField(
        5, gives_reason, "a group (students, developers, managers...) or a reason (because, assumes, basic, "
        "advanced...) named, and a word of this proposal (first four letters)")},
          truth='{level = "gold_level"}', extra=talks_extra),
    # page3: controls are the items file's own rows with a gold_verdict (the file the import writes)
    _page("menu_translations", 3, ("verdict",), texts={"fixed_line": TextField(
        1, corrects_line, "on lines with a known issue: not the English shown, and a word of the line (first "
        "four letters)", _has_issue)},
          keys={"controls": '"menu_translations_controls.csv"'}, controls=True, extra=menu_extra),
    # page4: a Prolific study page, its own controls file at a share
    _page("support_chats", 2, ("resolved", "politeness", "summary"), texts={"summary": TextField(
        5, summarises_chat, "a word of this chat (first four letters) and no run of six words copied from it")},
          keys={"controls": '"support_chats_controls.csv"', "control_share": "0.2"},
          truth='{resolved = "gold_resolved"}', controls=True, extra=chats_extra),
    # page5: crowd elements; the radio group (buttons each named) carries no required
    _page("school_letters", 1, ("parent_question",), texts={
        "parent_question": TextField(6, asks_about_letter, "a question ('?' or a question word first) with a "
                                     "word of this letter (first four letters)"),
        "confusing_wording": TextField(1, comments_wording, "optional: a word of the letter, a wording problem "
                                       "named, or 'nothing confusing'")}, extra=letters_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
