"""Adaptive overlap on invite links: ``ExtendUnit`` rows for the task server, no platform call."""

from __future__ import annotations

from typing import Any

from flows.core.ledger.ledger_calls import intend_calls, send_calls
from flows.core.run.run_context import Run
from flows.platforms.batch_window import closes_now
from flows.platforms.links.batches import invite_links, sim_crowd
from flows.platforms.links.rehearsal import invitees_on_clock
from flows.platforms.unit_extensions import responses, round_places, served_units, unit_calls


def posted_units(run: Run, batch: int) -> list[tuple[str, list[str]]]:
    """The batch's units as the task server names an invitee's work: ``invite:u<index>``."""
    return served_units(run, batch, "invite")


def extend_units(run: Run, batch: int, round_no: int, unit_ids: list[str]) -> dict[str, Any]:
    """One more judgement on each of ``unit_ids`` (recorded once, whatever happens), then the round collected."""
    calls = unit_calls(run, batch, round_no, unit_ids)
    done, todo = intend_calls(run.store, run.cfg.name, batch, calls)
    send_calls(run.store, [c for c, _ in todo], 1)
    before = responses(run, batch)
    collect_round(run, batch, round_no)
    return {"extended": len(calls), "sent_now": len(todo), "earlier": len(done),
            "assignments": responses(run, batch) - before}


def collect_round(run: Run, batch: int, round_no: int) -> None:
    """Until every unit holds its target: simulated invitees come back in turn, real ones are waited for."""
    places = round_places(run, batch)
    if run.notes.get("simulated_people"):
        links = run.notes.get("links") or invite_links(run)
        for name, url in links.items():
            if responses(run, batch) >= places:
                break
            # one simulated invitee comes back for this round on a seeded schedule; the clock moves on
            invitees_on_clock(run, batch, {name: url}, sim_crowd(run), 100 * batch + round_no, run.clock(), frozenset())
        return
    while not closes_now(run, batch, responses(run, batch), places):
        run.wait(run.cfg.poll_interval_s)

