"""Batch step 2: wait for submissions, store every raw answer, parse it into fields."""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Collection
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from datetime import datetime
from typing import Any

from flows.core.errors import AnswerConflictError, PlatformError
from flows.core.pages.mturk_forms import answer_rows
from flows.core.run.run_context import Run
from flows.platforms.batch_window import closes_now, detaches, end_waiting, show_waiting
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.quiz_requests import judge_quiz_requests
from flows.platforms.unit_extensions import responses
from qc.worker_values import surrogate_references

MAX_POLL_S = 6 * 3600
# A round's listings and marks go out at once on 16 threads (each a round trip); throttling is retried.
FETCH_THREADS = 16


def _epoch(value: Any) -> float | None:
    if value is None:
        return None
    return value.timestamp() if isinstance(value, datetime) else float(value)


def store_assignment(run: Run, batch: int, hit: dict[str, Any], a: dict[str, Any]) -> bool:
    """Store the raw answer, then its rows; True when new. An id held for another HIT stops the run."""
    seen = run.store.rows("SELECT campaign, hit_id FROM assignments WHERE campaign = ? AND assignment_id = ?",
                          [run.cfg.name, a["AssignmentId"]])
    if seen and (seen[0]["campaign"], seen[0]["hit_id"]) != (run.cfg.name, a["HITId"]):
        raise AnswerConflictError(
            f"assignment {a['AssignmentId']} of HIT {a['HITId']} is already in {run.store.shown()} for campaign "
            f"{seen[0]['campaign']!r}, HIT {seen[0]['hit_id']}: the platform reuses ids (a restarted simulator?); "
            "run this campaign with its own --db so no answer is hidden")
    row = {"assignment_id": a["AssignmentId"], "hit_id": a["HITId"], "campaign": run.cfg.name, "batch": batch,
           "worker_id": a["WorkerId"], "status": a["AssignmentStatus"], "accept_time": _epoch(a.get("AcceptTime")),
           "submit_time": _epoch(a.get("SubmitTime")), "auto_approval_time": _epoch(a.get("AutoApprovalTime")),
           "answer_xml": surrogate_references(a.get("Answer") or ""), "fetched_at": time.time()}
    if seen:
        run.store.table("assignments").update((run.cfg.name, a["AssignmentId"]), {"status": a["AssignmentStatus"]})
        return False
    try:
        parsed = [{**answer, "campaign": run.cfg.name}
                  for answer in answer_rows(a["AssignmentId"], row["answer_xml"], json.loads(hit["item_ids"]))]
        row["parse_error"] = ""
    except ET.ParseError as exc:
        parsed, row["parse_error"] = [], f"answer XML is malformed: {exc}"
    with run.store.transaction():  # plain INSERTs: 200,000 assignments at full scale
        run.store.insert_raw("assignments", [row])
        run.store.insert_raw("answers", parsed, "REPLACE")
        run.store.insert_raw("workers", [{"worker_id": a["WorkerId"], "first_seen": time.time()}], "IGNORE")
    return True


def collect_batch(run: Run, batch: int, per_hit: int | None = None, settled: Collection[str] = ()) -> dict[str, Any]:
    """Poll until every HIT of the batch is closed, fetching its submissions once it is (``per_hit``, ``settled``)."""
    cfg = run.cfg
    per_hit = per_hit or cfg.assignments_per_image
    hits = run.store.rows("SELECT * FROM hits WHERE campaign = ? AND batch = ?", [cfg.name, batch])
    with ThreadPoolExecutor(FETCH_THREADS) as pool:
        poll = ClosedHits(run, batch, {h["hit_id"]: h for h in hits if h["hit_id"] not in settled}, pool)
        _poll_until_closed(run, batch, poll, len({_unit(h) for h in hits}) * per_hit)
        for hit_id in list(poll.open):  # past the deadline: take what the still-open HITs have
            poll.fetch(run, batch, hit_id, mark=False)
        poll.marked()
    return record_shortfall(run, batch, hits, per_hit, poll)


