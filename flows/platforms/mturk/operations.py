"""MTurk's side of reconcile and cancel: HITs adopted, strays expired, missed work fetched; never a new HIT."""

from __future__ import annotations

import json
import time
from typing import Any

from flows.core.ledger.ledger_calls import adopt
from flows.core.ledger.store import SETTLED
from flows.core.run.run_context import Run
from flows.platforms.interface import Review
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.batch_collect import store_assignment
from flows.platforms.operation_steps import UNDECIDED, cancel_key, each_call, finish_cancel
from flows.platforms.units import planned_index


def reconcile(run: Run, dry_run: bool = False) -> dict[str, Any]:
    """Compare ledger and platform: adopt intents, expire strays, fetch missed work; ``dry_run``: report only."""
    cfg, store = run.cfg, run.store
    platform = {h["HITId"]: h for h in mturk.list_hits(run.client)}
    by_key = {h.get("RequesterAnnotation"): h for h in platform.values()}
    report: dict[str, Any] = {"adopted": [], "expired_strays": [], "fetched": 0, "refreshed": 0}
    for entry in store.rows("SELECT * FROM ledger WHERE campaign = ? AND operation = 'CreateHITWithHITType'",
                            [cfg.name]):
        wanted = _annotation(entry)  # key and item digest: a HIT with other items is not ours to adopt
        if entry["status"] in SETTLED or wanted not in by_key:
            continue
        hit = by_key[wanted]
        if not dry_run:
            _adopt(run, entry, hit)
        report["adopted"].append(hit["HITId"])
    ledgered = store.rows("SELECT idem_key, params FROM ledger WHERE campaign = ?", [cfg.name])
    intended = {_annotation(e) for e in ledgered}
    for key, hit in by_key.items():
        if key and key.startswith(f"{cfg.name}:") and key not in intended and hit["HITStatus"] == "Assignable":
            if not dry_run:
                mturk.expire_hit(run.client, hit["HITId"])
            report["expired_strays"].append(hit["HITId"])
    known = {r["assignment_id"]: r["status"] for r in store.rows(
        "SELECT assignment_id, status FROM assignments WHERE campaign = ?", [cfg.name])}
    for hit in store.rows("SELECT * FROM hits WHERE campaign = ?", [cfg.name]):
        if hit["hit_id"] in platform:
            listed = mturk.list_submissions(run.client, hit["hit_id"])
            missed = [a for a in listed if a["AssignmentId"] not in known]
            if not dry_run:
                missed = [a for a in missed if store_assignment(run, hit["batch"], hit, a)]
            report["fetched"] += len(missed)
            report["refreshed"] += _refresh_statuses(run, known, listed, dry_run)
    mode = " (dry run)" if dry_run else ""
    run.progress(f"reconcile{mode}: adopted {len(report['adopted'])} HIT(s), expired {len(report['expired_strays'])} "
                 f"stray HIT(s), fetched {report['fetched']} missed submission(s), refreshed the status of "
                 f"{report['refreshed']} stored assignment(s) from the platform")
    return report


def _annotation(entry: dict[str, Any]) -> str:
    """The RequesterAnnotation the ledgered call was made with (older ledgers: the key itself)."""
    return str(json.loads(entry["params"] or "{}").get("RequesterAnnotation", entry["idem_key"]))


def refresh(run: Run) -> int:
    """Store the platform's current status of every stored assignment of the campaign; how many changed."""
    known = {r["assignment_id"]: r["status"] for r in run.store.rows(
        "SELECT assignment_id, status FROM assignments WHERE campaign = ?", [run.cfg.name])}
    listed = {h["HITId"] for h in mturk.list_hits(run.client)}
    hits = run.store.rows("SELECT hit_id FROM hits WHERE campaign = ?", [run.cfg.name])
    return sum(_refresh_statuses(run, known, mturk.list_submissions(run.client, h["hit_id"]), False)
               for h in hits if h["hit_id"] in listed)


def _refresh_statuses(run: Run, known: dict[str, str], listed: list[dict[str, Any]], dry_run: bool) -> int:
    """The platform's word on stored assignments (e.g. auto-approved while nobody looked); how many changed."""
    changed = [a for a in listed if a["AssignmentId"] in known and known[a["AssignmentId"]] != a["AssignmentStatus"]]
    if changed and not dry_run:
        with run.store.transaction():
            for a in changed:
                run.store.table("assignments").update((run.cfg.name, a["AssignmentId"]),
                                                      {"status": a["AssignmentStatus"]})
    return len(changed)


