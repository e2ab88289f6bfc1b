"""What the store knows about a campaign, per batch: ``hitflow status``, from the ledger alone."""

from __future__ import annotations

import json
import shlex
import time
from decimal import Decimal
from typing import Any

from flows.campaigns.budget import adaptive_line, adaptive_saving, extra_assignments, qualification_money
from flows.campaigns.identity import recorded_platform
from flows.campaigns.summary import short_item_lines, shortfall_lines
from flows.core.ledger.store import Store
from flows.core.pages.markdown_text import md_text
from flows.core.terminal import on_terminal, print_table
from flows.driver.batch_steps import NEXT_STEP, ORDER
from flows.driver.batch_steps import status_words as batch_status_words
from flows.driver.schedule_wait import WAITING, last_scheduled_run, waiting_words
from flows.platforms import DEFAULT_PLATFORM
from flows.platforms.marketplace_identity import public_url
from flows.platforms.operation_steps import short_by_cancel
from flows.platforms.registry import platform_facts
from flows.platforms.words import route_words
from qc.campaign_state import state_words


def campaign_status(store: Store, campaign: str | None = None, now: float | None = None) -> list[dict[str, Any]]:
    """Per campaign and batch, what the store knows and what needs a person, on the platform's clock."""
    from flows.campaigns.campaign_needs import needs_state
    from flows.campaigns.review_rows import ledger_now

    names = [campaign] if campaign else [r["name"] for r in store.rows("SELECT name FROM campaigns ORDER BY name")]
    out = []
    for name in names:
        meta = store.rows("SELECT * FROM campaigns WHERE name = ?", [name])
        if not meta:
            continue
        info = json.loads(meta[0]["config_json"] or "{}")
        facts = platform_facts(recorded_platform(store, name, meta[0]["config_json"]))
        # Invite links pay nobody through a platform: no money, whatever an older row recorded as unit_cost
        paid = facts.SENDS_DECISIONS
        unit = Decimal(info.get("unit_cost", "0")) if paid else Decimal(0)
        per_hit = int(info.get("assignments_per_image", 0))
        clock = ledger_now(store, name) if now is None else now
        state = needs_state(store, name, clock)
        batches = [_batch_status(store, name, b, unit * per_hit, unit, state["by_batch"].get(b))
                   for b in range(1, int(info.get("batches", 0)) + 1)]
        for b in batches:  # in the route's words: "3 HITs", "1 study (9 places)", "2 pages on invite links"
            posted = store.rows(facts.WORDS.posted_sql, [name, b["batch"]])[0]
            b["posted"] = facts.WORDS.posted(int(posted["n"] or 0), None if posted["places"] is None
                                             else int(posted["places"]))
        if info.get("place_cost"):  # Prolific: studies' places (less those released), in the budget's currency
            for b in batches:
                b["committed"], b["spent"] = _study_money(store, name, b["batch"], Decimal(info["place_cost"]))
        stopped = meta[0]["status"] == "cancelled"  # its unfinished batches are not open nor waiting for a step
        for b in batches:  # a batch left open on a live route: until when (on the platform's clock)
            b["open_until"] = b.pop("opened_at") + int(info.get("batch_open_s", 0)) if not stopped \
                and b["status"] == "published" and b.get("opened_at") and info.get("batch_open_s") else None
            b["cancelled"] = stopped and b["next"] != "done"
        # a cancelled batch whose work was all in and decided is not left unfinished: nothing is left to post
        pending = [b for b in batches if b["status"] != ORDER[-1] and not (stopped and b["settled"])]
        test = qualification_money(store, name, Decimal(info.get("qualification_cost", "0")) if paid else Decimal(0),
                                   int(info.get("qualification_takers", 0)))
        if info.get("screening_place_cost"):  # Prolific's control quiz: a study of its own, batch 0's
            quiz = _study_money(store, name, 0, Decimal(info["screening_place_cost"]))
            test = (test[0] + Decimal(quiz[0]), test[1] + Decimal(quiz[1]))
        status = shown_status(store, name, meta[0]["status"])
        out.append({
            "campaign": name, "target": meta[0]["target"], "status": status, "paid": paid,
            "platform": facts.LABEL, "work_words": facts.WORDS.works, "people_words": facts.WORDS.people,
            "config_path": meta[0].get("config_path", ""),
            "budget": info.get("budget", ""), "batches": batches,
            "qualification": {"committed": f"{test[0]:.2f}", "spent": f"{test[1]:.2f}", "what": "control quiz's "
                              "screening study" if info.get("screening_place_cost") else "qualification test"},
            "committed": f"{sum(Decimal(b['committed']) for b in batches) + test[0]:.2f}",
            "spent": f"{sum(Decimal(b['spent']) for b in batches) + test[1]:.2f}",
            "next": next_step(status, pending, meta[0]["config_path"], store.shown(),
                              short_by_cancel(store, name, per_hit) if status == "cancelled" else {},
                              route_options(info, recorded_platform(store, name, meta[0]["config_json"]))),
            "incomplete": shortfall_lines(store, name) + short_item_lines(store, name),
            "adaptive": adaptive_saving(store, name, info, unit),
            "needs": {k: v for k, v in state.items() if k != "by_batch"} | {
                "person_by_batch": {b: s["person"] for b, s in state["by_batch"].items() if s.get("person")}},
            "platform_now": clock,
        })
        out[-1]["status_words"] = status_words(store, out[-1])
    return out


