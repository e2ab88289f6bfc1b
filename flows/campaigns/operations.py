"""Operations on a running or finished campaign: reconcile, cancel, and reopening a stored one.

``reconcile`` and ``cancel`` talk to the platform; they never create a HIT. What the store
says about a campaign (``hitflow status``) is in :mod:`flows.campaigns.campaign_status`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flows.campaigns.batch_collect import store_assignment
from flows.campaigns.campaign import ORDER
from flows.campaigns.campaign_plan import Run
from flows.errors import PlatformError
from flows.platforms import mturk_adapter as mturk
from flows.store import SETTLED, Store


def reconcile(run: Run, dry_run: bool = False) -> dict[str, Any]:
    """Compare ledger and platform: adopt intended HITs, expire strays, fetch missed submissions.

    With ``dry_run`` it only reads the platform and reports what it would do.
    """
    cfg, store = run.cfg, run.store
    if run.platform != "mturk":  # no HITs to adopt: a study's collect step re-reads all its submissions
        return {"adopted": [], "expired_strays": [], "fetched": 0, "refreshed": 0}
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


def refresh_statuses(run: Run) -> int:
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
                run.store.table("assignments").update(a["AssignmentId"], {"status": a["AssignmentStatus"]})
    return len(changed)


def _adopt(run: Run, entry: dict[str, Any], hit: dict[str, Any]) -> None:
    batch, index = entry["batch"], int(entry["idem_key"].rsplit(":h", 1)[1])
    ids = [r["item_id"] for r in run.store.rows(
        "SELECT item_id FROM items WHERE campaign = ? AND batch = ? AND hit_index = ? ORDER BY rowid",
        [run.cfg.name, batch, index])]
    with run.store.transaction():
        run.store.table("hits").upsert({"hit_id": hit["HITId"], "campaign": run.cfg.name, "batch": batch,
                                        "hit_index": index, "token": "", "item_ids": json.dumps(ids),
                                        "created_at": time.time(), "status": "posted"}, pk="hit_id")
    run.store.settle(entry["idem_key"], "adopted", {"HITId": hit["HITId"]})


def cancel_plan(run: Run) -> dict[str, Any]:
    """What ``cancel`` would do, from a read of the platform and the store; changes nothing."""
    hits = run.store.rows("SELECT hit_id FROM hits WHERE campaign = ?", [run.cfg.name])
    views = [mturk.get_hit(run.client, h["hit_id"]) for h in hits]
    undecided = run.store.rows("SELECT count(*) AS n FROM assignments a WHERE campaign = ? AND NOT EXISTS "
                               "(SELECT 1 FROM decisions d WHERE d.assignment_id = a.assignment_id)", [run.cfg.name])
    report = {"would_expire": [v["HITId"] for v in views if v["HITStatus"] == "Assignable"],
              "would_review": undecided[0]["n"],
              "hits_not_yet_disposed": sum(v["HITStatus"] != "Disposed" for v in views)}
    run.progress(f"cancel (dry run): would expire {len(report['would_expire'])} open HIT(s), review "
                 f"{report['would_review']} stored assignment(s), then delete the finished HITs")
    return report


def cancel(run: Run) -> dict[str, Any]:
    """Expire every open HIT, fetch and review what came in by the campaign's policy, then delete
    the HITs that are done. Safe to run twice; a platform error on one HIT never stops the rest:
    it is counted and reported, and a second run picks the HIT up again."""
    cfg, store = run.cfg, run.store
    reconcile(run)
    hits = store.rows("SELECT * FROM hits WHERE campaign = ?", [cfg.name])
    errors: list[str] = []
    expired = sum(_each(errors, f"expire {h['hit_id']}", _expire_open, run, h) for h in hits)
    for hit in hits:  # work submitted up to now is stored, so it is reviewed before its HIT is deleted
        _each(errors, f"fetch {hit['hit_id']}", _fetch_all, run, hit)
    _review_undecided(run, errors)
    deleted = sum(_each(errors, f"delete {h['hit_id']}", _delete_if_done, run, h) for h in hits)
    views = [v for h in hits if (v := _each(errors, "", mturk.get_hit, run.client, h["hit_id"]))]
    working = sum(int(v["NumberOfAssignmentsPending"]) > 0 for v in views)
    store.table("campaigns").update(cfg.name, {"status": "cancelled"})
    later = f"; {working} HIT(s) still have workers on them: run cancel again after they finish" if working else ""
    run.progress(f"cancel: expired {expired} open HIT(s), deleted {deleted} finished HIT(s){later}")
    if errors:
        raise PlatformError(f"cancel did what it could but {len(errors)} call(s) failed (first: {errors[0]}); "
                            "run `hitflow cancel` again, it is safe to repeat")
    return {"expired": expired, "deleted": deleted, "still_working": working}


def _each(errors: list[str], what: str, fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return fn(*args)
    except PlatformError as exc:
        if what:
            errors.append(f"{what}: {exc}")
        return 0


def _expire_open(run: Run, hit: dict[str, Any]) -> int:
    if mturk.get_hit(run.client, hit["hit_id"])["HITStatus"] != "Assignable":
        return 0
    mturk.expire_hit(run.client, hit["hit_id"])
    return 1


def _fetch_all(run: Run, hit: dict[str, Any]) -> int:
    return sum(store_assignment(run, hit["batch"], hit, a) for a in mturk.list_submissions(run.client, hit["hit_id"]))


def _review_undecided(run: Run, errors: list[str]) -> None:
    from flows.campaigns.batch_review import decide_batch, qc_batch

    cfg, store = run.cfg, run.store
    undecided = store.rows("SELECT DISTINCT batch FROM assignments a WHERE campaign = ? AND batch > 0 AND NOT "
                           "EXISTS (SELECT 1 FROM decisions d WHERE d.assignment_id = a.assignment_id)", [cfg.name])
    for batch in sorted(r["batch"] for r in undecided):  # review by policy whatever came in
        qc_batch(run, batch)
        _each(errors, f"decide batch {batch}", decide_batch, run, batch)
        if ORDER.index(store.batch_status(cfg.name, batch)) < ORDER.index("decided"):
            store.set_batch(cfg.name, batch, status="decided")
    unapplied = store.rows("SELECT DISTINCT batch FROM decisions WHERE campaign = ? AND applied = ''", [cfg.name])
    for row in unapplied:  # decided earlier, never applied (a crash, a failed call): apply now
        _each(errors, f"apply batch {row['batch']}", decide_batch, run, row["batch"])


def _delete_if_done(run: Run, hit: dict[str, Any]) -> int:
    view = mturk.get_hit(run.client, hit["hit_id"])
    if view["HITStatus"] not in ("Reviewable", "Reviewing") or view["NumberOfAssignmentsPending"]:
        return 0  # disposed already, or workers still on it
    mturk.delete_hit(run.client, hit["hit_id"])
    return 1


@contextmanager
def open_campaign_run(db: str, campaign: str, endpoint_url: str = "", live: bool = False,
                      progress: Callable[[str], None] = print) -> Iterator[Run]:
    """A Run for a stored campaign, against the endpoint it ran on (or the one given)."""
    from flows.config import load_config
    from flows.errors import ConfigError
    from flows.platforms.targets import open_session

    store = Store(db)
    meta = store.rows("SELECT * FROM campaigns WHERE name = ?", [campaign])
    if not meta:
        raise ConfigError(f"no campaign {campaign!r} in {db}; `hitflow status --db {db}` lists them")
    info = json.loads(meta[0]["config_json"] or "{}")
    state = "" if endpoint_url else info.get("sim_state", "")  # the embedded simulator, reopened on its file
    if state and not Path(state).is_file():
        raise ConfigError(f"campaign {campaign!r} ran on the embedded simulator kept in {state}, which is gone; "
                          "nothing is left to reconcile or cancel there")
    url = "" if state else endpoint_url or info.get("endpoint_url", "")
    kind = info.get("target_kind") if info.get("target_kind") in ("sim", "prolific") else "mturk"
    if not url and not state:
        raise ConfigError(f"campaign {campaign!r} has no recorded endpoint; pass --endpoint-url")
    platform = info.get("platform") or _platform_of(store, campaign)
    with open_session(kind, url, live, seed=None, platform=platform,
                      sim_state=Path(state) if state else None) as session:
        progress(f"target: {session.target.label}")
        yield Run(load_config(meta[0]["config_path"]), store, session.client, session.target, progress, session.wait,
                  platform=platform)


def _platform_of(store: Store, campaign: str) -> str:
    """Ledgers written before the platform was recorded: a campaign with studies ran on Prolific."""
    return "prolific" if store.table("studies").count_where("campaign = ?", [campaign]) else "mturk"
