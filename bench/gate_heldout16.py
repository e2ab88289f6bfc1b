"""``make bench-gate-heldout16``: bench/gate_heldout.py's gate and rehearsal on a sixteenth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses named in its brief (bench/gate_heldout16/), each with a
30-item file of content of its own:

- error_messages: ONE software error message a page (the screen it shows on, ``app_area``, and its text), a full
  HTML document with its own CSS, its own ``<form>`` (``mturk_form``, MTurk's ``externalSubmit``), MTurk's
  ``assignmentId`` field and the usual ``turkGetParam`` script: "Does the message tell the user what to do
  next?" (yes / partly / no radios, ``required``; truth ``gold_next_step`` on 21 of the 30 rows, the clear yes
  and no ones), "How serious does this problem sound to an ordinary user?" (a ``<select required>`` of four,
  empty first option) and "Rewrite the message in plain words ... what happened and what the user can do ...
  No error codes, no technical terms. One or two sentences, at most 30 words." (a ``required`` textarea,
  ``maxlength="220"``, a live word counter); the form's ``onsubmit`` refuses a rewrite of fewer than 5 or
  more than 30 words; controls: the file ``hitflow new`` proposes from ``gold_next_step``
  (``error_messages_controls.csv``, 10 of the 21 rows), named in ``[answers] controls``, no share;
- debate_claims: ONE claim from an online discussion a page, a full HTML document for Prolific (its own CSS,
  a study header, ``<form id="studyForm">`` posting to a Prolific completion URL, hidden ``PROLIFIC_PID``,
  ``STUDY_ID`` and ``SESSION_ID`` filled from the URL): "How convincing is this claim as it is written?"
  (five star ``<button type="button">``s whose click listener writes a hidden ``convincing`` field, 1-5),
  "What kind of claim is it mainly?" (fact / prediction / value radios, ``required``; ``gold_type`` kept for
  a figure), "Write the strongest reply a reasonable person who disagrees could give to this claim ... in one
  or two sentences (15 to 40 words)" (a textarea, nothing in the HTML requires it) and "Optional: ... name the
  fact you would look up to know whether it is true (up to 20 words). Leave blank if there is nothing to
  check." (a text input, ``maxlength="150"``); a ``submit`` listener on the form by id refuses a page with no
  star clicked or a counter-argument of fewer than 15 words; no controls;
- meeting_minutes: TWO volunteer groups' meeting minutes a page, a plain ``${column}`` fragment with its own
  CSS and an "Instructions:" paragraph, each block showing the minutes and who was present (``person1`` to
  ``person4``): "Who agreed to take on a task? Tick all that apply (at least one box)." (five checkboxes
  sharing ``name="took_task"``, four of them ``value="${person1}"`` ... ``value="${person4}"``, the fifth
  "nobody"; none ``required``, no script: "at least one" is the instruction's only), "Did the meeting fix a
  date for its next meeting?" (yes / no radios, ``required``; truth ``gold_next_date``) and "Write the first
  task agreed in the minutes as a to-do line ... Who does what, and by when if the minutes give a date ...
  One sentence." (a ``required`` textarea, ``maxlength="200"``); ``gold_took_task`` (``|``-joined names, or
  ``nobody``) and ``gold_first_task`` ("Name: the task") kept for the figures and the judge; controls: a
  separate file of 12 minutes of its own (``meeting_minutes_controls.csv``) on ``next_date_set`` at a share
  of 0.2;
- card_transactions: FOUR bank-statement card lines a page, on MTurk's crowd HTML elements (``<crowd-form>``
  with ``<crowd-instructions>``: short summary, detailed instructions, a positive and a negative example):
  "What kind of spending is this?" (a ``crowd-radio-group id="category" required`` of seven
  ``crowd-radio-button``s, EACH WITH ITS OWN ``name`` as in MTurk's own samples; truth ``gold_category``),
  "Who was paid? Write the business's name as a customer would say it, up to 5 words" (a ``crowd-input``,
  ``max-length="40"``, ``required``) and one optional ``crowd-checkbox name="regular"`` ("This looks like a
  regular payment"; ``gold_regular`` kept for a figure); controls: a file of the requester's own pick, 12 rows
  of the items file itself by id (``card_transactions_controls.csv``, unmistakable lines: Tesco, Uber, a
  cash machine...) on ``category``, named in ``[answers] controls``, no share (the import's own proposal from
  ``gold_category`` is overwritten by it, as a requester copying their file in does);
- claim_checks: THREE encyclopedia paragraphs and a claim each a page, an MTurk ``HTMLQuestion`` XML wrapper
  (``claim_checks.xml``) whose CDATA is a full HTML document loading ``externalHIT_v1.js``, its own
  ``mturk_form`` and ``turkSetAssignmentID()``: "According to the paragraph, the claim is:" (supported /
  contradicted / not mentioned radios, ``required``; truth ``gold_verdict``, 13 / 11 / 6) and "Copy and paste
  the one sentence from the paragraph that shows your answer. Leave this empty if you chose 'not
  mentioned'." (a textarea, nothing requires it; "copy the sentence exactly as it is written"); ``gold_sentence``
  (the paragraph's sentence that shows it) kept for the judge; no controls.

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: error_messages next_step, severity, plain_rewrite; debate_claims convincing (the script's),
claim_type, counter (the script's: a blank counter has fewer than 15 words); meeting_minutes next_date_set,
todo (took_task's "at least one" is the instruction's only, nothing enforces it: off the ledger,
``no_box_ticked``); card_transactions merchant (category is required by the group's ``required``, but the
ledger keeps a group of separately named crowd buttons one field a button, none named ``category``: counted off
the ledger, ``no_category``, read from the buttons); claim_checks verdict (evidence is asked but
optional: off the ledger, ``verdict_without_evidence``). Off the ledger too, the script's requirements the
ledger may not see: error_messages ``rewrite_outside_5_30``; debate_claims ``no_stars``, ``counter_under_15``.

The free-text judges and limits, written before any run and without reading the simulator's, the import's or
QC's code (six kinds of question: a translation into plain words, a counter-argument, the fact one would
check, a to-do line (an instruction step), a one-line label (a business's name), the sentence of the text that
supports an answer). "A word of X" is a word sharing its first four letters with a 4+ letter word of X,
common words and the page's generic words aside:

- error_messages ``plain_rewrite`` (stated: one or two sentences, at most 30 words, no codes or technical
  terms; the script: 5 to 30 words; required): answers when it is at most two sentences, holds none of this
  message's codes or technical terms (a token of the message with both letters and digits, a ``0x`` number,
  an all-capitals token of 3+ letters, a number of 3+ digits, or a word of TECH) and has a word of this
  message or its screen (the generic words of error messages aside: error, wrong, problem, again, please...).
- debate_claims ``counter`` (stated: one or two sentences, 15 to 40 words, answering the point this claim
  makes): answers when it is at most two sentences, disagrees (a word of COUNTER: but, however, not, n't,
  actually, ignores, evidence, instead, depends...) and has a word of this claim or its topic.
- debate_claims ``fact_to_check`` (optional; stated: up to 20 words, blank if nothing to check): of the
  answers given, those of at most 20 words that have a word of this claim, or say there is nothing to check;
  its figure is over the answers given, with the share given beside it.
- meeting_minutes ``todo`` (stated: who does what, by when if a date is given, one sentence; the box holds 200
  characters; required): answers when it names the first task's owner (a first or last name of the name
  before ``gold_first_task``'s colon) and has a word of that task (names and generic meeting words aside),
  and is one sentence; on the one minutes where nobody took a task, when it says so (nobody, no one, none,
  no task...).
- card_transactions ``merchant`` (stated: the business's name as a customer would say it, up to 5 words, not
  the whole line or the branch number): answers when it names ``gold_merchant`` (the two run together
  without spaces or punctuation, either within the other; a 4+ letter word's first four letters shared; or
  the name's initials, "TfL") and holds no number of 3+ digits of the statement line.
- claim_checks ``evidence`` (stated: the one sentence of the paragraph that shows the answer, copied as
  written; empty on "not mentioned"), on the claims whose ``gold_verdict`` is not ``not_mentioned``: answers
  when it is one sentence, holds at least 60% of ``gold_sentence``'s words, and at least 80% of its own words
  are the paragraph's (copied, not retold). On the not-mentioned claims the figure is instead the share of
  honest answers left empty, as the page asks (``evidence_empty_on_not_mentioned``).

The runner's limit is each field's stated minimum (1 where only a maximum is stated; 5 and 15 where the page's
script states one); each page's extra line adds the whole stated limit and the share within it that also
answers (meeting_minutes' 200 characters as 40 words; claim_checks states no maximum: 80, which no sentence
of a paragraph reaches). Further figures, off the ledger: error_messages honest ``next_step`` equal to the
gold, approved rewrites outside 5 to 30 words; debate_claims honest ``claim_type`` equal to ``gold_type``,
approved pages with no stars, a counter under 15 or over 40 words, a fact to check over 20 words;
meeting_minutes honest ``next_date_set`` and honest ``took_task`` sets equal to the gold, approved blocks with
no box ticked, with "nobody" and a name ticked, a to-do over 200 characters; card_transactions honest
categories and ``regular`` ticks equal to the gold, approved merchants over 5 words; claim_checks honest
verdicts equal to the gold, approved "not mentioned" with evidence, approved supported/contradicted with none.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout16.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout16.py``) it finds
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
from bench.gate_heldout3 import STOP, one_sentence
from bench.gate_heldout4 import _items, cli, whole_limit
from bench.gate_heldout5 import _given, _ticks, approved_breaking
from bench.gate_heldout6 import _combine

PAGES_DIR = ROOT / "bench" / "gate_heldout16"
RESULTS = ROOT / "bench" / "results-gate-heldout16.json"

COMMON_WORDS = STOP | {"about", "would", "could", "should", "just", "your", "yours", "very", "really", "please",
                       "them", "than", "only", "also", "like", "more", "most", "much", "each", "every", "other",
                       "does", "because", "good", "here", "need", "needs", "make", "know", "want", "this",
                       "these", "those", "what", "which", "will", "there", "their", "they", "with", "from",
                       "have", "been", "were", "when", "where", "then", "that", "into", "after", "before"}
ERROR_WORDS = {"error", "errors", "message", "wrong", "went", "problem", "problems", "again", "something", "sorry",
               "user", "users", "failed", "fail", "failure", "cannot", "can't", "couldn't", "could", "unable",
               "happened", "happen", "issue", "issues", "work", "working", "works", "trying", "tried", "later"}
CLAIM_WORDS = {"people", "person", "everyone", "everybody", "nobody", "thing", "things", "claim", "argument",
               "true", "false", "fact", "facts", "really", "actually", "always", "never", "years", "year", "time"}
MEETING_WORDS = {"task", "tasks", "will", "agreed", "agree", "meeting", "meetings", "next", "minutes", "group",
                 "committee", "date", "week", "month", "today", "tomorrow", "first", "before", "until",
                 "todo", "to-do"}
TECH = re.compile(r"\b(smtp|https?|mime|enospc|upnp|nat|unhandled|exception|octet-stream|internal server|"
                  r"access violation|authentication|0x[0-9a-f]+|errno|null|server error|error code)\b", re.I)
# letters with digits (E4012, CE-34878-0), dotted codes (5.3.4); "6-digit" and file sizes are plain words
CODE_TOKEN = re.compile(r"^(?!\d+-[a-z]+$)(?=.*\d)(?=.*[a-z]).+$|^0x[0-9a-f]+$|^\d+(\.\d+){2,}$", re.I)
# a number that is a code: after a code word or an all-capitals name (SMTP 552, HTTP 500, error -36), or "(403)"
CODE_NUMBER = re.compile(r"(?:\b(?i:error|code|ref)\b\s*:?\s*|\b[A-Z]{3,}\s+|\()(-?\d{2,})")
PLAIN_CAPS = {"pdf", "usb", "pin", "atm", "wifi"}
COUNTER = re.compile(
    r"\b(but|however|yet|although|though|whereas|while|actually|in fact|not|no|never|nothing|none|isn't|aren't|"
    r"wasn't|weren't|doesn't|don't|didn't|won't|wouldn't|can't|cannot|couldn't|shouldn't|\w+n't|ignores?|"
    r"ignoring|overlooks?|forgets?|misses|instead|rather|unless|even if|evidence|studies|study|research|data|"
    r"depends?|wrong|untrue|false|exaggerat\w*|overstat\w*|oversimplif\w*|unfair|fewer|less|other|others|"
    r"alternatively|on the other hand|counter\w*|disagree\w*|doubt\w*|unlikely|might|may|could)\b", re.I)
NOTHING = re.compile(r"^\W*(none|nothing|no|n/?a|nothing to check|there is nothing to check|-)\W*$", re.I)
NOBODY = re.compile(r"\b(nobody|no one|no-one|none|no task|no tasks|nothing|not anyone|no volunteers?)\b", re.I)
OFF = ("", "false", "0", "off", "no", "none", "null")
CATEGORIES = ("groceries", "eating_out", "transport", "bills", "shopping", "cash", "other")


def _stems(text: str, generic: frozenset[str] | set[str] = frozenset()) -> set[str]:
    return {w.lower()[:4] for w in words(text)
            if len(w) >= 4 and w.lower() not in COMMON_WORDS and w.lower() not in generic}


def _shares_stem(text: str, source: str, generic: frozenset[str] | set[str] = frozenset()) -> bool:
    return bool(_stems(text, generic) & _stems(source, generic))


def _sentences(text: str) -> int:
    return len([s for s in re.split(r"[.!?]+(?:\s+|$)", text.strip()) if s.strip()])


def _tokens(text: str) -> set[str]:
    return {t.strip(".,-/;:!?()\"'").lower() for t in re.findall(r"[\w.\-/']+", text)} - {""}


def _codes(message: str) -> set[str]:
    """The message's codes and technical tokens: letters with digits, 0x numbers, dotted codes, numbers after a
    code word or in brackets, all-capitals names of 3+ letters (PDF and the like aside)."""
    found = {t for t in _tokens(message) if CODE_TOKEN.match(t)}
    found |= {n.lstrip("-") for n in CODE_NUMBER.findall(message)}
    return found | ({t.lower() for t in re.findall(r"\b[A-Z]{3,}\b", message)} - PLAIN_CAPS)


def plain_rewrite_answers(text: str, item: dict[str, str]) -> bool:
    """At most two sentences, none of this message's codes or TECH's terms, a word of this message or screen."""
    said = _tokens(text) | {t.lstrip("-") for t in _tokens(text)}
    return (0 < _sentences(text) <= 2 and not (said & _codes(item.get("message", ""))) and not TECH.search(text)
            and _shares_stem(text, f"{item.get('message', '')} {item.get('app_area', '')}", ERROR_WORDS))


def counter_answers(text: str, item: dict[str, str]) -> bool:
    """At most two sentences, a word of COUNTER (disagreeing), and a word of this claim or its topic."""
    return (0 < _sentences(text) <= 2 and bool(COUNTER.search(text))
            and _shares_stem(text, f"{item.get('claim', '')} {item.get('topic', '')}", CLAIM_WORDS))


def fact_answers(text: str, item: dict[str, str]) -> bool:
    """Optional: a word of this claim (at most 20 words), or "nothing to check" said."""
    return bool(NOTHING.search(text.strip())) or (len(words(text)) <= 20 and _shares_stem(
        text, f"{item.get('claim', '')} {item.get('topic', '')}", CLAIM_WORDS))


def todo_answers(text: str, item: dict[str, str]) -> bool:
    """One sentence naming the first task's owner and a word of that task; "nobody" where nobody took one."""
    if item.get("gold_took_task", "").strip() == "nobody":
        return bool(NOBODY.search(text))
    owner, _, task = item.get("gold_first_task", "").partition(":")
    names = {w.lower() for w in words(owner) if len(w) >= 2}
    people = {w.lower() for n in ("person1", "person2", "person3", "person4") for w in words(item.get(n, ""))}
    said = {w.lower() for w in words(text)}
    return (one_sentence(text) and bool(names & said)
            and _shares_stem(text, task, MEETING_WORDS | people))


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def merchant_answers(text: str, item: dict[str, str]) -> bool:
    """Names gold_merchant (run together, within each other; a 4-letter stem; its initials) and holds no 3+
    digit number of the statement line (a branch number)."""
    gold, said = item.get("gold_merchant", ""), _squash(text)
    line_numbers = set(re.findall(r"\d{3,}", item.get("statement_line", "")))
    if not said or line_numbers & set(re.findall(r"\d{3,}", text)):
        return False
    initials = "".join(w[0] for w in words(gold) if w[:1].isalpha()).lower()
    stems = {_squash(w)[:4] for w in words(gold) if len(_squash(w)) >= 4}
    return (_squash(gold) in said or (len(said) >= 2 and said in _squash(gold))
            or bool(stems & {_squash(w)[:4] for w in words(text) if len(_squash(w)) >= 4})
            or (len(initials) >= 2 and initials in {_squash(w) for w in words(text)}))


