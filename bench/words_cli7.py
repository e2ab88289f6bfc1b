"""``python -m bench.words_cli7 RUN_DIR --sim SIM_DB --ledger LEDGER``: what a campaign run on the simulator
did to honest and bad workers, read from its outputs as a requester with the simulator's ground truth would: the
run folder's ``sim_workers.json`` (each simulated worker's profile), ``flags.csv``, ``blocked_workers.csv`` and
``responses.csv``; for work that never came back, the simulator's marketplace file (an MTurk assignment of the
campaign whose status is none of submitted / approved / rejected, or submitted after its deadline) and the
ledger (a Prolific submission's status: returned, timed out).

Per run: honest workers blocked (and by which rules), honest submissions flagged by rule (``random_sample`` is a
draw, not a flag, and is counted apart), bad submissions approved with no flag from a worker left unblocked
(bad work unnoticed), bad submissions approved from a worker left unblocked (flagged or not), work that did not
come back, and the honest times by items a unit. Written for bench/words_pages7's CLI runs (bench/words_hand7.md).
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import sqlite3
import statistics
import zlib
from pathlib import Path

from flows.sim.people.crowd_model import HONEST_PROFILES

DONE = {"submitted", "approved", "rejected", "awaiting review", "awaiting_review"}


def profiles(run: Path) -> dict[str, str]:
    """worker id -> profile (Prolific's participants too)."""
    raw = json.loads((run / "sim_workers.json").read_text())
    rows = raw if isinstance(raw, list) else raw.get("workers", raw.get("participants", []))
    return {r.get("worker_id") or r.get("participant_id") or r.get("id"): r["profile"] for r in rows}


def unfinished(sim: Path, ledger: Path, campaign: str, who: dict[str, str]) -> collections.Counter:
    """(profile, status) of work that did not come back: the MTurk simulator's assignments (its marketplace
    file) and the ledger's Prolific submissions of ``campaign``."""
    out: collections.Counter = collections.Counter()
    seen: list[tuple[str, str, bool]] = []
    hits = {h for h, in sqlite3.connect(ledger).execute("select hit_id from hits where campaign = ?", (campaign,))}
    for kind, value in sqlite3.connect(sim).execute("select kind, value from records"):
        if kind == "assignment" and (rec := json.loads(zlib.decompress(value) if isinstance(value, bytes)
                                                        else value))["hit_id"] in hits:  # big records are zlib
            late = bool(rec.get("submit_time") and rec["submit_time"] > rec.get("deadline", float("inf")))
            seen.append((rec["worker_id"], str(rec.get("status", "")).lower(), late))
    query = "select participant_id, status from platform_submissions where campaign = ?"
    seen += [(w, str(st).lower(), False) for w, st in sqlite3.connect(ledger).execute(query, (campaign,))]
    for worker, status, late in seen:
        if worker in who and (status not in DONE or late):
            out[(who[worker], status + (" (late)" if late else ""))] += 1
    return out


def honest_minutes(ledger: Path, campaign: str, who: dict[str, str]) -> dict:
    """The honest profiles' times from the ledger, in minutes, by items a unit: an MTurk assignment's accept to
    submit, a Prolific submission's start to completion (a unit's items from its task session)."""
    con = sqlite3.connect(ledger)
    units = {sid: len(json.loads(items)) for sid, items in
             con.execute("select session_id, item_ids from task_sessions where campaign = ?", (campaign,))}
    rows = [(w, b - a, units.get(sid, 0)) for sid, w, a, b in con.execute(
        "select submission_id, participant_id, started_at, completed_at from platform_submissions "
        "where campaign = ? and completed_at is not null", (campaign,))]
    if not rows:  # MTurk (a Prolific run keeps assignment rows of its own too: the submissions are its times)
        rows = [(w, b - a, 1) for w, a, b in con.execute(
            "select worker_id, accept_time, submit_time from assignments where campaign = ? "
            "and submit_time is not null", (campaign,))]
    by_size: dict[int, list[float]] = collections.defaultdict(list)
    for worker, seconds, size in rows:
        if who.get(worker) in HONEST_PROFILES:
            by_size[size].append(seconds / 60)
    return {f"{size} item(s)": {"n": len(t), "median": round(statistics.median(t), 2), "max": round(max(t), 2)}
            for size, t in sorted(by_size.items())}


def report(run: Path, sim: Path, ledger: Path) -> dict:
    who = profiles(run)
    honest = {w for w, p in who.items() if p in HONEST_PROFILES}
    with (run / "flags.csv").open() as f:
        flags = list(csv.DictReader(f))
    with (run / "blocked_workers.csv").open() as f:
        blocked = {r["worker_id"]: r["rules"] for r in csv.DictReader(f)}
    with (run / "responses.csv").open() as f:
        decided = {(r["assignment_id"], r["worker_id"]): r["decision"] for r in csv.DictReader(f)}
    worked = {w for _a, w in decided}
    by_rule: dict[str, set[str]] = collections.defaultdict(set)
    flagged_any: set[str] = set()
    sampled = 0
    for r in flags:
        if r["rule"] == "random_sample":
            sampled += r["worker_id"] in honest
            continue
        if r["rule"] == "rule_info":
            continue
        flagged_any.add(r["assignment_id"] or f"worker {r['worker_id']}")  # a worker-level flag stands on all
        if r["worker_id"] in honest:  # a worker-level flag (no assignment) stands on all their work
            subs = {r["assignment_id"]} if r["assignment_id"] else {a for a, w in decided if w == r["worker_id"]}
            by_rule[f'{r["rule"]} ({who[r["worker_id"]]})'] |= subs
    honest_subs = {a for a, w in decided if w in honest}
    bad_subs = {(a, w) for a, w in decided if w not in honest}
    unnoticed = collections.Counter(who.get(w) for a, w in bad_subs
                                    if decided[(a, w)] == "approve" and w not in blocked
                                    and not {a, f"worker {w}"} & flagged_any)
    return {
        "workers": {"honest": len(honest & worked), "bad": len(worked - honest)},
        "profiles_worked": dict(collections.Counter(who.get(w) for w in worked)),
        "honest_blocked": {w: (who[w], blocked[w]) for w in blocked if w in honest},
        "bad_blocked": dict(collections.Counter(who.get(w) for w in blocked if w not in honest)),
        "honest_submissions": len(honest_subs),
        "honest_flagged": len(set().union(*by_rule.values()) & honest_subs),
        "honest_flagged_by_rule": {rule: len(subs) for rule, subs in sorted(by_rule.items())},
        "honest_rejected": sum(1 for (a, w), d in decided.items() if w in honest and d == "reject"),
        "honest_sampled": sampled,
        "bad_submissions": len(bad_subs), "bad_unnoticed": dict(unnoticed),
        "bad_paid_unblocked": dict(collections.Counter(who.get(w) for a, w in bad_subs
                                                       if decided[(a, w)] == "approve" and w not in blocked)),
        "not_back": {f"{k[0]} {k[1]}": n for k, n in unfinished(sim, ledger, run.name, who).items()},
        "honest_minutes": honest_minutes(ledger, run.name, who),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--sim", type=Path, required=True, help="the simulator's marketplace file (runs/sim/...db)")
    ap.add_argument("--ledger", type=Path, required=True, help="the ledger (runs/hitflow.db)")
    args = ap.parse_args()
    print(json.dumps(report(args.run, args.sim, args.ledger), indent=1))


if __name__ == "__main__":
    main()
