"""The gate benchmark's second figure (bench/gate_bench.py): of the bad-profile assignments, those whose answers
show their profile's defect, and those of them unnoticed. A caps locker on a page with no text box, or a contrarian
whose one answer is the honest workers' own on every item it did, leaves nothing any rule could read: the headline
counts them by profile all the same."""

from __future__ import annotations

import sqlite3
from collections import Counter
from typing import Any

from flows.sim.people.crowd_model import HONEST_PROFILES


def defect_shown(db: sqlite3.Connection, work: list[Any], profiles: dict[str, str], skip: set[str]) -> set[str]:
    """The assignments of profiles not in ``skip`` (the honest, those not counted) whose answers show their
    profile's defect: a contrarian's, an answer off the honest workers' one most common answer to that item and
    field (two or more of them gave it); a caps locker's, an answer of 8 or more letters, 70% of them capitals;
    any other profile's always (its speed, or the page's own rules broken, shows on any page)."""
    given: dict[str, list[tuple[str, str, str]]] = {}
    for r in db.execute("SELECT assignment_id, item_id, field, value FROM answers WHERE item_id != ''"):
        given.setdefault(r[0], []).append((r[1], r[2], (r[3] or "").strip()))
    by_worker = {a["assignment_id"]: a["worker_id"] for a in work}
    votes: dict[tuple[str, str], Counter[str]] = {}
    for aid, rows in given.items():
        if profiles.get(by_worker.get(aid, "")) in HONEST_PROFILES:
            for item, name, value in rows:
                votes.setdefault((item, name), Counter())[value] += bool(value)
    modes = {k: c.most_common(2) for k, c in votes.items()}
    one = {k: m[0][0] for k, m in modes.items() if m and m[0][1] >= 2 and (len(m) == 1 or m[1][1] < m[0][1])}
    out = set()
    for a in work:
        profile, rows = profiles.get(a["worker_id"], "unknown"), given.get(a["assignment_id"], [])
        if profile == "contrarian":
            shows = any(value and one.get((item, name), value) != value for item, name, value in rows)
        elif profile == "caps_locker":
            shows = any(sum(c.isalpha() for c in v) >= 8 and sum(c.isupper() for c in v) >= 0.7 * sum(
                c.isalpha() for c in v) for _, _, v in rows)
        else:
            shows = True
        out |= {a["assignment_id"]} if shows and profile not in skip else set()
    return out


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