def _adopt(run: Run, entry: dict[str, Any], hit: dict[str, Any]) -> None:
    batch, index = entry["batch"], int(entry["idem_key"].rsplit(":h", 1)[1])
    ids = [r["item_id"] for r in run.store.rows(  # a HIT posted again after a cancel shows its planned one's items
        "SELECT item_id FROM items WHERE campaign = ? AND batch = ? AND hit_index = ? ORDER BY rowid",
        [run.cfg.name, batch, planned_index(run.store, run.cfg.name, batch, index)])]
    with run.store.transaction():
        run.store.table("hits").upsert({"hit_id": hit["HITId"], "campaign": run.cfg.name, "batch": batch,
                                        "hit_index": index, "token": "", "item_ids": json.dumps(ids),
                                        "created_at": time.time(), "status": "posted"}, pk=("campaign", "hit_id"))
    adopt(run.store, entry["idem_key"], {"HITId": hit["HITId"]})


def cancel_plan(run: Run) -> dict[str, Any]:
    """What ``cancel`` would do, from a read of the platform and the store; changes nothing."""
    hits = run.store.rows("SELECT hit_id FROM hits WHERE campaign = ?", [run.cfg.name])
    views = [mturk.get_hit(run.client, h["hit_id"]) for h in hits]
    undecided = run.store.rows(UNDECIDED, [run.cfg.name])
    report = {"would_expire": [v["HITId"] for v in views if v["HITStatus"] == "Assignable"],
              "would_review": undecided[0]["n"],
              "hits_not_yet_disposed": sum(v["HITStatus"] != "Disposed" for v in views)}
    run.progress(f"cancel (dry run): would expire {len(report['would_expire'])} open HIT(s), review "
                 f"{report['would_review']} stored assignment(s), then delete the finished HITs")
    return report


def cancel(run: Run, review_undecided: Review) -> dict[str, Any]:
    """Expire every open HIT, review what came in by policy, delete the finished HITs; safe to run twice."""
    cfg, store = run.cfg, run.store
    strays = len(reconcile(run)["expired_strays"])  # open HITs of the campaign the ledger never knew: closed too
    hits = store.rows("SELECT * FROM hits WHERE campaign = ?", [cfg.name])
    errors: list[str] = []
    closed = {h["hit_id"] for h in hits if each_call(errors, f"expire {h['hit_id']}", _expire_open, run, h)}
    expired = len(closed) + strays
    deleted, working = _decide_and_delete(run, hits, review_undecided, errors)
    finished = ""
    if working and run.target.kind == "sim":
        # The simulator's clock moves only when hitflow moves it: let a closed HIT's workers finish, then decide.
        run.wait(run.cfg.assignment_duration_s)
        more, still = _decide_and_delete(run, working, review_undecided, errors)
        finished = f"; the simulator's workers on {len(working) - len(still)} HIT(s) finished and were decided"
        deleted, working = deleted + more, still
    later = f"; {len(working)} HIT(s) still have workers on them: run cancel again after they finish" if working else ""
    done = len(set(deleted) - closed)  # those it closed are counted once, in the cancel's last line
    finish_cancel(run, errors, f"cancel: {done} finished HIT(s) deleted, their work decided{finished}{later}")
    return {"closed": expired, "expired": expired, "deleted": len(deleted), "still_working": len(working)}


def _decide_and_delete(run: Run, hits: list[dict[str, Any]], review_undecided: Review, errors: list[str]
                       ) -> tuple[list[str], list[dict[str, Any]]]:
    """Fetch and review what came in, delete the HITs that are done; (those deleted, the HITs workers are still on)."""
    for hit in hits:  # work submitted up to now is stored, so it is reviewed before its HIT is deleted
        each_call(errors, f"fetch {hit['hit_id']}", _fetch_all, run, hit)
    review_undecided(run, errors)
    deleted = [h["hit_id"] for h in hits if each_call(errors, f"delete {h['hit_id']}", _delete_if_done, run, h)]
    return deleted, [h for h in hits if (v := each_call(errors, "", mturk.get_hit, run.client, h["hit_id"]))
                     and int(v["NumberOfAssignmentsPending"]) > 0]


def _expire_open(run: Run, hit: dict[str, Any]) -> int:
    """Close one open HIT, its intent first, so a resumed run posts the items a cancel left short again."""
    if mturk.get_hit(run.client, hit["hit_id"])["HITStatus"] != "Assignable":
        return 0
    key = cancel_key(run.cfg.name, hit["batch"], hit["hit_index"])
    run.store.intend(run.cfg.name, hit["batch"], "UpdateExpirationForHIT", key, {"HITId": hit["hit_id"]})
    mturk.expire_hit(run.client, hit["hit_id"])
    run.store.settle(key, "ok", {"HITId": hit["hit_id"]})
    return 1


def _fetch_all(run: Run, hit: dict[str, Any]) -> int:
    return sum(store_assignment(run, hit["batch"], hit, a) for a in mturk.list_submissions(run.client, hit["hit_id"]))


def _delete_if_done(run: Run, hit: dict[str, Any]) -> int:
    view = mturk.get_hit(run.client, hit["hit_id"])
    if view["HITStatus"] not in ("Reviewable", "Reviewing") or view["NumberOfAssignmentsPending"]:
        return 0  # disposed already, or workers still on it
    mturk.delete_hit(run.client, hit["hit_id"])
    return 1