def _poll_until_closed(run: Run, batch: int, poll: ClosedHits, expected: int) -> None:
    cfg, total = run.cfg, len(poll.hits)
    interval, waited, deadline = float(cfg.poll_interval_s), 0.0, cfg.hit_lifetime_s + cfg.assignment_duration_s
    what = f"batch {batch}" if batch else "qualification test"
    while poll.open:
        judged = judge_quiz_requests(run) if batch else 0  # those waiting on the quiz work once it is judged
        new = poll.fetch_all(run, batch, poll.closed_now(run))
        if new and run.new_work:
            run.new_work(run, batch)
        show_waiting(run, batch, f"{what}: {total - len(poll.open)}/{total} HITs complete, "
                                 f"{poll.stored} assignments in", (len(poll.open), poll.stored),
                     (total - len(poll.open), total))
        if not poll.open or waited >= deadline or (detaches(run) and closes_now(
                run, batch, responses(run, batch), expected, len(poll.open))):
            break
        interval = float(cfg.poll_interval_s) if new or judged else min(interval * 2, MAX_POLL_S)
        # Marks land before the clock moves (a virtual clock jumps at once); live, the wait is the poll's own.
        poll.marked()
        run.wait(interval)
        waited += interval
    end_waiting(run, batch)


class ClosedHits:
    """Which of a batch's HITs the platform reports closed, and what was listed for each."""

    def __init__(self, run: Run, batch: int, hits: dict[str, dict[str, Any]], pool: ThreadPoolExecutor):
        self.open, self.hits, self.pool = dict(hits), hits, pool
        self.listed: dict[str, int] = {}  # submissions the platform listed per HIT
        self.type_id = _hit_type_id(run, batch)
        # Reviewing: marked by an earlier, interrupted run; asked only where the ledger says marks went out.
        self.marking_key = f"{run.cfg.name}:b{batch}:marking"
        self.marking_recorded = run.store.ledger_entry(self.marking_key) is not None or responses(run, batch) > 0
        self.statuses = ["Reviewable", "Reviewing"] if self.marking_recorded else ["Reviewable"]
        self.reviewable_api = bool(self.type_id)
        self.stored = 0
        self.marks: list[Future[None]] = []

    def closed_now(self, run: Run) -> list[str]:
        if self.reviewable_api:
            try:
                listings = [self.pool.submit(mturk.reviewable_hits, run.client, self.type_id, status)
                            for status in self.statuses]  # the first round's two listings at once
                found = [h for listing in listings for h in listing.result()]
                self.statuses = ["Reviewable"]
                return [hit_id for hit_id in found if hit_id in self.open]
            except PlatformError as exc:
                if "UnknownOperation" not in str(exc):
                    raise
                self.reviewable_api = False  # an endpoint without ListReviewableHITs: ask per HIT
        return [hit_id for hit_id in list(self.open) if _closed(mturk.get_hit(run.client, hit_id))]

    def fetch_all(self, run: Run, batch: int, hit_ids: list[str]) -> int:
        """``fetch`` for many closed HITs on the pool's threads; a HIT is marked once stored (``marked`` waits)."""
        new = 0
        if hit_ids and self.reviewable_api:
            self.record_marking(run, batch)
        listings = {self.pool.submit(mturk.list_submissions, run.client, hit_id): hit_id for hit_id in hit_ids}
        for done in as_completed(listings):
            new += self.store_listed(run, batch, listings[done], done.result())
            if self.reviewable_api:
                self.marks.append(self.pool.submit(mturk.mark_reviewing, run.client, listings[done]))
        return new

    def record_marking(self, run: Run, batch: int) -> None:
        """Before the batch's first mark: the ledger notes that its HITs may be Reviewing from now on."""
        if not self.marking_recorded:
            run.store.intend(run.cfg.name, batch, "UpdateHITReviewStatus", self.marking_key,
                             {"RequesterAnnotation": self.marking_key})
            run.store.settle(self.marking_key, "ok")
            self.marking_recorded = True

    def marked(self) -> None:
        """Wait for every mark sent; a failed one is raised (the HIT's answers are stored already)."""
        marks, self.marks = self.marks, []
        for mark in marks:
            mark.result()

    def fetch(self, run: Run, batch: int, hit_id: str, mark: bool = True) -> int:
        """List and store the HIT's submissions (after it was seen closed); the count of new ones."""
        new = self.store_listed(run, batch, hit_id, mturk.list_submissions(run.client, hit_id))
        if mark and self.reviewable_api:
            self.record_marking(run, batch)
            mturk.mark_reviewing(run.client, hit_id)
        return new

    def store_listed(self, run: Run, batch: int, hit_id: str, subs: list[dict[str, Any]]) -> int:
        hit = self.open.pop(hit_id)
        with run.store.transaction():  # one commit per HIT; each assignment is still whole or absent
            new = sum(store_assignment(run, batch, hit, a) for a in subs)
        self.listed[hit_id] = len(subs)
        self.stored += new
        return new