def evidence_answers(text: str, item: dict[str, str]) -> bool:
    """One sentence holding 60% of gold_sentence's words, 80% of its own words the paragraph's."""
    said = [w.lower() for w in words(text)]
    gold = {w.lower() for w in words(item.get("gold_sentence", ""))}
    para = {w.lower() for w in words(item.get("paragraph", ""))}
    if not said or not gold:
        return False
    return (one_sentence(text) and len(gold & set(said)) >= 0.6 * len(gold)
            and sum(w in para for w in said) >= 0.8 * len(said))


def _verdict_is(item: dict[str, str], *values: str) -> bool:
    return item.get("gold_verdict", "").strip() in values


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


def _under(fld: str, least: int) -> Any:
    return lambda f: fld in f and _n_words(f, fld) < least


def _nobody_and_a_name(fields: dict[str, str]) -> bool:
    ticks = _ticks(fields.get("took_task", ""))
    return "nobody" in ticks and len(ticks) > 1


def _category(fields: dict[str, str]) -> str | None:
    """The line's category however the ledger keeps the group of separately named crowd buttons (None: not on
    the ledger)."""
    if "category" in fields:
        return fields["category"].strip()
    on = [c for c in CATEGORIES if fields.get(c, "").strip().lower() not in OFF]
    return on[0] if on else ("" if any(c in fields for c in CATEGORIES) else None)


