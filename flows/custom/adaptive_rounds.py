"""Adaptive overlap on a custom page: low-confidence units get one more assignment a round, to ``max_judgements``."""

from __future__ import annotations

from typing import Any

import pandas as pd

from flows.answers.answers_step import skill_prior_of
from flows.campaigns.extension_rounds import next_round, unit_frame
from flows.core.config.config import top_up_cap
from flows.core.run.run_context import Run
from flows.custom.custom_outputs import choice_fields, control_items, dataset_frame
from postprocess.answers.calibration import as_reported
from postprocess.answers.extension_rounds import top_up_units, units_to_extend
from postprocess.answers.skill_posterior import fast_workers as timed_fast_workers
from postprocess.answers.skill_posterior import label_posterior


def received_judgements(run: Run) -> pd.DataFrame:
    """Every choice received so far (``item_id, worker_id, field, label``): not rejected, not by a blocked worker."""
    data = dataset_frame(run)
    blocked = {r["worker_id"] for r in run.store.rows("SELECT worker_id FROM blocks WHERE campaign = ?",
                                                       [run.cfg.name])}
    keep = (data["decision"] != "reject") & data["field"].isin(choice_fields(run)) \
        & (data["value"].astype(str) != "") & ~data["worker_id"].isin(blocked)
    return data[keep].rename(columns={"value": "label"})[["item_id", "worker_id", "field", "label"]]


def fast_workers(run: Run, share: float) -> frozenset[str]:
    """Workers whose median time so far is below ``share`` of the median assignment's (``share`` 0: nobody)."""
    if share <= 0:
        return frozenset()
    rows = run.store.rows("SELECT worker_id, submit_time - accept_time AS seconds FROM assignments WHERE campaign = ? "
                          "AND batch > 0 AND submit_time IS NOT NULL AND accept_time IS NOT NULL", [run.cfg.name])
    times = pd.DataFrame([(r["worker_id"], r["seconds"]) for r in rows], columns=["worker_id", "seconds"])
    return timed_fast_workers(times, share)


def plan_round(run: Run, batch: int, rounds: dict[int, list[str]]) -> list[str]:
    """The units the next round extends, from the judgements received so far."""
    settings = run.cfg.answers
    judgements = received_judgements(run)
    # the skill-aware posterior as answers.csv reports it: two agreeing workers barely seen before are not certain
    controls = control_items(run)  # control items are scored, never answered: they need no more judgements
    posterior = label_posterior(judgements, skill_prior_of(settings), fast_workers(run, settings.fast_share))
    answers = as_reported(posterior, judgements.groupby("field")["label"].nunique(), controls)
    units = unit_frame(run, batch, rounds)
    if controls is not None:
        units = units[~units["item_id"].isin(set(controls["item_id"].astype(str)))]
    return units_to_extend(answers, units, settings.confidence, settings.max_judgements, settings.min_judgements,
                           settings.stop_when_settled)


def adaptive_round(run: Run, batch: int) -> dict[str, Any]:
    """One round (flows/campaigns/extension_rounds.py); ``extended`` 0 means the batch's rounds are over."""
    bound = run.cfg.answers.max_judgements - run.cfg.answers.min_judgements
    return next_round(run, batch, bound, lambda rounds: plan_round(run, batch, rounds), "adaptive")


def top_up_round(run: Run, batch: int) -> dict[str, Any]:
    """[answers] top_up_rounds on a custom page: units whose item lacks accepted answers get more; controls get none."""
    def plan(rounds: dict[int, list[str]]) -> list[str]:
        data = dataset_frame(run)
        kept = data[data["decision"] == "approve"]
        accepted = kept.groupby(kept["item_id"].astype(str))["assignment_id"].nunique()
        units, controls = unit_frame(run, batch, rounds), control_items(run)
        if controls is not None:
            units = units[~units["item_id"].isin(set(controls["item_id"].astype(str)))]
        per = run.cfg.assignments_per_image
        return top_up_units(accepted, units, per, top_up_cap(per))

    return next_round(run, batch, run.cfg.answers.top_up_rounds, plan, "top-up")
