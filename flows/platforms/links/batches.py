"""The self-hosted route (``--platform links``): units handed to invitees through signed links."""

from __future__ import annotations

import time
from typing import Any

import pandas as pd

from flows.core.config.config import hold_seconds
from flows.core.inputs.csv_writing import write_csv
from flows.core.outputs.output_location import staging_root
from flows.core.run.run_context import Run
from flows.core.site_secrets import invite_link, task_secret
from flows.platforms.batch_window import closes_now, open_window, record_unfilled
from flows.platforms.links.rehearsal import simulated_round
from flows.platforms.targets import add_known_to_crowd, simulated_crowd
from flows.platforms.unit_extensions import responses


def invitees(run: Run) -> list[str]:
    """Who gets a link: ``--invite``'s names, else an earlier run's ``invites.csv``, else the simulator's crowd."""
    if run.notes.get("invitees"):
        return list(run.notes["invitees"])
    sent = staging_root(run.notes.get("out_dir", "runs")) / run.cfg.name / "invites.csv"
    if sent.is_file():  # a resumed or scheduled run keeps the people the first run invited
        return [str(n) for n in pd.read_csv(sent, dtype=str, keep_default_na=False)["name"]]
    units = run.store.rows("SELECT COUNT(DISTINCT hit_index) AS n FROM items WHERE campaign = ?", [run.cfg.name])
    wanted = int(units[0]["n"]) * run.cfg.assignments_per_image
    workers = sim_crowd(run)[0]
    return [w.worker_id for w in workers][: max(1, wanted)]


def sim_crowd(run: Run) -> tuple[list[Any], dict[str, Any]]:
    """The simulator's crowd as invitees, once per run."""
    if "crowd" not in run.notes:
        run.notes["crowd"] = simulated_crowd(run.cfg.sim_crowd, run.notes.get("seed", 1))
        add_known_to_crowd(run.notes["crowd"], run.notes.get("known_answers", []))  # driver/sim_marketplace.py
    return run.notes["crowd"]  # type: ignore[no-any-return]


def invite_links(run: Run) -> dict[str, str]:
    """Each invitee's signed link (signed with the ledger's secret, stamped on the task server's clock)."""
    secret, clock = task_secret(run.store.location), run.notes.get("invitee_clock") or time.time
    return {name: invite_link(secret, run.notes["task_url"], run.cfg.name, name, clock) for name in invitees(run)}


def open_links(run: Run, batch: int) -> dict[str, Any]:
    """One invite link per invitee, written to ``invites.csv``; the batch's window opens now."""
    open_window(run, batch)
    links = invite_links(run)
    out = staging_root(run.notes.get("out_dir", "runs")) / run.cfg.name  # copied to an output URL between batches
    write_csv(pd.DataFrame(sorted(links.items()), columns=["name", "link"]), out / "invites.csv")
    run.notes["links"] = links
    run.progress(f"batch {batch}: {len(links)} invite links at {run.notes['task_url']} (invites.csv)")
    return {"invites": len(links)}


def collect_links(run: Run, batch: int) -> dict[str, Any]:
    """Simulated invitees do their unit now; real ones are looked at until each unit is answered or time is up."""
    units = run.store.rows("SELECT COUNT(DISTINCT hit_index) AS n FROM items WHERE campaign = ? AND batch = ?",
                           [run.cfg.name, batch])[0]["n"]
    places = units * run.cfg.assignments_per_image  # full is full: a late opener's answer is late work
    if run.notes.get("simulated_people") and responses(run, batch) < places:  # collected once, not per call
        links = run.notes.get("links") or invite_links(run)  # a resumed run did not open them itself
        submitted, came = simulated_round(run, batch, links, sim_crowd(run))
        run.progress(f"batch {batch}: {submitted} of {came} invitees submitted")
    while True:
        done = responses(run, batch)
        if run.notes.get("simulated_people") or closes_now(run, batch, done, places,
                                                           0 if done >= places else _in_progress(run, batch)):
            if not run.notes.get("simulated_people"):
                record_unfilled(run, batch, units, places, done)
            return {"assignments": done}
        run.wait(run.cfg.poll_interval_s)


def _in_progress(run: Run, batch: int) -> int:
    """Invitees who opened their page and have not submitted yet (within the hold time)."""
    return int(run.store.table("task_sessions").count_where(
        "campaign = ? AND batch = ? AND submitted_at IS NULL AND released = 0 AND created_at > ?",
        [run.cfg.name, batch, time.time() - hold_seconds(run.cfg)]))
