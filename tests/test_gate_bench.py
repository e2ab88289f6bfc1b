"""The gate benchmark's judging (bench/gate_bench.py): its counts on a hand-made ledger whose answer is known,
and on one small page run on each route's simulator against an independent count from the run's ledger."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bench.gate_bench import NOT_COUNTED, judge, run_route
from bench.gate_defects import defect_shown
from bench.gate_setup import PAGES, prepare
from flows.sim.people.crowd_model import HONEST_PROFILES

TABLES = ("CREATE TABLE assignments (assignment_id, campaign, batch, worker_id)",
          "CREATE TABLE decisions (assignment_id, campaign, action)",
          "CREATE TABLE qc_flags (campaign, batch, worker_id, rule, assignment_id)",
          "CREATE TABLE blocks (campaign, worker_id, batch)",
          "CREATE TABLE answers (assignment_id, item_id, field, value)")


def ledger(rows: dict[str, list[tuple]]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    for create in TABLES:
        db.execute(create)
    for table, values in rows.items():
        for v in values:
            db.execute(f"INSERT INTO {table} VALUES ({','.join('?' * len(v))})", v)
    return db


def test_a_hand_made_ledger_is_judged_as_the_goal_reads() -> None:
    profiles = {"S": "speeder", "C": "canned_abuser", "K": "contrarian", "H": "diligent", "B": "blur_talker"}
    db = ledger({
        "assignments": [("s1", "c", 1, "S"), ("s2", "c", 2, "S"), ("c1", "c", 1, "C"), ("k1", "c", 1, "K"),
                        ("k2", "c", 2, "K"), ("h1", "c", 1, "H"), ("b1", "c", 1, "B"), ("x1", "other", 1, "S")],
        "decisions": [(a, "c", "approve") for a in ("s1", "s2", "c1", "k1", "h1", "b1")] + [("k2", "c", "reject")],
        "qc_flags": [("c", 1, "S", "time_outlier", ""),  # on the worker in batch 1: s1 noticed, s2 not
                     ("c", 1, "C", "random_sample", "c1"),  # the review sample is no flag
                     ("c", 1, "K", "rule_info", ""), ("c", 2, "H", "caps_lock", "h1")],
        "blocks": [("c", "H", 2)],  # an honest worker blocked
        "answers": [("h1", "i1", "rating", "3"), ("h1", "i1", "why", " "),  # blank: approved required-blank
                    ("s2", "i2", "rating", "4"),  # "why" not sent: required-blank too
                    ("c1", "i3", "rating", "2"), ("c1", "i3", "why", "ok"), ("c1", "", "page_end_ms", "")],
    })
    got = judge(db, "c", profiles, set(HONEST_PROFILES), ("rating", "why"))
    assert got["by_profile"] == {"blur_talker": {"assignments": 1, "unnoticed": 1},
                                 "canned_abuser": {"assignments": 1, "unnoticed": 1},
                                 "contrarian": {"assignments": 2, "unnoticed": 1},  # k2 was rejected
                                 "speeder": {"assignments": 2, "unnoticed": 1}}
    assert (got["bad_assignments"], got["unnoticed"]) == (5, 3)  # the blur talker shown, not counted
    assert got["unnoticed_share"] == pytest.approx(0.6, abs=1e-4)
    assert (got["honest_workers"], got["honest_blocked"], got["approved_required_blank"]) == (1, 1, 2)
    assert got["honest_flagged"] == 1  # caps_lock on h1
    assert (got["bad_workers"], got["bad_workers_never_noticed"]) == (3, 1)  # the canned abuser alone
    assert got["bad_flagged_by_rule"] == {"time_outlier": 1}  # s1 through its worker's batch-1 flag
    assert got["honest_flagged_by_rule"] == {"caps_lock": 1}


UNNOTICED = """SELECT a.assignment_id, a.worker_id FROM assignments a
JOIN decisions d ON d.assignment_id = a.assignment_id AND d.action = 'approve'
WHERE a.campaign = :c AND a.batch > 0
AND NOT EXISTS (SELECT 1 FROM qc_flags f WHERE f.campaign = :c AND f.rule NOT IN ('random_sample', 'rule_info')
                AND (f.assignment_id = a.assignment_id OR (f.worker_id = a.worker_id AND f.batch = a.batch)))
AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.campaign = :c AND b.worker_id = a.worker_id)"""
BLANK = """SELECT count(DISTINCT d.assignment_id) FROM decisions d
JOIN (SELECT DISTINCT assignment_id, item_id FROM answers WHERE item_id != '') i ON i.assignment_id = d.assignment_id
WHERE d.campaign = :c AND d.action = 'approve' AND (SELECT count(*) FROM answers x WHERE x.assignment_id =
  d.assignment_id AND x.item_id = i.item_id AND x.field IN ({fields}) AND trim(x.value) != '') < {n}"""


@pytest.mark.slow
@pytest.mark.parametrize("route", ["mturk", "prolific"])
def test_one_small_page_on_the_simulator_is_judged_as_its_ledger_counts(tmp_path: Path, route: str) -> None:
    page = next(p for p in PAGES if p.name == "alt_text")  # one photo a page, a slider and a required box
    config = prepare(page, tmp_path, items=8, batches=2)
    got = run_route(config, tmp_path, route, 8, seed=1)
    profiles = {w["worker_id"]: w["profile"] for w in
                json.loads((tmp_path / f"out-{route}" / page.name / "sim_workers.json").read_text(encoding="utf-8"))}
    db = sqlite3.connect(tmp_path / f"{route}.db")
    counted = {w for w, p in profiles.items() if p not in HONEST_PROFILES and p not in NOT_COUNTED}
    bad = db.execute("SELECT worker_id FROM assignments WHERE campaign = ? AND batch > 0", [page.name]).fetchall()
    unnoticed = db.execute(UNNOTICED, {"c": page.name}).fetchall()
    blocked = {w for (w,) in db.execute("SELECT worker_id FROM blocks WHERE campaign = ?", [page.name])}
    fields = ",".join(f"'{f}'" for f in page.required)
    blank = db.execute(BLANK.format(fields=fields, n=len(page.required)), {"c": page.name}).fetchone()[0]
    assert got["bad_assignments"] == sum(w in counted for (w,) in bad) > 0
    assert got["unnoticed"] == sum(w in counted for _, w in unnoticed)
    missed = [w for _, w in unnoticed]
    worked = {w for (w,) in bad if w in counted}
    assert got["bad_workers"] == len(worked)
    assert got["bad_workers_never_noticed"] == sum(missed.count(w) == [v for (v,) in bad].count(w) for w in worked)
    assert got["honest_blocked"] == sum(profiles.get(w) in HONEST_PROFILES for w in blocked)
    assert got["approved_required_blank"] == blank
    assert got["approved"] == db.execute("SELECT count(*) FROM decisions WHERE campaign = ? AND action = 'approve'",
                                         [page.name]).fetchone()[0] > 0


def test_answers_that_show_no_defect_are_counted_apart() -> None:
    # a contrarian whose one answer is the honest workers' own on its item, and a caps locker with no text box,
    # leave nothing to read; a contrarian off the honest answer, and capitals in a box, do
    profiles = {"K": "contrarian", "L": "caps_locker", "H1": "diligent", "H2": "diligent"}
    work = [("k1", "c", 1, "K"), ("k2", "c", 1, "K"), ("l1", "c", 1, "L"), ("l2", "c", 1, "L")]
    honest = [(f"h{n}{i}", "c", 1, f"H{n}") for n in (1, 2) for i in (1, 2)]
    db = ledger({"assignments": work + honest,
                 "decisions": [(a[0], "c", "approve") for a in work + honest],
                 "qc_flags": [("c", 1, "K", "item_blind", "k2")],
                 "answers": [("h11", "i1", "ok", "yes"), ("h21", "i1", "ok", "yes"),
                             ("h12", "i2", "ok", "no"), ("h22", "i2", "ok", "no"),
                             ("k1", "i1", "ok", "yes"), ("k2", "i2", "ok", "yes"),
                             ("l1", "i1", "ok", "yes"), ("l2", "i2", "note", "THE PHOTO IS DARK")]})
    got = judge(db, "c", profiles, set(HONEST_PROFILES), ())
    assert (got["bad_assignments"], got["unnoticed"]) == (4, 2)  # the item_blind flag notices both of K's
    assert got["defect_shown"]["by_profile"] == {"caps_locker": {"assignments": 1, "unnoticed": 1},
                                                 "contrarian": {"assignments": 1, "unnoticed": 0}}
    assert got["defect_shown"]["unnoticed_share"] == pytest.approx(0.5, abs=1e-4)


def test_each_profile_shows_its_defect_only_where_it_did_what_the_profile_does() -> None:
    # twelve honest assignments of 50-61 s set the honest times; a speeder in 9 s and a copy-paster in 40 s (no
    # faster than the honest), a copy-paster pasting its item's own text, a rule breaker with a required field
    # blank and one without, a canned abuser's stock answer, a low-approval worker (its defect is its record)
    profiles = {"H": "diligent", "S": "speeder", "P": "copy_paster", "R": "rule_breaker", "C": "canned_abuser",
                "L": "low_approval"}
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    db.execute("CREATE TABLE assignments (assignment_id, campaign, batch, worker_id, accept_time, submit_time)")
    db.execute("CREATE TABLE answers (assignment_id, item_id, field, value)")
    db.execute("CREATE TABLE items (item_id, payload)")
    db.execute("INSERT INTO items VALUES ('i1', ?)", [json.dumps({"review": "The kettle boils fast and stays cool"})])
    times = {f"h{k}": 50 + k for k in range(12)} | {"s1": 9, "p1": 40, "p2": 60, "r1": 55, "r2": 55, "c1": 55,
                                                    "l1": 55}
    for a, t in times.items():
        db.execute("INSERT INTO assignments VALUES (?, 'c', 1, ?, 0, ?)", [a, a[0].upper(), t])
    answers = [(f"h{k}", "i1", "why", f"honest words number {k}") for k in range(12)] + [
        ("p2", "i1", "why", "the kettle boils fast and stays cool."), ("r1", "i1", "why", ""),
        ("r2", "i1", "why", "fine words here"), ("c1", "i1", "why", "Nothing is missing, it is good."),
        ("l1", "i1", "why", "fine words here")]
    db.executemany("INSERT INTO answers VALUES (?, ?, ?, ?)", answers)
    work = [dict(r) for r in db.execute("SELECT assignment_id, batch, worker_id FROM assignments")]
    got = defect_shown(db, work, profiles, set(HONEST_PROFILES), ("why",))
    assert got == {"s1", "p1", "p2", "r1", "c1"}
    assert "p1" not in defect_shown(db, work, profiles | {"P": "contrarian"}, set(HONEST_PROFILES), ("why",))