def shown_status(store: Store, name: str, stored: str) -> str:
    """The ledger's status, but "stopped" for a run no live process holds any more."""
    if stored != "running":
        return stored
    if store.live_holder(name, others_only=False):
        return "running"
    return WAITING if last_scheduled_run(store, name) else "stopped"  # between two runs of its schedule


def status_words(store: Store, c: dict[str, Any]) -> str:
    """The campaign's status in words: what a scheduled campaign waits for; "waiting for review", not "stopped"."""
    note = last_scheduled_run(store, c["campaign"]) if c["status"] == WAITING else None
    if note:
        return waiting_words(note)
    if c["status"] == "stopped" and (c.get("needs") or {}).get("needs_person"):
        return "waiting for review"
    return str(c["status"])


def route_options(info: dict[str, Any], platform: str) -> str:
    """The options that put a resumed run on the route the campaign ran on."""
    words = [] if platform == DEFAULT_PLATFORM else ["--platform", platform]
    if info.get("target_kind") not in (None, "", "sim"):
        words += ["--target", str(info["target_kind"]), "--live"]
    if info.get("endpoint_url") and not info.get("sim_state"):
        words += ["--endpoint-url", public_url(str(info["endpoint_url"]))]  # a ledger from before may hold one
    return shlex.join(words)


def next_step(status: str, pending: list[dict[str, Any]], config_path: str, ledger: str = "runs/hitflow.db",
              again: dict[int, tuple[int, int]] | None = None, route: str = "") -> str:
    """What comes next: the first unfinished batch's step with its command, or why nothing does."""
    if status == "cancelled" and pending:
        first = "; ".join(f"batch {batch}: the items of {units} HIT(s) the cancel closed short, for their {missing} "
                          "missing assignment(s)" for batch, (units, missing) in sorted((again or {}).items()))
        return (f"nothing (cancelled): {len(pending)} batch(es) left unfinished; post them on purpose with "
                f"`hitflow run {shlex.quote(config_path)} --db {shlex.quote(ledger)}{' ' + route if route else ''} "
                "--resume-cancelled`" + (f", which first posts again {first}" if first else ""))
    if status == "cancelled":
        return "nothing (cancelled once every batch's work was in and decided)"
    if not pending:
        return "nothing: all batches done"
    return f"batch {pending[0]['batch']}: {pending[0]['next']}"


def _study_money(store: Store, name: str, batch: int, place_cost: Decimal) -> tuple[str, str]:
    """(committed, spent) of a batch's Prolific study: open places plus taken ones, and paid ones."""
    rows = store.rows("SELECT places, released FROM studies WHERE campaign = ? AND batch = ?", [name, batch])
    places = sum(int(r["places"]) - int(r["released"] or 0) for r in rows)
    paid = store.table("platform_submissions").count_where("campaign = ? AND batch = ? AND status = 'APPROVED'",
                                                           [name, batch])
    return f"{place_cost * places:.2f}", f"{place_cost * paid:.2f}"


