"""The control quiz on Prolific: a short screening study of its own, run once before the first batch."""

from __future__ import annotations

import dataclasses
import hashlib

from flows.core.config.config import CampaignConfig
from flows.core.run.run_context import Run
from flows.platforms.interface import GATE_BATCH
from flows.platforms.prolific import adapter as prolific
from flows.platforms.prolific.batches import (
    _ledgered,
    collect_study,
    post_study,
    prolific_client,
    record_submissions,
    settle_unanswered,
)
from flows.platforms.prolific.statuses import bulk_approve_key
from flows.platforms.quiz_record import ANSWERS, keep_quiz, stored_quiz

# Each study takes a participant once, so a batch needs as many passers as places who come back: twice the
# largest study's places are screened (some fail, some never return), never more than the campaign's places.
SCREEN_MARGIN = 2
TAKERS = ("SELECT a.worker_id, x.item_id, x.field, x.value FROM answers x JOIN assignments a ON "
          "a.campaign = x.campaign AND a.assignment_id = x.assignment_id WHERE a.campaign = ? AND a.batch = ?")


def screening_places(places: list[int]) -> int:
    """The screening study's places for studies of ``places`` each."""
    return min(sum(places), SCREEN_MARGIN * max(places, default=0))


def screening_cfg(cfg: CampaignConfig) -> CampaignConfig:
    """``cfg`` as its screening study is posted: the quiz's own reward and times."""
    assert cfg.prolific.screening is not None, "a screening study needs a planned quiz"
    reward, estimated, maximum = cfg.prolific.screening
    return dataclasses.replace(cfg, prolific=dataclasses.replace(
        cfg.prolific, reward=reward, estimated_minutes=estimated, maximum_minutes=maximum))


def screened_group(run: Run) -> str:
    """The group of those who passed the quiz, its screening study run first (once); "" where none is asked."""
    name = run.cfg.name
    if run.cfg.prolific.screening is None or not stored_quiz(run.store, name):
        return ""

    def create() -> dict[str, str]:
        client = prolific_client(run)
        return {"id": prolific.ensure_group(client, prolific.default_workspace(client), f"hitflow-{name}-screened")}

    group = str(_ledgered(run, GATE_BATCH, "CreateParticipantGroup", f"{name}:prolific:screened", {}, create)["id"])
    if run.store.batch_status(name, GATE_BATCH) != "screened":
        quiz_run = dataclasses.replace(run, cfg=screening_cfg(run.cfg))
        units = run.store.rows("SELECT batch, count(DISTINCT hit_index) AS n FROM items WHERE campaign = ? AND "
                               "batch > 0 GROUP BY batch", [name])
        post_study(quiz_run, GATE_BATCH, screening_places([r["n"] * run.cfg.assignments_per_image for r in units]),
                   "")
        collect_study(quiz_run, GATE_BATCH)
        admit_passers(quiz_run, group)
        run.store.set_batch(name, GATE_BATCH, status="screened")
    return group


def admit_passers(run: Run, group: str) -> None:
    """The quiz judged on each taker's answers, every finished taker paid (:func:`pay_takers`), the passers added
    to ``group``."""
    name = run.cfg.name
    study_id = run.store.rows("SELECT study_id FROM studies WHERE campaign = ? AND batch = ?",
                              [name, GATE_BATCH])[0]["study_id"]
    key = {k[0] for k in stored_quiz(run.store, name)["key"]}
    mine = run.store.frame(TAKERS, [name, GATE_BATCH], ANSWERS)
    failed = keep_quiz(run, mine[mine["item_id"].isin(key)])
    pay_takers(run, study_id)
    passed = sorted(set(mine["worker_id"]) - set(failed))

    def admit() -> dict[str, int]:
        prolific.add_to_group(prolific_client(run), group, passed)
        return {"added": len(passed)}

    if passed:  # Prolific keeps a group a set: the same people added again after a restart change nothing
        digest = hashlib.sha256(" ".join(passed).encode()).hexdigest()[:16]
        _ledgered(run, GATE_BATCH, "AddToParticipantGroup", f"{name}:screened:{digest}", {"participants": len(passed)},
                  admit)
    run.progress(f"control quiz: {len(set(mine['worker_id']))} took it, {len(failed)} failed (paid for it, admitted to "
                 f"no batch), {len(passed)} admitted to the batches' studies")


def pay_takers(run: Run, study_id: str) -> None:
    """Every finished taker approved: one who fails did the work too, and a wrong known answer is no ground Prolific
    allows a rejection on (a submission with no stored answers is settled as any batch's is)."""
    stored = {r["assignment_id"] for r in run.store.rows(
        "SELECT assignment_id FROM assignments WHERE campaign = ? AND batch = ?", [run.cfg.name, GATE_BATCH])}
    paid = [s["id"] for s in record_submissions(run, GATE_BATCH, study_id)
            if s["status"] == "AWAITING REVIEW" and s["id"] in stored]

    def approve() -> dict[str, int]:
        prolific.approve(prolific_client(run), study_id, paid)
        return {"approved": len(paid)}

    if paid:
        _ledgered(run, GATE_BATCH, "BulkApprove", bulk_approve_key(run.store, run.cfg.name, GATE_BATCH, paid),
                  {"submission_ids": paid}, approve)
    settle_unanswered(run, GATE_BATCH, study_id)
    record_submissions(run, GATE_BATCH, study_id)  # the store ends with Prolific's word on each
