"""``make bench-gate-heldout17``: bench/gate_heldout.py's gate and rehearsal on a seventeenth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harnesses named in its brief (bench/gate_heldout17/), each with a
30-item file of content of its own:

- parking_rules: ONE street parking sign a page (its ``location``, the sign's text typed out, ``sign_text``, and a
  driver's situation, ``scenario``: a day and an arrival time), a full HTML document with its own CSS, its own
  ``<form>`` (``mturk_form``, MTurk's ``externalSubmit``, ``onsubmit="return checkAnswers();"``), MTurk's
  ``assignmentId`` field and the usual ``turkGetParam`` script: "Is the driver allowed to park here at that
  time?" (yes / no radios, ``required``; truth ``gold_allowed``, 18 yes / 12 no), "If yes: what is the latest
  time the driver can leave the car there ...? Work it out from the sign and the arrival time. Write a clock
  time, for example 4:30 pm or 16:30. Leave this empty if you answered No." (a text input, ``maxlength="12"``,
  nothing in the HTML requires it) and "How easy was this sign to understand?" (a ``<select required>`` of
  four, empty first option); the form's ``onsubmit`` refuses "yes" with the time left empty, and a time that is
  not a clock time (its regex: ``h``, ``h:mm``, ``h.mm`` with an optional am/pm, or midnight / noon);
  ``gold_leave_by`` (24-hour ``HH:MM``, worked out from the arrival time and the sign) kept for the judge;
  controls: the file ``hitflow new`` proposes from ``gold_allowed`` (``parking_rules_controls.csv``, 10 of the 30
  rows), named in ``[answers] controls``, no share;
- contract_clauses: TWO freelance-contract clauses a page, a plain ``${column}`` fragment with its own CSS and an
  "Instructions:" paragraph (which says "at least one box in question 2"): "What is this clause mainly about?"
  (payment / deadlines / ownership / confidentiality / ending radios, ``required``; truth ``gold_type``), "Which
  of these does the clause ask the FREELANCER to do? Tick all that apply (at least one)." (five checkboxes
  sharing ``name="duties"``, four ``value="${option1}"`` ... ``value="${option4}"`` from the item, the fifth
  "none"; none ``required``, no script: "at least one" is the instructions' only) and 'In this clause, what does
  "${term}" mean? Explain it in your own words, as you would to a friend. Between 5 and 20 words. Don't just
  copy the clause.' (a ``required`` textarea; the range only stated in prose); ``gold_duties`` (``|``-joined
  options, or ``none``) and ``gold_meaning`` (``|``-joined words an explanation of the term uses) kept for the
  figures and the judge; controls: a separate file of 12 clauses of its own (``contract_clauses_controls.csv``)
  on ``clause_type`` at a share of 0.2;
- membership_terms: ONE section of a gym's membership terms a page, its old and new versions side by side, a
  full HTML document for Prolific (its own CSS, a study header, ``<form id="studyForm">`` posting to a Prolific
  completion URL, hidden ``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID`` filled from the URL by a
  ``forEach`` over their ids): "In one sentence, what is different in the new version? Describe the change
  itself ..., not the whole section. At most 30 words." (a textarea, ``maxlength="250"``, nothing in the HTML
  requires it), "For a member, is the new version better, worse, or no real difference?" (better / worse / same
  radios, ``required``; truth ``gold_direction``, 13 / 13 / 4), "How much would this change matter to a
  typical member?" (five star ``<button type="button">``s whose click listener writes a hidden ``impact``
  field, 1-5) and "Optional: which members would be hit hardest by this change? ... Up to 12 words. Leave blank
  if nobody in particular." (a text input); a ``submit`` listener on the form by id refuses a change described
  in fewer than 5 words, or no star clicked; ``gold_change`` (``|``-joined words and figures that name the
  change) kept for the judge; no controls (the import's proposal from ``gold_direction`` is left unnamed);
- lost_property: FOUR lost-property log entries a page (where and when found, and the staff's rushed note), on
  MTurk's crowd HTML elements (``<crowd-form>`` with ``<crowd-instructions>``: short summary, detailed
  instructions, a positive and a negative example): "What kind of item is it?" (a ``crowd-radio-group
  required`` of six ``crowd-radio-button``s, EACH WITH ITS OWN ``name``, as MTurk's samples; the dry run names
  the group one field, ``choice``; truth ``gold_category`` as ``choice``), "What would the owner type into the
  search box to find it? (2 to 6 words)" (a ``crowd-input``, ``max-length="50"``, ``required``; the
  instructions: ordinary words, what makes it different, not the whole note) and one optional
  ``crowd-checkbox name="valuable"``; ``gold_item`` (words naming the kind of thing), ``gold_detail`` (its
  colour, brand or name) and ``gold_valuable`` kept for the judge and figures; no controls;
- noticeboard_posts: THREE community-noticeboard posts a page, an MTurk ``HTMLQuestion`` XML wrapper
  (``noticeboard_posts.xml``) whose CDATA is a full HTML document loading ``externalHIT_v1.js``, its own
  ``mturk_form`` and ``turkSetAssignmentID()``: "Is the poster mainly offering something, asking for something,
  or announcing something?" (three radios, ``required``; truth ``gold_kind``), "Does the post give a date or
  deadline?" (yes / no radios, ``required``; ``gold_date`` kept for a figure) and "What does the poster want a
  reader to actually do? One short sentence, at most 15 words" (a ``required`` textarea, ``maxlength="120"``);
  ``gold_action`` (``|``-joined words of what the reader is asked to do) kept for the judge; controls: a
  separate file of 10 posts of its own (``noticeboard_posts_controls.csv``) on ``post_kind``, named in
  ``[answers] controls``, no share (mixed in at the docs' 0.1).

"Required" for the gate's required-blank figure is the page as a person's browser enforces it, its script
included: parking_rules allowed, clarity (leave_by only after "yes", the script's: off the ledger,
``yes_without_time``); contract_clauses clause_type, term_meaning (duties' "at least one" is the instructions'
only, nothing enforces it: off the ledger, ``no_box_ticked``); membership_terms direction, impact (the script's),
what_changed (the script's: a blank has fewer than 5 words); lost_property search_words (the kind is required
by the group's ``required``, and the dry run names the group one field, ``choice``, but the ledger keeps it one
field a button, none named ``choice``: counted off the ledger, ``no_category``, read from the buttons);
noticeboard_posts post_kind, has_date, reader_action. Off the ledger too, the script's requirements the ledger
may not see: parking_rules ``time_not_clock``; membership_terms ``no_stars``, ``changed_under_5``.

The free-text judges and limits, written before any run and without reading the simulator's, the import's or
QC's code (five kinds of question: a time worked out from a rule, the meaning of a term in context, what
changed between two versions, who is affected most, a search query a person would type, what a writer wants
the reader to do). "A word of X" is a word equal to, or starting with, one of X's ``|``-listed words (3+
letters), or holding one of its phrases or figures:

- parking_rules ``leave_by`` (stated: a clock time, worked out; the box holds 12 characters; the script: a clock
  time after "yes"), on the signs whose ``gold_allowed`` is yes: answers when it holds a clock time and every
  time it holds is ``gold_leave_by`` (5:15 pm, 17:15, 5.15pm, 1715 read alike; a time without am/pm answers when either
  reading is the gold; midnight for 00:00, noon for 12:00). On the "no" signs the figure is instead the share of
  honest answers left empty, as the page asks (``leave_by_empty_on_no``).
- contract_clauses ``term_meaning`` (stated: 5 to 20 words, own words, not the clause copied; required): answers
  when it is at most two sentences, has a word of ``gold_meaning``, says more than the term (three words besides
  the term's own), and holds no run of eight words of the clause (copied).
- membership_terms ``what_changed`` (stated: one sentence, at most 30 words, the change not the whole section;
  the script: 5 words or more): answers when it is one sentence, has a word of ``gold_change``, and is not
  either version copied whole (90% of a version's words, at 80% of its length or more).
- membership_terms ``hardest_hit`` (optional; stated: up to 12 words, blank if nobody in particular): of the
  answers given, those of at most 12 words that name a group of people (WHO: members, people, those, families,
  parents, students, swimmers, anyone who...) or a 4+ letter word of this section's versions, or say nobody;
  its figure is over the answers given, with the share given beside it.
- lost_property ``search_words`` (stated: 2 to 6 words, ordinary words, the kind of thing and what makes it
  different, not the whole note; required): answers when it has a word of ``gold_item`` and a word of
  ``gold_detail``.
- noticeboard_posts ``reader_action`` (stated: one short sentence, at most 15 words; required): answers when it
  is one sentence and has a word of ``gold_action``.

The runner's limit is each field's stated minimum (1 where only a maximum is stated; 5 where the page's script
states one); each page's extra line adds the whole stated limit and the share within it that also answers
(parking_rules' 12 characters as 4 words). Further figures, off the ledger: parking_rules honest ``allowed``
equal to the gold, honest times in the script's clock format, approved "yes" without a time, "no" with one, a
time the script refuses; contract_clauses honest ``clause_type`` and ``duties`` sets equal to the gold,
approved blocks with no box ticked, with "none" and a duty ticked, a meaning outside 5 to 20 words;
membership_terms honest ``direction`` equal to the gold, approved pages with no stars, a change under 5 or over
30 words, a hardest-hit over 12 words; lost_property honest categories and ``valuable`` ticks equal to the
gold, approved search words over 6 words, no category; noticeboard_posts honest ``post_kind`` and ``has_date``
equal to the gold, approved actions over 15 words.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout17.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout17.py``) it finds
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

PAGES_DIR = ROOT / "bench" / "gate_heldout17"
RESULTS = ROOT / "bench" / "results-gate-heldout17.json"

# the page's own script's clock-time check, as written in parking_rules.html
CLOCK = re.compile(r"^(\d{1,2}([:.]\d{2})?\s*(am|pm|a\.m\.|p\.m\.)?|midnight|noon|12 midnight|12 noon)$", re.I)
TIME = re.compile(r"\b(\d{1,2})(?:[:.](\d{2})|(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?(?![\w:])|\b(midnight|noon|midday)\b",
                  re.I)
WHO = re.compile(r"\b(people|person|members?|those|anyone|anybody|someone|everyone|famil(y|ies)|parents?|mums?|dads?|"
                 r"students?|kids|children|teens?|teenagers?|juniors?|swimmers?|drivers?|users?|customers?|"
                 r"workers?|commuters?|pensioners?|elderly|older|younger|beginners?|new|regulars?|visitors?|"
                 r"guests?|nobody|no one|none)\b", re.I)
OFF = ("", "false", "0", "off", "no", "none", "null")
CATEGORIES = ("bag", "phone", "wallet", "keys", "clothing", "other")


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


def _minutes(hour: int, minute: int, half: str) -> set[int]:
    """The minutes past midnight a written time can mean (both readings where no am/pm is given)."""
    if hour > 24 or minute > 59:
        return set()
    if half.startswith("a"):
        return {(hour % 12) * 60 + minute}
    if half.startswith("p"):
        return {(hour % 12 + 12) * 60 + minute}
    if hour == 24 or hour == 0 or hour > 12:
        return {(hour % 24) * 60 + minute}
    return {(hour % 12) * 60 + minute, (hour % 12 + 12) * 60 + minute}


def _times(text: str) -> list[set[int]]:
    found = []
    for hour, mins, run_on, half, word in TIME.findall(text):
        if word:
            found.append({0} if word.lower() == "midnight" else {720})
        else:
            found.append(_minutes(int(hour), int(mins or run_on or 0), (half or "").lower().replace(".", "")))
    return [f for f in found if f]


def leave_by_answers(text: str, item: dict[str, str]) -> bool:
    """A clock time, and every time it holds is gold_leave_by (either reading of a time without am/pm), so
    "5:15 pm (17:15)" answers and "5:15 pm or 5:45 pm" does not."""
    gold_h, _, gold_m = item.get("gold_leave_by", "").partition(":")
    if not gold_h.strip().isdigit() or not gold_m.strip().isdigit():
        return False
    gold = int(gold_h) * 60 + int(gold_m)
    found = _times(text)
    return bool(found) and all(gold in f for f in found)


def _runs(text: str, n: int) -> set[tuple[str, ...]]:
    said = [w.lower() for w in words(text)]
    return {tuple(said[k:k + n]) for k in range(len(said) - n + 1)}


def meaning_answers(text: str, item: dict[str, str]) -> bool:
    """At most two sentences, a word of gold_meaning, three words besides the term's, no 8-word run of the clause."""
    term = {w.lower() for w in words(item.get("term", ""))}
    rest = [w for w in words(text) if w.lower() not in term]
    sentences = [s for s in re.split(r"[.!?]+(?:\s+|$)", text.strip()) if s.strip()]
    return (0 < len(sentences) <= 2 and len(rest) >= 3 and has_word_of(text, _listed(item, "gold_meaning"))
            and not (_runs(text, 8) & _runs(item.get("clause", ""), 8)))


