"""The gate benchmark's second figure (bench/gate_bench.py): of the bad-profile assignments, those that show their
profile's defect, and those of them unnoticed. What each profile does differently on a page is read from the
simulator (flows/sim/pages/choice_answers.py, any_form.py; flows/sim/people/crowd.py's timing), and an assignment
shows its defect only where that difference is in what it sent: a caps locker on a page with no text box, a
contrarian whose one answer is the honest workers' own on every item it did, or a worker whose only defect is its
record (low_approval) leaves nothing any rule could read, and the headline counts them by profile all the same."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from typing import Any

from flows.sim.people.careless_answers import STOCK_ANSWERS
from flows.sim.people.crowd_model import HONEST_PROFILES, PROFILE_DEFAULTS, normalise

# What each bad profile does on a page that an honest worker does not (the simulator's code, per field kind):
# a choice or number off the honest workers' answer (one extreme, a random click), a text box's habit, a time
# under the honest workers' (its seconds an item under every honest profile's), a required field sent blank
CHOICE_HABIT = ("contrarian", "speeder", "canned_abuser")  # options[0] / a random click on every choice
TEXT_HABIT = {"caps_locker": "caps", "canned_abuser": "stock", "copy_paster": "pasted", "blur_talker": "blur"}
BLANKS_REQUIRED = ("rule_breaker",)
HONEST_PACE = min(float(PROFILE_DEFAULTS[p]["seconds_per_item"]) for p in HONEST_PROFILES)
FAST = tuple(p for p, d in PROFILE_DEFAULTS.items() if p not in HONEST_PROFILES and d["seconds_per_item"] < HONEST_PACE)
HONEST_LOW = 0.05  # "faster than an honest worker": under this share of the honest workers' times on the campaign


def defect_shown(db: sqlite3.Connection, work: list[Any], profiles: dict[str, str], skip: set[str],
                 required: tuple[str, ...] = ()) -> set[str]:
    """The assignments of profiles not in ``skip`` (the honest, those not counted) that show their profile's
    defect (module docstring): per profile, what it does differently, found in the assignment's answers or time."""
    given: dict[str, list[tuple[str, str, str]]] = {}
    for r in db.execute("SELECT assignment_id, item_id, field, value FROM answers WHERE item_id != ''"):
        given.setdefault(r[0], []).append((r[1], r[2], (r[3] or "").strip()))
    by_worker = {a["assignment_id"]: a["worker_id"] for a in work}
    honest = {a for a, w in by_worker.items() if profiles.get(w) in HONEST_PROFILES}
    off = off_honest(given, honest)
    fast = fast_assignments(db, profiles, by_worker)
    shown_text = item_texts(db)
    out = set()
    for a in work:
        profile, rows = profiles.get(a["worker_id"], "unknown"), given.get(a["assignment_id"], [])
        shows = (profile in CHOICE_HABIT and any(off(item, name, value) for item, name, value in rows)) \
            or (profile in FAST and a["assignment_id"] in fast) \
            or (profile in TEXT_HABIT and any(text_habit(TEXT_HABIT[profile], v, shown_text.get(i, []))
                                              for i, _, v in rows)) \
            or (profile in BLANKS_REQUIRED and any(not v for _, name, v in rows if name in required))
        out |= {a["assignment_id"]} if shows and profile not in skip else set()
    return out


def off_honest(given: dict[str, list[tuple[str, str, str]]], honest: set[str]) -> Any:
    """``off(item, field, value)``: the value differs from what the honest workers gave that item and field: off
    their one most common answer (two or more gave it), or for numbers with no such answer, outside their range."""
    votes: dict[tuple[str, str], Counter[str]] = {}
    for aid in honest:
        for item, name, value in given.get(aid, []):
            if value:
                votes.setdefault((item, name), Counter())[value] += 1
    modes = {k: c.most_common(2) for k, c in votes.items()}
    one = {k: m[0][0] for k, m in modes.items() if m[0][1] >= 2 and (len(m) == 1 or m[1][1] < m[0][1])}

    def off(item: str, name: str, value: str) -> bool:
        if not value or (item, name) not in votes:
            return False
        if (item, name) in one:
            return value != one[(item, name)]
        numbers = [n for v in votes[(item, name)].elements() if (n := number(v)) is not None]
        mine = number(value)
        if mine is None or len(numbers) < 2 or len(numbers) < sum(votes[(item, name)].values()):
            return False
        return not min(numbers) <= mine <= max(numbers)
    return off


