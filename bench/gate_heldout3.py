"""``make bench-gate-heldout3``: bench/gate_heldout.py's gate and rehearsal on a third held-out set of pages.

Five pages written fresh, as requesters write them for MTurk, by someone who read only the user docs
(bench/gate_heldout3/), each with a 30-item file and a truth column where the task has a right answer:

- waste_sorting: which of four bins a thrown-away thing goes in (a full HTML document, radio group;
  12 separate control items mixed in at a share of 0.2);
- venue_access: could a wheelchair user get in, yes/no, and a required "Why? ... (at least 10 words)"
  box, checked by the form's onsubmit word counter (controls: 9 of its own items);
- recipe_ingredients: "tick all that apply (at least one)", the four options read from the item's own
  columns plus "None of these", checked by a jQuery submit handler;
- fault_reports: two help-desk reports a page, the team (radio) and "What should the team do first?
  one sentence of 6 to 30 words" (12 separate controls at a share of 0.25);
- flat_listing: a rent advert rated on four 1-7 statements with a fifth row that is the page's own
  attention check ("please select 3 for this one"), a script marking unanswered rows.

The definitions are bench/gate_heldout.py's (per page and route, MTurk and Prolific simulators, the
default crowd, 3 batches, 3 workers an item). The free-text judges, written before any run and
independent of the simulator's code:

- venue_access ``why`` (the page states "at least 10 words"): answers the question when it points at
  the entrance: a word of ACCESS (step, stairs, ramp, lift, level, door, entrance, floor, basement,
  wheelchair, narrow, wide...) or two words of 5+ letters of the item's entrance text.
- fault_reports ``first_step`` (the page states "one sentence of 6 to 30 words"): answers when it names
  an action (a verb of VERBS as an instruction: first word of the answer or of a clause, or after
  "should", "need to", "then"...: send, call, fix, replace, unblock, check, reset, clean, lock, secure...)
  and refers to its report (a word sharing the first four letters of a 4+ letter word of the report).
  The runner's limit is the stated minimum; the extra line adds the whole stated limit (6 to 30 words,
  one sentence) and its share among honest answers that also answer the question.

flat_listing's extra line: the page's attention row, by honest and bad profile, and the bad assignments
that failed it yet went unnoticed. ``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages`` and
``--label`` as bench/gate_heldout.py; figures go to bench/results-gate-heldout3.json under ``--label``
(default: the measured code's commit).
"""

from __future__ import annotations

import csv
import re
import sqlite3
from collections.abc import Callable
from typing import Any

from bench.gate_bench import NOT_A_FLAG, share
from bench.gate_heldout import DONE, HONEST, ROOT, HeldoutPage, TextField, words
from bench.gate_heldout import main as heldout_main

PAGES_DIR = ROOT / "bench" / "gate_heldout3"
RESULTS = ROOT / "bench" / "results-gate-heldout3.json"

ACCESS = re.compile(r"\b(steps?|step-free|stair\w*|ramp\w*|lifts?|elevators?|level|flat|doors?|doorway|entrances?|"
                    r"entry|wide|width|narrow\w*|floors?|basement|underground|upstairs|downstairs|ground|hoist|"
                    r"wheelchairs?|access\w*|carr(y|ied)|lift(ed|ing)|paths?|gangplank|boardwalk|cobble\w*|alley|"
                    r"slop\w*|kerb|curb|threshold|automatic|push button|spiral|climb\w*|below|above|cm)\b", re.I)
VERBS = (r"(send|call|ring|phone|contact|tell|inform|notify|ask|email|report|alert|fix|repair|replace|"
                    r"mend|unblock|unclog|clear|shut|turn|switch|isolate|check|inspect|examine|test|look|"
                    r"investigate|reset|restart|reboot|reconnect|update|install|restore|grant|give|create|set|"
                    r"clean|mop|wipe|sweep|empty|remove|dispose|disinfect|sanitis|sanitiz|secure|lock|close|cordon|"
                    r"block|evacuate|escort|stop|review|change|cancel|deactivate|disable|disconnect|hand|return|"
                    r"store|log|record|put|place|open|move|tow|collect|get|go|arrange|dispatch|bring|have|make|"
                    r"keep|take|find|identify|confirm|verify|run|scan|quarantine|recharge|refill|order|label)\w*")