def _copied(text: str, version: str) -> bool:
    said, shown = [w.lower() for w in words(text)], [w.lower() for w in words(version)]
    return bool(shown) and len(said) >= 0.8 * len(shown) and len(set(said) & set(shown)) >= 0.9 * len(set(shown))


def changed_answers(text: str, item: dict[str, str]) -> bool:
    """One sentence, a word of gold_change, not either version copied whole."""
    return (one_sentence(text) and has_word_of(text, _listed(item, "gold_change"))
            and not _copied(text, item.get("new_text", "")) and not _copied(text, item.get("old_text", "")))


def hardest_answers(text: str, item: dict[str, str]) -> bool:
    """A group of people (WHO) or a 4+ letter word of the section's versions, or "nobody"."""
    shown = {w.lower() for w in words(f"{item.get('old_text', '')} {item.get('new_text', '')}") if len(w) >= 4}
    return bool(WHO.search(text)) or bool(shown & {w.lower() for w in words(text)})


def search_answers(text: str, item: dict[str, str]) -> bool:
    """A word of gold_item (the kind of thing) and a word of gold_detail (what makes it different)."""
    return has_word_of(text, _listed(item, "gold_item")) and has_word_of(text, _listed(item, "gold_detail"))


def action_answers(text: str, item: dict[str, str]) -> bool:
    """One sentence with a word of gold_action."""
    return one_sentence(text) and has_word_of(text, _listed(item, "gold_action"))


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