def number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def fast_assignments(db: sqlite3.Connection, profiles: dict[str, str], by_worker: dict[str, str]) -> set[str]:
    """Assignments timed under ``HONEST_LOW`` of the honest workers' times on the campaign (the slow, who park a
    page, left out); none where the ledger keeps no times."""
    columns = {r[1] for r in db.execute("PRAGMA table_info(assignments)")}
    if not {"accept_time", "submit_time"} <= columns:
        return set()
    times = {r[0]: r[2] - r[1] for r in db.execute("SELECT assignment_id, accept_time, submit_time FROM assignments")
             if r[0] in by_worker and r[1] is not None and r[2] is not None}
    honest = sorted(t for a, t in times.items() if profiles.get(by_worker[a]) in HONEST_PROFILES
                    and profiles.get(by_worker[a]) != "slow")
    if len(honest) < 10:
        return set()
    low = honest[int(HONEST_LOW * len(honest))]
    return {a for a, t in times.items() if t < low}


def item_texts(db: sqlite3.Connection) -> dict[str, list[str]]:
    """Each item's own text values (what a copy-paster copies back), from the ledger's items."""
    columns = {r[1] for r in db.execute("PRAGMA table_info(items)")}
    if "payload" not in columns:
        return {}
    out: dict[str, list[str]] = {}
    for item, payload in db.execute("SELECT item_id, payload FROM items"):
        try:
            values = json.loads(payload or "{}")
        except ValueError:
            continue
        out[str(item)] = [normalise(str(v)) for v in (values.values() if isinstance(values, dict) else ())
                          if isinstance(v, str) and len(v.split()) >= 3]
    return out


def text_habit(habit: str, value: str, shown: list[str]) -> bool:
    """A text answer with the profile's habit: capitals, a stock answer, the item's own text, "a blurry photo"."""
    letters = sum(c.isalpha() for c in value)
    if habit == "caps":
        return letters >= 8 and sum(c.isupper() for c in value) >= 0.7 * letters
    said = normalise(value)
    if habit == "stock":
        return bool(said) and any(said.startswith(normalise(s)) for s in STOCK_ANSWERS if len(normalise(s)) >= 2)
    if habit == "pasted":
        return len(said.split()) >= 3 and any(said in s or s in said for s in shown)
    return said.startswith("a blurry photo of")


def shown_tally(shown: set[str], work: list[Any], profiles: dict[str, str], missed: set[str]) -> dict[str, Any]:
    """Of the assignments whose answers show their defect: how many, how many unnoticed, by profile."""
    by_profile: dict[str, dict[str, int]] = {}
    for a in work:
        if a["assignment_id"] in shown:
            row = by_profile.setdefault(profiles.get(a["worker_id"], "unknown"), {"assignments": 0, "unnoticed": 0})
            row["assignments"] += 1
            row["unnoticed"] += a["assignment_id"] in missed
    return shown_sum([{"by_profile": by_profile}])


def shown_line(d: dict[str, Any]) -> str:
    share = "n/a" if d["unnoticed_share"] is None else f"{100 * d['unnoticed_share']:.0f}%"
    return (f"answers showing the profile's defect: unnoticed {d['unnoticed']} of {d['assignments']} ({share}); "
            + ", ".join(f"{p} {v['unnoticed']}/{v['assignments']}" for p, v in d["by_profile"].items()))


def profile_sums(parts: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each profile's assignments and unnoticed ones, summed over ``parts`` (each with a ``by_profile``)."""
    by_profile: dict[str, dict[str, int]] = {}
    for d in parts:
        for p, v in d["by_profile"].items():
            row = by_profile.setdefault(p, {"assignments": 0, "unnoticed": 0})
            row["assignments"] += v["assignments"]
            row["unnoticed"] += v["unnoticed"]
    return by_profile


def shown_sum(parts: list[dict[str, Any]]) -> dict[str, Any]:
    by_profile = profile_sums(parts)
    total = sum(r["assignments"] for r in by_profile.values())
    unnoticed = sum(r["unnoticed"] for r in by_profile.values())
    return {"assignments": total, "unnoticed": unnoticed,
            "unnoticed_share": round(unnoticed / total, 4) if total else None,
            "by_profile": dict(sorted(by_profile.items()))}