def _batch_status(store: Store, name: str, batch: int, per_hit_cost: Decimal, unit: Decimal,
                  state: dict[str, Any] | None) -> dict[str, Any]:
    """``state``: the batch's part of :func:`flows.campaigns.campaign_needs.needs_state` (None: nothing stored)."""
    status = store.batch_status(name, batch)
    opened = store.rows("SELECT * FROM batches WHERE campaign = ? AND batch = ?", [name, batch])
    hits = store.table("hits").count_where("campaign = ? AND batch = ?", [name, batch])
    extended = extra_assignments(store, name, batch)
    by_state = {r["status"]: r["n"] for r in store.rows(
        "SELECT status, count(*) AS n FROM assignments WHERE campaign = ? AND batch = ? GROUP BY status",
        [name, batch])}
    decided = {r["action"]: r["n"] for r in store.rows(
        "SELECT action, count(*) AS n FROM decisions WHERE campaign = ? AND batch = ? GROUP BY action", [name, batch])}
    state = state or {"needs_person": 0, "undecided": 0, "auto_approval_in_s": None}
    approved = sum(n for s, n in by_state.items() if s == "Approved") or decided.get("approve", 0)
    # every collected assignment has its verdict and nothing waits for a person: past the decisions
    settled = bool(by_state) and ORDER.index("collected") <= ORDER.index(status) < ORDER.index("blocked") and not (
        state["undecided"] or state["needs_person"])
    shown = "decided" if settled else status
    return {
        "batch": batch, "status": status, "step": batch_status_words(shown), "next": NEXT_STEP.get(shown, "done"),
        "settled": settled,
        "hits": hits,
        "assignments": by_state, "decisions": decided, "for_review": state["needs_person"],
        "undecided": state["undecided"], "auto_approval_in_s": state["auto_approval_in_s"],
        "blocked": store.table("blocks").count_where("campaign = ? AND batch = ?", [name, batch]),
        "committed": f"{per_hit_cost * hits + unit * extended:.2f}", "spent": f"{unit * approved:.2f}",
        "opened_at": opened[0].get("opened_at") if opened else None,
        "held": (opened[0].get("hold") or "") if opened and not opened[0].get("hold_release") else "",
    }

def _due(b: dict[str, Any]) -> str:
    left = b["auto_approval_in_s"]
    if left is None:
        return ""
    return f"{left / 3600:.1f} h" + (" (ATTENTION: decide before then or the platform pays it all)"
                                      if left < 24 * 3600 else "")


def _until(b: dict[str, Any]) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(b["open_until"])) if b.get("open_until") else ""


def show_status(report: list[dict[str, Any]]) -> None:
    """``hitflow status`` on stdout: on a terminal a table per campaign, otherwise the plain lines."""
    if not report or not on_terminal():
        print(format_status(report))
        return
    for c in report:
        rows = [(b["batch"], step_words(b), b["posted"],
                 ", ".join(f"{k} {v}" for k, v in sorted(b["assignments"].items())) or "none", b["undecided"],
                 _due(b), b["for_review"], _until(b), b["blocked"]) for b in c["batches"]]
        print_table(headline(c),
                    ["batch", "status", "posted", c["work_words"], "undecided", "auto-approval in", "for a person",
                     "open until", "blocked"], rows)
        print(state_words(c["needs"])) if c.get("needs") else None
        test = c.get("qualification", {})
        if Decimal(test.get("committed", "0")):
            print(f"{test.get('what', 'qualification test')}: committed ${test['committed']}, spent "
                  f"${test['spent']} (included above)")
        for b in c["batches"]:
            for line in held_lines(c, b):
                print(f"batch {b['batch']}: {line}")
        for line in c.get("incomplete", []):
            print(line)


