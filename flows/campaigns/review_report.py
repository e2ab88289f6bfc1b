"""The reports' "People and the rules" section: reviewers' decisions against the rules' alone."""

from __future__ import annotations

import pandas as pd

from flows.campaigns.review_data import campaign_queue
from flows.core.run.run_context import Run
from qc.review_queue import people_vs_rules


def review_report(run: Run) -> pd.DataFrame | None:
    """Per batch, people against the rules with its review note; None when nobody reviewed and nothing waited."""
    if run.cfg.review == "none" and not run.store.table("review_actions").count_where("campaign = ?", [run.cfg.name]):
        return None
    summary = people_vs_rules(campaign_queue(run.store, run.cfg.name, run.cfg.policy, run.cfg.review))
    notes = {r["batch"]: r.get("review_note") or "" for r in
             run.store.rows("SELECT * FROM batches WHERE campaign = ?", [run.cfg.name])}
    return summary.assign(note=[notes.get(b, "") for b in summary["batch"]])