def _is(column: str, *values: str) -> Any:
    return lambda item: item.get(column, "").strip() in values


def _n_words(fields: dict[str, str], fld: str) -> int:
    return len(words(fields.get(fld, "")))


def _blank(fld: str) -> Any:
    return lambda f: fld in f and not f[fld].strip()


def _outside(fld: str, low: int, high: int) -> Any:
    return lambda f: bool(f.get(fld, "").strip()) and not low <= _n_words(f, fld) <= high


def _under(fld: str, least: int) -> Any:
    return lambda f: fld in f and _n_words(f, fld) < least


def _allowed(fields: dict[str, str]) -> str:
    return fields.get("allowed", "").strip().lower()


def _none_and_a_duty(fields: dict[str, str]) -> bool:
    ticks = _ticks(fields.get("duties", ""))
    return "none" in ticks and len(ticks) > 1


def _category(fields: dict[str, str]) -> str | None:
    """The item's kind however the ledger keeps the group of separately named crowd buttons (None: not there)."""
    for name in ("choice", "category"):
        if name in fields:
            return fields[name].strip()
    on = [c for c in CATEGORIES if fields.get(c, "").strip().lower() not in OFF]
    return on[0] if on else ("" if any(c in fields for c in CATEGORIES) else None)


def _valuable(fields: dict[str, str]) -> str | None:
    if "valuable" not in fields:
        return None
    return "no" if fields["valuable"].strip().lower() in OFF else "yes"