def _regular(fields: dict[str, str]) -> str | None:
    if "regular" not in fields:
        return None
    return "no" if fields["regular"].strip().lower() in OFF else "yes"


def _verdict(fields: dict[str, str]) -> str:
    return fields.get("verdict", "").strip().lower()


errors_extra = _combine(
    whole_limit("error_messages", "plain_rewrite", plain_rewrite_answers, limit=(5, 30, False), folder=PAGES_DIR),
    approved_breaking({"rewrite_outside_5_30": _outside("plain_rewrite", 5, 30),
                       "rewrite_blank": _blank("plain_rewrite"), "severity_blank": _blank("severity")}),
    right_share("error_messages", "next_step", "gold_next_step"))
claims_extra = _combine(
    whole_limit("debate_claims", "counter", counter_answers, limit=(15, 40, False), folder=PAGES_DIR),
    given_judged("debate_claims", "fact_to_check", fact_answers, 20),
    approved_breaking({"no_stars": _blank("convincing"), "counter_under_15": _under("counter", 15),
                       "counter_over_40": _outside("counter", 0, 40),
                       "fact_over_20": _outside("fact_to_check", 0, 20)}),
    right_share("debate_claims", "claim_type", "gold_type"))
minutes_extra = _combine(
    whole_limit("meeting_minutes", "todo", todo_answers, limit=(1, 40, True), folder=PAGES_DIR),
    approved_breaking({"no_box_ticked": _blank("took_task"), "nobody_and_a_name": _nobody_and_a_name,
                       "todo_over_200_chars": lambda f: len(f.get("todo", "")) > 200,
                       "next_date_blank": _blank("next_date_set")}),
    right_share("meeting_minutes", "next_date_set", "gold_next_date"),
    right_share("meeting_minutes", "took_task", "gold_took_task", lambda s, k: _ticks(s) == _ticks(k)))