# a verb as an instruction: the answer's or a clause's first word, or after "should", "need to", "then"...
ACTION = re.compile(r"(?:^|[.;:,!]\s*|\b(?:should|must|needs? to|ha(?:ve|s) to|to|will|please|then|first|"
                    r"immediately|urgently|and|can)\s+)(?:\w+ly\s+)?\b" + VERBS + r"\b", re.I)
STOP = {"this", "that", "from", "with", "have", "been", "there", "their", "they", "since", "into", "when", "what",
        "some", "nobody", "someone", "still", "all", "over", "after", "then", "which", "were", "will", "won't"}
FIRST_STEP_WORDS = (6, 30)


def points_at_entrance(text: str, item: dict[str, str]) -> bool:
    """An entrance word, or two words of 5+ letters the item's entrance text has."""
    shown = {w.lower() for w in words(item.get("entrance_text", "")) if len(w) >= 5}
    return bool(ACCESS.search(text)) or len(shown & {w.lower() for w in words(text)}) >= 2


def names_an_action(text: str, item: dict[str, str]) -> bool:
    """An action verb as an instruction, and a word sharing its first four letters with a 4+ letter word of
    the report; the page's own "Report from <location>" label given back is no instruction."""
    text = text.replace(f"Report from {item.get('location', '')}", "")
    stems = {w.lower()[:4] for w in words(f"{item.get('report', '')} {item.get('location', '')}")
             if len(w) >= 4 and w.lower() not in STOP}
    return bool(ACTION.search(text)) and any(w.lower()[:4] in stems for w in words(text) if len(w) >= 4)


def one_sentence(text: str) -> bool:
    """No sentence end followed by more text ("Call IT. Then reset it." is two)."""
    return len([s for s in re.split(r"[.!?]+(?:\s+|$)", text.strip()) if s.strip()]) <= 1


def _done_answers(db: sqlite3.Connection, campaign: str, fld: str) -> list[tuple[str, str, str, str]]:
    """(assignment, worker, item, value) of one field over the submitted work of the batches."""
    return db.execute(
        f"SELECT a.assignment_id, a.worker_id, an.item_id, COALESCE(an.value, '') FROM answers an JOIN assignments a "
        f"ON a.assignment_id = an.assignment_id AND a.campaign = an.campaign WHERE an.campaign = ? AND an.field = ? "
        f"AND an.item_id != '' AND a.batch > 0 AND upper(a.status) IN ({','.join('?' * len(DONE))})",
        [campaign, fld, *DONE]).fetchall()