parking_extra = _combine(
    whole_limit("parking_rules", "leave_by", leave_by_answers, _is("gold_allowed", "yes"), limit=(1, 4, False),
                folder=PAGES_DIR),
    honest_share("parking_rules", "leave_by", "leave_by_empty_on_no", lambda v: not v.strip(),
                 _is("gold_allowed", "no")),
    honest_share("parking_rules", "leave_by", "leave_by_clock_format", lambda v: bool(CLOCK.match(v.strip())),
                 _is("gold_allowed", "yes")),
    approved_breaking({"yes_without_time": lambda f: _allowed(f) == "yes" and not f.get("leave_by", "").strip(),
                       "no_with_time": lambda f: _allowed(f) == "no" and bool(f.get("leave_by", "").strip()),
                       "time_not_clock": lambda f: bool(f.get("leave_by", "").strip())
                       and not CLOCK.match(f["leave_by"].strip()),
                       "clarity_blank": _blank("clarity")}),
    right_share("parking_rules", "allowed", "gold_allowed"))
clauses_extra = _combine(
    whole_limit("contract_clauses", "term_meaning", meaning_answers, limit=(5, 20, False), folder=PAGES_DIR),
    approved_breaking({"no_box_ticked": lambda f: not _ticks(f.get("duties", "")),
                       "none_and_a_duty": _none_and_a_duty,
                       "meaning_outside_5_20": _outside("term_meaning", 5, 20),
                       "clause_type_blank": _blank("clause_type")}),
    right_share("contract_clauses", "clause_type", "gold_type"),
    right_share("contract_clauses", "duties", "gold_duties", lambda s, k: _ticks(s) == _ticks(k)))
