"""Adaptive overlap on Prolific: more places on the batch's own study, never added twice."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from flows.core.config.money import to_budget_currency
from flows.core.errors import BudgetError
from flows.core.ledger.ledger_calls import Adopted, LedgeredCall, intend_calls, ledgered, send_calls
from flows.core.run.run_context import Run
from flows.platforms.batch_window import closes_now, detaches, end_waiting
from flows.platforms.prolific import adapter as prolific
from flows.platforms.prolific.batches import prolific_client, record_submissions, stop_study
from flows.platforms.prolific.statuses import place_counts
from flows.platforms.unit_extensions import EXTEND_UNIT_OP, responses, served_units, unit_calls

PLACES_OP = "IncreasePlaces"


def study_of(run: Run, batch: int) -> dict[str, Any]:
    return dict(run.store.rows("SELECT * FROM studies WHERE campaign = ? AND batch = ?", [run.cfg.name, batch])[0])


def posted_units(run: Run, batch: int) -> list[tuple[str, list[str]]]:
    """The batch's units as the task server names their work: ``<study id>:u<index>``."""
    rows = run.store.rows("SELECT study_id FROM studies WHERE campaign = ? AND batch = ?", [run.cfg.name, batch])
    return served_units(run, batch, str(rows[0]["study_id"])) if rows else []


def places_key(name: str, batch: int, round_no: int) -> str:
    return f"{name}:b{batch}:places:r{round_no}"


def stop_key(run: Run, batch: int) -> str:
    """The key the batch's study is stopped under now: the publish's collection, or the last round's."""
    rounds = [int(p["round"]) for p in places_rounds(run, batch)]
    return f"{run.cfg.name}:b{batch}:stop" + (f":r{max(rounds)}" if rounds else "")


def places_rounds(run: Run, batch: int) -> list[dict[str, Any]]:
    """The recorded ``IncreasePlaces`` intents of the batch (their parameters)."""
    rows = run.store.rows("SELECT params FROM ledger WHERE campaign = ? AND batch = ? AND operation = ?",
                          [run.cfg.name, batch, PLACES_OP])
    return [json.loads(r["params"] or "{}") for r in rows]


def total_after(run: Run, batch: int, round_no: int, added: int) -> int:
    """The study's places once this round's are added: the published places plus every earlier round's."""
    made = run.store.ledger_entry(f"{run.cfg.name}:b{batch}:study")
    published = int(json.loads(made["params"] if made else "{}").get("total_available_places")
                     or study_of(run, batch)["places"])
    earlier = sum(int(p["added"]) for p in places_rounds(run, batch) if int(p["round"]) < round_no)
    return published + earlier + added


def check_round_budget(run: Run, batch: int, total: int) -> None:
    """Every study's places, this one at its new total, must still fit the budget."""
    cfg = run.cfg
    others = sum(int(r["places"]) - int(r["released"] or 0) for r in run.store.rows(
        "SELECT places, released FROM studies WHERE campaign = ? AND batch != ?", [cfg.name, batch]))
    cost = Decimal(prolific.study_cost(prolific_client(run), int(cfg.prolific.reward * 100), total + others)) / 100
    if to_budget_currency(cfg, cost, cfg.prolific.currency) > cfg.budget:
        knob = "[answers].max_judgements" if cfg.answers.adaptive else "[answers].top_up_rounds"
        raise BudgetError(f"batch {batch}: {total} places would commit {cost:.2f} {cfg.prolific.currency} with "
                          f"Prolific's fees against a budget of {cfg.budget:.2f} {cfg.budget_currency}; raise "
                          f"[campaign].budget or lower {knob}")


def places_call(run: Run, batch: int, round_no: int, study_id: str, total: int, added: int) -> LedgeredCall:
    def send() -> dict[str, Any]:
        client = prolific_client(run)
        now = int(prolific.get_study(client, study_id)["total_available_places"])
        if now >= total:  # an earlier run's call went through; its answer was never written down
            return Adopted(study_id=study_id, total_available_places=now)
        prolific.call(client, "PATCH", f"studies/{study_id}/", {"total_available_places": total})
        return {"study_id": study_id, "total_available_places": total}

    return LedgeredCall(PLACES_OP, places_key(run.cfg.name, batch, round_no),
                        {"study_id": study_id, "round": round_no, "added": added, "total_available_places": total},
                        send)


def extend_units(run: Run, batch: int, round_no: int, unit_ids: list[str]) -> dict[str, Any]:
    """``len(unit_ids)`` more places on the batch's study, once whatever happens, then the round collected."""
    study = study_of(run, batch)
    key = places_key(run.cfg.name, batch, round_no)
    recorded = run.store.ledger_entry(key)
    total = int(json.loads(recorded["params"])["total_available_places"]) if recorded else \
        total_after(run, batch, round_no, len(unit_ids))
    if recorded is None:
        check_round_budget(run, batch, total)
    calls = [*unit_calls(run, batch, round_no, unit_ids),
             places_call(run, batch, round_no, study["study_id"], total, len(unit_ids))]
    done, todo = intend_calls(run.store, run.cfg.name, batch, calls)
    # served again once it reopens
    run.store.table("studies").update((run.cfg.name, study["study_id"]), {"status": "ACTIVE"})
    send_calls(run.store, [c for c, _ in todo if c.operation == PLACES_OP], 1)
    send_calls(run.store, [c for c, _ in todo if c.operation == EXTEND_UNIT_OP], 1)  # settled after the places
    run.store.table("studies").update((run.cfg.name, study["study_id"]), {"places": total})
    before = responses(run, batch)
    collect_round(run, batch, study["study_id"], total)
    return {"extended": len(calls) - 1, "sent_now": len(todo), "earlier": len(done),
            "assignments": responses(run, batch) - before}


def collect_round(run: Run, batch: int, study_id: str, places: int) -> None:
    """Look until the study's ``places`` are finished (or its time is up), then stop it under the round's key."""
    interval, waited = float(run.cfg.poll_interval_s), 0.0
    deadline = float(run.cfg.batch_open_s or run.cfg.hit_lifetime_s)
    while True:
        count = place_counts([s["status"] for s in record_submissions(run, batch, study_id)])
        if (count["finished"] >= places and not count["pending"]) or waited >= deadline or (
                detaches(run) and closes_now(run, batch, count["finished"], places, count["pending"])):
            break
        run.wait(interval)
        waited += interval
    end_waiting(run, batch)
    status = ledgered(run.store, run.cfg.name, batch, LedgeredCall(
        "StopStudy", stop_key(run, batch), {"study_id": study_id}, lambda: {"status": stop_study(run, study_id)}))
    record_submissions(run, batch, study_id)  # a participant may have finished between the last look and the stop
    run.store.table("studies").update((run.cfg.name, study_id), {"status": status["status"]})
