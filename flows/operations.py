"""Operations on a running or finished campaign: status, reconcile, cancel.

``reconcile`` and ``cancel`` talk to the platform; they never create a HIT.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from flows import mturk_adapter as mturk
from flows.batch_collect import store_assignment
from flows.budget import qualification_money
from flows.campaign import ORDER, STEPS
from flows.campaign_plan import Run
from flows.errors import PlatformError
from flows.markdown_text import md_text
from flows.store import SETTLED, Store
from flows.summary import shortfall_lines

NEXT_STEP = {status: name for status, (_, name, _) in zip(ORDER, STEPS, strict=False)}


def campaign_status(store: Store, campaign: str | None = None, now: float | None = None) -> list[dict[str, Any]]:
    """Per campaign and batch, what the store knows: posted, submitted, decided, blocked, money, next step."""
    now = time.time() if now is None else now
    names = [campaign] if campaign else [r["name"] for r in store.rows("SELECT name FROM campaigns ORDER BY name")]
    out = []
    for name in names:
        meta = store.rows("SELECT * FROM campaigns WHERE name = ?", [name])
        if not meta:
            continue
        info = json.loads(meta[0]["config_json"] or "{}")
        unit = Decimal(info.get("unit_cost", "0"))
        per_hit = int(info.get("assignments_per_image", 0))
        batches = [_batch_status(store, name, b, unit * per_hit, unit, now)
                   for b in range(1, int(info.get("batches", 0)) + 1)]
        if info.get("place_cost"):  # Prolific: studies' places (less those released), in the budget's currency
            for b in batches:
                b["committed"], b["spent"] = _study_money(store, name, b["batch"], Decimal(info["place_cost"]))
        for b in batches:  # a batch left open on a live route: until when (on the platform's clock)
            b["open_until"] = b.pop("opened_at") + int(info.get("batch_open_s", 0)) \
                if b["status"] == "published" and b.get("opened_at") and info.get("batch_open_s") else None
        pending = [b for b in batches if b["status"] != ORDER[-1]]
        test = qualification_money(store, name, Decimal(info.get("qualification_cost", "0")),
                                   int(info.get("qualification_takers", 0)))
        out.append({
            "campaign": name, "target": meta[0]["target"], "status": meta[0]["status"],
            "budget": info.get("budget", ""), "batches": batches,
            "qualification": {"committed": f"{test[0]:.2f}", "spent": f"{test[1]:.2f}"},
            "committed": f"{sum(Decimal(b['committed']) for b in batches) + test[0]:.2f}",
            "spent": f"{sum(Decimal(b['spent']) for b in batches) + test[1]:.2f}",
            "next": (f"batch {pending[0]['batch']}: {pending[0]['next']}" if pending else "nothing: all batches done"),
            "incomplete": shortfall_lines(store, name),
        })
    return out


def _study_money(store: Store, name: str, batch: int, place_cost: Decimal) -> tuple[str, str]:
    """(committed, spent) of a batch's Prolific study: open places plus taken ones, and paid ones."""
    rows = store.rows("SELECT places, released FROM studies WHERE campaign = ? AND batch = ?", [name, batch])
    places = sum(int(r["places"]) - int(r["released"] or 0) for r in rows)
    paid = store.table("platform_submissions").count_where("campaign = ? AND batch = ? AND status = 'APPROVED'",
                                                           [name, batch])
    return f"{place_cost * places:.2f}", f"{place_cost * paid:.2f}"


def _batch_status(store: Store, name: str, batch: int, per_hit_cost: Decimal, unit: Decimal,
                  now: float) -> dict[str, Any]:
    status = store.batch_status(name, batch)
    opened = store.rows("SELECT opened_at FROM batches WHERE campaign = ? AND batch = ?", [name, batch])
    hits = store.table("hits").count_where("campaign = ? AND batch = ?", [name, batch])
    by_state = {r["status"]: r["n"] for r in store.rows(
        "SELECT status, count(*) AS n FROM assignments WHERE campaign = ? AND batch = ? GROUP BY status",
        [name, batch])}
    decided = {r["action"]: r["n"] for r in store.rows(
        "SELECT action, count(*) AS n FROM decisions WHERE campaign = ? AND batch = ? GROUP BY action", [name, batch])}
    undecided = store.rows(
        "SELECT min(auto_approval_time) AS t, count(*) AS n FROM assignments a WHERE campaign = ? AND batch = ? "
        "AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.assignment_id = a.assignment_id)", [name, batch])[0]
    review = store.table("decisions").count_where("campaign = ? AND batch = ? AND review = 1", [name, batch])
    approved = sum(n for s, n in by_state.items() if s == "Approved") or decided.get("approve", 0)
    return {
        "batch": batch, "status": status, "next": NEXT_STEP.get(status, "done"), "hits": hits,
        "assignments": by_state, "decisions": decided, "for_review": review,
        "undecided": undecided["n"],
        "auto_approval_in_s": round(undecided["t"] - now) if undecided["t"] else None,
        "blocked": store.table("blocks").count_where("campaign = ? AND batch = ?", [name, batch]),
        "committed": f"{per_hit_cost * hits:.2f}", "spent": f"{unit * approved:.2f}",
        "opened_at": opened[0]["opened_at"] if opened else None,
    }