terms_extra = _combine(
    whole_limit("membership_terms", "what_changed", changed_answers, limit=(5, 30, True), folder=PAGES_DIR),
    given_judged("membership_terms", "hardest_hit", hardest_answers, 12),
    approved_breaking({"no_stars": _blank("impact"), "changed_under_5": _under("what_changed", 5),
                       "changed_over_30": _outside("what_changed", 0, 30),
                       "hardest_over_12": _outside("hardest_hit", 0, 12)}),
    right_share("membership_terms", "direction", "gold_direction"))
lost_extra = _combine(
    whole_limit("lost_property", "search_words", search_answers, limit=(2, 6, False), folder=PAGES_DIR),
    approved_breaking({"search_over_6": _outside("search_words", 0, 6),
                       "no_category": lambda f: _category(f) == ""}),
    right_share("lost_property", "choice", "gold_category", read=_category),
    right_share("lost_property", "valuable", "gold_valuable", read=_valuable))
posts_extra = _combine(
    whole_limit("noticeboard_posts", "reader_action", action_answers, limit=(1, 15, True), folder=PAGES_DIR),
    approved_breaking({"action_over_15": _outside("reader_action", 0, 15),
                       "has_date_blank": _blank("has_date")}),
    right_share("noticeboard_posts", "post_kind", "gold_kind"),
    right_share("noticeboard_posts", "has_date", "gold_date"))


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # one item; a full document with its own form; the time after "yes" and its clock format by the onsubmit
    # script only; the proposed controls
    _page("parking_rules", 1, ("allowed", "clarity"), texts={
        "leave_by": TextField(1, leave_by_answers, "on 'yes' signs: a clock time, every one it holds equal to "
                              "gold_leave_by (either reading without am/pm)", _is("gold_allowed", "yes"))},
          keys={"controls": '"parking_rules_controls.csv"'}, truth='{allowed = "gold_allowed"}',
          controls=True, extra=parking_extra),
    # two a page; a checkbox group whose options are the item's, "at least one" by instruction only; the
    # 5-20 words only in prose; separate controls at a share
    _page("contract_clauses", 2, ("clause_type", "term_meaning"), texts={
        "term_meaning": TextField(5, meaning_answers, "at most two sentences, a word of gold_meaning, three words "
                                  "besides the term's, no 8-word run of the clause")},
          keys={"controls": '"contract_clauses_controls.csv"', "control_share": "0.2"},
          truth='{clause_type = "gold_type"}', controls=True, extra=clauses_extra),
    # one item; Prolific's document; a star widget's script writes a hidden field; the stars and the
    # change's 5 words are a submit listener's only; an optional box
    _page("membership_terms", 1, ("direction", "impact", "what_changed"), texts={
        "what_changed": TextField(5, changed_answers, "one sentence, a word of gold_change, not a version copied"),
        "hardest_hit": TextField(0, hardest_answers, "optional: a group of people or a word of the versions, or "
                                 "nobody (<= 12 words)")},
          truth='{direction = "gold_direction"}', extra=terms_extra),
    # four a page; crowd elements, the radio buttons each with its own name (the dry run's one field, choice;
    # the ledger's one a button, so the kind's blank is counted off the ledger)
    _page("lost_property", 4, ("search_words",), texts={
        "search_words": TextField(2, search_answers, "a word of gold_item and a word of gold_detail")},
          truth='{choice = "gold_category"}', extra=lost_extra),
    # three a page; an HTMLQuestion wrapper; a separate controls file, no share
    _page("noticeboard_posts", 3, ("post_kind", "has_date", "reader_action"), texts={
        "reader_action": TextField(1, action_answers, "one sentence with a word of gold_action")},
          keys={"controls": '"noticeboard_posts_controls.csv"'}, truth='{post_kind = "gold_kind"}',
          controls=True, extra=posts_extra, source=".xml"),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