cards_extra = _combine(
    whole_limit("card_transactions", "merchant", merchant_answers, limit=(1, 5, False), folder=PAGES_DIR),
    approved_breaking({"merchant_over_5": _outside("merchant", 0, 5),
                       "no_category": lambda f: _category(f) == ""}),
    right_share("card_transactions", "category", "gold_category", read=_category),
    right_share("card_transactions", "regular", "gold_regular", read=_regular))
checks_extra = _combine(
    whole_limit("claim_checks", "evidence", evidence_answers,
                lambda i: _verdict_is(i, "supported", "contradicted"), limit=(1, 80, True), folder=PAGES_DIR),
    honest_share("claim_checks", "evidence", "evidence_empty_on_not_mentioned", lambda v: not v.strip(),
                 lambda i: _verdict_is(i, "not_mentioned")),
    approved_breaking({"not_mentioned_with_evidence": lambda f: _verdict(f) == "not_mentioned"
                       and bool(f.get("evidence", "").strip()),
                       "verdict_without_evidence": lambda f: _verdict(f) in ("supported", "contradicted")
                       and not f.get("evidence", "").strip()}),
    right_share("claim_checks", "verdict", "gold_verdict"))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # one item; a full document with its own form; 5-30 words by the form's onsubmit; the proposed controls
    _page("error_messages", 1, ("next_step", "severity", "plain_rewrite"), texts={
        "plain_rewrite": TextField(5, plain_rewrite_answers, "at most two sentences, none of the message's codes "
                                   "or technical terms, a word of this message or its screen (generic error "
                                   "words aside)")},
          keys={"controls": '"error_messages_controls.csv"'}, truth='{next_step = "gold_next_step"}',
          controls=True, extra=errors_extra),
    # one item; Prolific's document; a star widget's script writes a hidden field; the stars and the
    # counter-argument's 15 words are a submit listener's only; an optional box
    _page("debate_claims", 1, ("convincing", "claim_type", "counter"), texts={
        "counter": TextField(15, counter_answers, "at most two sentences, disagreeing (but, not, n't, however, "
                             "ignores, evidence...) and a word of this claim or topic"),
        "fact_to_check": TextField(0, fact_answers, "optional: a word of this claim (<= 20 words), or "
                                   "'nothing to check'")},
          truth='{claim_type = "gold_type"}', extra=claims_extra),
    # two a page; a checkbox group whose options are the item's names, "at least one" by instruction only;
    # separate controls at a share
    _page("meeting_minutes", 2, ("next_date_set", "todo"), texts={
        "todo": TextField(1, todo_answers, "one sentence naming the first task's owner and a word of that task; "
                          "'nobody' where nobody took one")},
          keys={"controls": '"meeting_minutes_controls.csv"', "control_share": "0.2"},
          truth='{next_date_set = "gold_next_date"}', controls=True, extra=minutes_extra),
    # four a page; crowd elements, the radio buttons each with its own name (kept one field a button, so the
    # category's blank is counted off the ledger); the requester's own controls by id
    _page("card_transactions", 4, ("merchant",), texts={
        "merchant": TextField(1, merchant_answers, "names gold_merchant (squashed, a 4-letter stem or its "
                              "initials), no branch number")},
          keys={"controls": '"card_transactions_controls.csv"'}, truth='{category = "gold_category"}',
          controls=True, extra=cards_extra),
    # three a page; an HTMLQuestion wrapper; the evidence box asked but optional
    _page("claim_checks", 3, ("verdict",), texts={"evidence": TextField(
        1, evidence_answers, "on supported/contradicted claims: one sentence holding 60% of gold_sentence's "
        "words, 80% of its words the paragraph's", lambda item: _verdict_is(item, "supported", "contradicted"))},
          truth='{verdict = "gold_verdict"}', extra=checks_extra, source=".xml"),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