def reconcile(run: Run, dry_run: bool = False) -> dict[str, Any]:
    """Compare ledger and platform: adopt intended HITs, expire strays, fetch missed submissions.

    With ``dry_run`` it only reads the platform and reports what it would do.
    """
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
    from flows.batch_review import decide_batch, qc_batch

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


def format_status(report: list[dict[str, Any]]) -> str:
    if not report:
        return "no campaigns in this store"
    lines = []
    for c in report:
        lines.append(f"{c['campaign']} ({c['status']}) on {c['target']}: committed ${c['committed']}, "
                     f"spent ${c['spent']} of ${c['budget']}; next: {c['next']}")
        test = c.get("qualification", {})
        if Decimal(test.get("committed", "0")):
            lines.append(f"  qualification test: committed ${test['committed']}, spent ${test['spent']} "
                         "(included above)")
        for b in c["batches"]:
            states = ", ".join(f"{k} {v}" for k, v in sorted(b["assignments"].items())) or "none"
            left = b["auto_approval_in_s"]
            due = "" if left is None else f", auto-approval in {left / 3600:.1f} h"
            if left is not None and left < 24 * 3600:
                due += " (ATTENTION: decide before then or the platform pays it all)"
            review = f", {b['for_review']} for manual review" if b["for_review"] else ""
            if b.get("open_until"):
                review += f"; open until {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(b['open_until']))}"
            lines.append(f"  batch {b['batch']}: {b['status']:<9} {b['hits']} HITs; assignments {states}; "
                         f"{b['undecided']} undecided{due}{review}; {b['blocked']} blocked")
        lines += [f"  {line}" for line in c.get("incomplete", [])]
    return "\n".join(lines)


@contextmanager
def open_campaign_run(db: str, campaign: str, endpoint_url: str = "", live: bool = False,
                      progress: Callable[[str], None] = print) -> Iterator[Run]:
    """A Run for a stored campaign, against the endpoint it ran on (or the one given)."""
    from flows.config import load_config
    from flows.errors import ConfigError
    from flows.targets import open_session

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
    kind = "sim" if info.get("target_kind") == "sim" else "mturk"
    if not url and not state:
        raise ConfigError(f"campaign {campaign!r} has no recorded endpoint; pass --endpoint-url")
    with open_session(kind, url, live, seed=None, sim_state=Path(state) if state else None) as session:
        progress(f"target: {session.target.label}")
        yield Run(load_config(meta[0]["config_path"]), store, session.client, session.target, progress, session.wait)


def batch_markdown(store: Store, campaign: str, batch: int) -> tuple[str, list[dict[str, Any]]]:
    """The batch summary people read in Prefect's UI, and its flag table."""
    status = campaign_status(store, campaign)[0]
    b = next(x for x in status["batches"] if x["batch"] == batch)
    flags = store.rows("SELECT rule, count(*) AS flags, count(DISTINCT worker_id) AS workers FROM qc_flags "
                       "WHERE campaign = ? AND batch = ? GROUP BY rule ORDER BY flags DESC", [campaign, batch])
    blocked = store.rows("SELECT worker_id, rules FROM blocks WHERE campaign = ? AND batch = ?", [campaign, batch])
    lines = [f"# {campaign}, batch {batch}", "", "| posted HITs | submitted | approved | rejected | blocked | "
             "spent |", "|---|---|---|---|---|---|",
             f"| {b['hits']} | {sum(b['assignments'].values())} | {b['decisions'].get('approve', 0)} | "
             f"{b['decisions'].get('reject', 0)} | {b['blocked']} | ${b['spent']} |", ""]
    if b["for_review"]:
        lines.append(f"**Needs a person:** {b['for_review']} assignment(s) queued for manual review.")
    lines += ["", "Blocked workers:", ""] + [f"- {md_text(r['worker_id'])}: {md_text(r['rules'])}" for r in blocked]
    lines += ["", f"Next: {status['next']}. Campaign committed ${status['committed']}, spent ${status['spent']}."]
    return "\n".join(lines), flags
