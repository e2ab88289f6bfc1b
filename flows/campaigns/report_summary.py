"""The report's first screen, the same on every kind of report, from the ledger alone."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pandas as pd

from flows.campaigns.budget import qualification_money
from flows.campaigns.identity import recorded_platform
from flows.campaigns.review_rows import ledger_now
from flows.core.ledger.store import Store
from flows.core.run.run_context import Run
from flows.platforms.registry import platform_facts, platform_for
from flows.platforms.words import RouteWords

# Below this, the auto-approval deadline is close enough to say so in red (hitflow status says it too).
URGENT_S = 24 * 3600


def when(seconds: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds)) if seconds else "not yet"


def _dates(store: Store, campaign: str) -> dict[str, str]:
    created = store.rows("SELECT created_at, config_json FROM campaigns WHERE name = ?", [campaign])
    work = store.rows("SELECT min(accept_time) AS first, max(submit_time) AS last FROM assignments "
                      "WHERE campaign = ?", [campaign])[0]
    # On the platform's clock, as the work's times are; a ledger from before it was kept has only real time.
    info = json.loads(created[0]["config_json"] or "{}") if created else {}
    platform_time = info.get("platform_created_at")
    # the simulator's clock is virtual: its dates are not today's, and the report says whose they are
    clock = " (the simulator's clock)" if info.get("target_kind") == "sim" and platform_time else ""
    return {"created": when(platform_time or (created[0]["created_at"] if created else None)),
            "first_work": when(work["first"]), "last_work": when(work["last"]) + (clock if work["last"] else "")}


def route_label(run: Run) -> str:
    """The report's route: the platform and where it answered ("Prolific via simulator (embedded, ...)")."""
    return f"{platform_for(run.platform).LABEL} via {run.target.label}"


def route_words(store: Store, campaign: str) -> RouteWords:
    """The campaign's route's words for its work (flows/platforms/words.py), from its ledger row."""
    row = store.rows("SELECT config_json FROM campaigns WHERE name = ?", [campaign])
    return platform_facts(recorded_platform(store, campaign, row[0]["config_json"] if row else None)).WORDS


def needs_a_person(store: Store, campaign: str, now: float | None) -> list[dict[str, Any]]:
    """What waits for someone, each with its deadline and urgency, on the platform's clock; [] when nothing."""
    from flows.campaigns.review_data import ledger_state

    state = ledger_state(store, campaign, now)[0]
    out = [{"what": f"batch {b['batch']} is held for review: {b['hold']}", "by": "before the next batch",
            "urgent": True, "waits": True}
           for b in store.rows("SELECT * FROM batches WHERE campaign = ? ORDER BY batch", [campaign])
           if b.get("hold") and not b.get("hold_release")]
    left = state["auto_approval_in_s"]
    clock = now if now is not None else ledger_now(store, campaign)
    if state["open"]:
        out.append({"what": f"{state['open']} review item(s) open in the review queue (`hitflow review {campaign}`)",
                    "by": "before auto-approval", "urgent": left is not None and left < URGENT_S, "waits": True})
    if state["undecided"]:
        words = route_words(store, campaign)
        works = words.work if state["undecided"] == 1 else words.works
        out.append({"what": f"{state['undecided']} submitted {works} {'has' if state['undecided'] == 1 else 'have'} "
                            "no decision on the platform yet; "
                            "the platform approves and pays them itself at the deadline",
                    "by": when(clock + left) if left is not None else "not yet",
                    "urgent": left is not None and left < URGENT_S})
    return out


def summary_header(store: Store, campaign: str, figures: list[tuple[str, str]], cost: dict[str, Any],
                   now: float | None = None, about: str = "", lines: list[str] | None = None,
                   provenance: dict[str, Any] | None = None) -> dict[str, Any]:
    """What every report's summary shows: the kind's ``figures``, cost against budget, dates, what waits."""
    spent, budget = float(cost["spent"]), float(cost["budget"])
    share = f"{100 * spent / budget:.0f}%" if budget else "no budget set"
    needs = needs_a_person(store, campaign, now)
    return {"about": about, "waiting": any(n.get("waits") for n in needs), "lines": lines or [],
            "spent": cost["spent"], "budget": cost["budget"],
            "share_of_budget": share,
            "figures": [*figures, ("cost with fees", f"${cost['spent']} of ${cost['budget']} ({share})")],
            **_dates(store, campaign), "needs": needs,
            "work": route_words(store, campaign).work,
            "provenance": provenance_lines(provenance or {})}


def provenance_lines(provenance: dict[str, Any]) -> list[tuple[str, str]]:
    """The report's provenance box: (label, value) rows; ``provenance.json`` holds the whole record."""
    if not provenance:
        return []
    version = provenance["hitflow"]
    rows = [(f"{role} SHA-256", f"{entry['sha256'][:16]}… {Path(entry['path']).name}")
            for role, entry in sorted(provenance["inputs"].items())]
    rows += [("seed", f"{provenance['seed']}" + (f" (simulator {provenance['simulator_seed']})"
                                               if provenance.get("simulator_seed") is not None else "")),
             ("hitflow", version["version"] + (f" at {version['revision']}" if version["revision"] else "")),
             ("Python", provenance["python"]), ("platform", f"{provenance['platform']} on {provenance['target']}"),
             ("libraries", ", ".join(f"{k} {v}" for k, v in provenance["libraries"].items() if v))]
    return rows


def report_summary(store: Store, campaign: str, captions: pd.DataFrame, blocked: pd.DataFrame,
                   cost: dict[str, Any], now: float | None = None, provenance: dict[str, Any] | None = None,
                   lines: list[str] | None = None) -> dict[str, Any]:
    """The caption report's summary from every caption with ``is_rejected``, the ``cost`` text and closing ``lines``."""
    kept = int((~captions["is_rejected"]).sum()) if len(captions) else 0
    workers = int(captions["worker_id"].nunique()) if len(captions) else 0
    figures = [("captions kept", f"{kept} of {len(captions)}"), ("workers", str(workers)),
               ("blocked", str(len(blocked)))]
    return {"captions": len(captions), "kept": kept, "workers": workers, "blocked": len(blocked),
            **summary_header(store, campaign, figures, cost, now, lines=lines, provenance=provenance)}


def money_so_far(run: Run) -> dict[str, str]:
    """Spent with fees (approved work and a paid qualification test), and the budget."""
    name = run.cfg.name
    approved = run.store.table("decisions").count_where("campaign = ? AND action = 'approve'", [name])
    platform = platform_for(run.platform)
    unit = platform.assignment_cost(run.cfg)
    test = qualification_money(run.store, name, platform.gate_test_cost(run.cfg), run.cfg.gating.qualification_takers)
    return {"spent": f"{unit * approved + test[1]:.2f}", "budget": f"{run.cfg.budget:.2f}"}


def work_figures(run: Run, noun: str) -> list[tuple[str, str]]:
    """A study's or a custom page's first figures: its responses kept (approved), workers, blocked."""
    name = run.cfg.name
    came = run.store.rows("SELECT count(*) AS n, count(DISTINCT worker_id) AS w FROM assignments WHERE campaign = ?",
                          [name])[0]
    approved = run.store.table("decisions").count_where("campaign = ? AND action = 'approve'", [name])
    return [(f"{noun} approved", f"{approved} of {came['n']}"), ("workers", str(came["w"])),
            ("blocked", str(run.store.table("blocks").count_where("campaign = ?", [name])))]