def headline(c: dict[str, Any]) -> str:
    """The campaign's first line: its status in words, route, money and next step."""
    shown = c.get("status_words", c["status"])
    return f"{c['campaign']} ({shown}) on {route_words(c)}: {money_words(c)}; next: {c['next']}"


def money_words(c: dict[str, Any]) -> str:
    """The campaign's money for its status line: what was committed and spent, or that nobody is paid."""
    if not c.get("paid", True):
        return "nothing is paid through a platform"
    return f"committed ${c['committed']}, spent ${c['spent']} of ${c['budget']}"


def held_lines(c: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """A batch held for review: why, and how to release it (flows/campaigns/batch_hold.py)."""
    if not b.get("held"):
        return []
    config = c.get("config_path") or "CONFIG"
    return [f"HELD for review (nothing rejected or blocked): {b['held']}",
            f"release: `hitflow run {config} --release-hold approve` (approve despite the rule) or "
            "`--release-hold rules` (decide by the rules)"]


def step_words(b: dict[str, Any]) -> str:
    """"done", or the last step and the next ("published (next: collect submissions)")."""
    if b["next"] == "done":
        return "done"
    step = b.get("step", b["status"])
    if b.get("cancelled"):
        return f"{step} ({'all its work; ' if b.get('settled') else ''}stopped by the cancel)"
    return f"{step} (next: {b['next']})"


def format_status(report: list[dict[str, Any]]) -> str:
    if not report:
        return "no campaigns in this store"
    lines = []
    for c in report:
        lines.append(headline(c))
        lines += [f"  {state_words(c['needs'])}"] if c.get("needs") else []
        test = c.get("qualification", {})
        if Decimal(test.get("committed", "0")):
            lines.append(f"  {test.get('what', 'qualification test')}: committed ${test['committed']}, "
                         f"spent ${test['spent']} (included above)")
        for b in c["batches"]:
            states = ", ".join(f"{k} {v}" for k, v in sorted(b["assignments"].items())) or "none"
            due = f", auto-approval in {_due(b)}" if _due(b) else ""
            review = f", {b['for_review']} need(s) a person" if b["for_review"] else ""
            if b.get("open_until"):
                review += f"; open until {_until(b)}"
            lines.append(f"  batch {b['batch']}: {step_words(b)}; {b['posted']}; {c['work_words']} {states}; "
                         f"{b['undecided']} undecided{due}{review}; {b['blocked']} {c['people_words']} blocked")
            lines += [f"    {line}" for line in held_lines(c, b)]
        lines += [f"  {line}" for line in c.get("incomplete", [])]
        lines += [f"  {adaptive_line(c['adaptive'])}"] if c.get("adaptive") else []
    return "\n".join(lines)


def batch_markdown(store: Store, campaign: str, batch: int) -> tuple[str, list[dict[str, Any]]]:
    """The batch summary people read in Prefect's UI, and its flag table."""
    status = campaign_status(store, campaign)[0]
    b = next(x for x in status["batches"] if x["batch"] == batch)
    flags = store.rows("SELECT rule, count(*) AS flags, count(DISTINCT worker_id) AS workers FROM qc_flags "
                       "WHERE campaign = ? AND batch = ? GROUP BY rule ORDER BY flags DESC", [campaign, batch])
    blocked = store.rows("SELECT worker_id, rules FROM blocks WHERE campaign = ? AND batch = ?", [campaign, batch])
    lines = [f"# {campaign}, batch {batch}", "", "| posted | submitted | approved | rejected | blocked | "
             "spent |", "|---|---|---|---|---|---|",
             f"| {b['posted']} | {sum(b['assignments'].values())} | {b['decisions'].get('approve', 0)} | "
             f"{b['decisions'].get('reject', 0)} | {b['blocked']} | ${b['spent']} |", ""]
    if b["for_review"]:
        lines.append(f"**Needs a person:** {b['for_review']} (review items open or a held batch).")
    lines += ["", "Blocked workers:", ""] + [f"- {md_text(r['worker_id'])}: {md_text(r['rules'])}" for r in blocked]
    lines += ["", f"Next: {status['next']}. Campaign: {money_words(status)}."]
    return "\n".join(lines), flags