def _hit_type_id(run: Run, batch: int) -> str:
    entry = run.store.ledger_entry(f"{run.cfg.name}:b{batch}:hittype")
    if not entry or entry["status"] != "ok":
        return ""
    return str(json.loads(entry["result"])["HITTypeId"])


def _closed(view: dict[str, Any]) -> bool:
    return view["HITStatus"] in ("Reviewable", "Reviewing", "Disposed") and not view["NumberOfAssignmentsPending"]


def _unit(hit: dict[str, Any]) -> str:
    """The items a HIT shows (a repost's, its planned one's); a HIT without items is a unit of its own."""
    return str(hit["item_ids"]) if hit["item_ids"] not in ("", "[]") else str(hit["hit_id"])


def record_shortfall(run: Run, batch: int, hits: list[dict[str, Any]], per_hit: int,
                     poll: ClosedHits) -> dict[str, Any]:
    """Compare the ledger with what the platform listed: fewer stored stops the run; unfilled work is recorded."""
    stored = {r["hit_id"]: r["n"] for r in run.store.rows(
        "SELECT hit_id, count(*) AS n FROM assignments WHERE campaign = ? AND batch = ? GROUP BY hit_id",
        [run.cfg.name, batch])}
    hidden = {h: n - stored.get(h, 0) for h, n in poll.listed.items() if stored.get(h, 0) < n}
    if hidden:
        raise AnswerConflictError(
            f"batch {batch}: the platform lists {sum(poll.listed.values())} submission(s) but the ledger holds "
            f"{sum(stored.get(h, 0) for h in poll.listed)} of them ({sum(hidden.values())} missing on "
            f"{len(hidden)} HIT(s)); nothing was decided. Run `hitflow reconcile` and check the --db")
    got, units = sum(stored.values()), Counter[str]()
    for h in hits:  # per unit of items: a HIT posted again after a cancel adds to the one it replaces
        units[_unit(h)] += stored.get(h["hit_id"], 0)
    short = [unit for unit, n in units.items() if n < per_hit]
    shortfall = {"hits": len(units), "expected": len(units) * per_hit, "got": got, "short_hits": len(short),
                 "still_open": len(poll.open)} if short else {}
    run.store.set_batch(run.cfg.name, batch, shortfall=json.dumps(shortfall) if shortfall else "")
    if shortfall:
        run.progress(f"batch {batch}: INCOMPLETE: {got} of {shortfall['expected']} assignments; "
                     f"{len(short)} of {len(units)} HITs closed short of their work")
    return {"assignments": poll.stored, "stored": got, "hits_still_open": len(poll.open), "shortfall": shortfall}