def first_step_limits(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
    """Honest ``first_step`` answers against the page's whole stated limit: 6 to 30 words, one sentence."""
    with (PAGES_DIR / "fault_reports_items.csv").open(encoding="utf-8") as f:
        items = {r["item_id"]: r for r in csv.DictReader(f)}
    low, high = FIRST_STEP_WORDS
    given = [(i, t) for _a, w, i, t in _done_answers(db, campaign, "first_step")
             if profiles.get(w) in HONEST and i in items]
    in_range = [(i, t) for i, t in given if low <= len(words(t)) <= high]
    within = [(i, t) for i, t in in_range if one_sentence(t)]
    good = [(i, t) for i, t in within if names_an_action(t, items[i])]
    return {"honest_first_step": len(given), "6_to_30_words": len(in_range),
            "over_30_words": sum(len(words(t)) > high for _i, t in given),
            "and_one_sentence": len(within), "and_answers": len(good), "all_share": share(len(good), len(given))}


def _noticed(db: sqlite3.Connection, campaign: str) -> tuple[set[str], set[tuple[str, int]], set[str], set[str]]:
    """Flagged assignments, flagged (worker, batch), blocked workers, approved assignments: as gate_bench reads."""
    marks = ",".join("?" * len(NOT_A_FLAG))
    flags = db.execute(f"SELECT batch, worker_id, assignment_id FROM qc_flags WHERE campaign = ? AND rule NOT IN "
                       f"({marks})", [campaign, *NOT_A_FLAG]).fetchall()
    blocked = {r[0] for r in db.execute("SELECT worker_id FROM blocks WHERE campaign = ?", [campaign])}
    approved = {r[0] for r in db.execute("SELECT assignment_id FROM decisions WHERE campaign = ? AND action = "
                                         "'approve'", [campaign])}
    return ({f[2] for f in flags if f[2]}, {(f[1], int(f[0])) for f in flags if f[1]}, blocked, approved)


def attention_tally(fld: str, passes: Callable[[str], bool]) -> Callable[..., dict[str, Any]]:
    """A page's own attention question (``fld``, passed when ``passes(value)``): who failed it, by honest and bad
    profile, and the bad work that failed it yet went unnoticed (the held-out sets 3, 4 and 5 read it alike)."""

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        on_assignment, on_worker, blocked, approved = _noticed(db, campaign)
        batch = {r[0]: int(r[1]) for r in db.execute("SELECT assignment_id, batch FROM assignments WHERE "
                                                      "campaign = ?", [campaign])}
        honest, unnoticed = [0, 0], 0
        by_profile: dict[str, list[int]] = {}
        for a, w, _i, value in _done_answers(db, campaign, fld):
            failed, profile = not passes(value), profiles.get(w, "unknown")
            if profile in HONEST:
                honest = [honest[0] + 1, honest[1] + failed]
                continue
            row = by_profile.setdefault(profile, [0, 0])
            row[0], row[1] = row[0] + 1, row[1] + failed
            unnoticed += failed and (a in approved and a not in on_assignment
                                     and (w, batch.get(a, 0)) not in on_worker and w not in blocked)
        bad = [sum(v[0] for v in by_profile.values()), sum(v[1] for v in by_profile.values())]
        return {"honest_failed": f"{honest[1]}/{honest[0]}", "bad_failed": f"{bad[1]}/{bad[0]}",
                "bad_failed_unnoticed": unnoticed,
                "bad_failed_by_profile": " ".join(f"{p} {v[1]}/{v[0]}" for p, v in sorted(by_profile.items()))}
    return extra


# the page's own attention row ("select 3")
attention_row = attention_tally("attention", lambda value: value.strip() == "3")


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    _page("waste_sorting", 1, ("bin",), keys={"controls": '"waste_sorting_controls.csv"', "control_share": "0.2"},
          truth='{bin = "gold_bin"}', controls=True),
    # the word minimum is the form's onsubmit counter's; the box itself is required
    _page("venue_access", 1, ("access", "why"), texts={"why": TextField(
        10, points_at_entrance, "points at the entrance: a word of ACCESS (step, stairs, ramp, lift, level, door, "
        "entrance, floor, basement, wheelchair, narrow, wide...) or two 5+ letter words of the entrance text")},
          keys={"controls": '"venue_access_controls.csv"'}, truth='{access = "gold_access"}', controls=True),
    # "at least one" is the jQuery submit handler's check; the options are the item's own columns
    _page("recipe_ingredients", 1, ("used",), truth='{used = "gold_used"}'),
    _page("fault_reports", 2, ("team", "first_step"), texts={"first_step": TextField(
        FIRST_STEP_WORDS[0], names_an_action, "names an action as an instruction (send, call, fix, replace, "
        "unblock, check, reset, clean, lock, secure...) and a word of its report (first four letters)")},
          keys={"controls": '"fault_reports_controls.csv"', "control_share": "0.25"},
          truth='{team = "gold_team"}', controls=True, extra=first_step_limits),
    _page("flat_listing", 1, ("clear_costs", "enough_detail", "attention", "trustworthy", "would_visit"),
          extra=attention_row),
)


def main(argv: list[str] | None = None) -> int:
    return heldout_main(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
