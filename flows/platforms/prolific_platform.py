"""Prolific (its REST API, through httpx): the simulator's Prolific API, or Prolific itself with --live.

A batch is one study pointing at hitflow's task server (flows/platforms/prolific_batches.py);
decisions are a bulk approval and rejections with a category and a message of at least 100
characters; a block puts the participant in the blocklist group every later study filters out.
Satisfies :class:`flows.platforms.interface.Platform`.
"""

from __future__ import annotations

from typing import Any

from flows.campaigns.budget import prolific_estimate as estimate
from flows.campaigns.budget import prolific_place_cost as place_cost
from flows.campaigns.dry_run import prolific_plan as dry_run
from flows.config import CampaignConfig
from flows.platforms.prolific_batches import apply_decisions, exclude_participants
from flows.platforms.prolific_batches import collect_study as collect
from flows.platforms.prolific_batches import publish_study as publish
from flows.platforms.prolific_operations import cancel, cancel_plan, reconcile, refresh
from flows.platforms.review_senders import PROLIFIC_SENDERS as REVIEW_SENDERS
from flows.platforms.targets import check_prolific_target as check_target
from flows.platforms.targets import prolific_session as open_session
from flows.run_context import Run

# The Platform interface (flows/platforms/interface.py): what this module offers, and all of it.
__all__ = [  # noqa: RUF022  (in the interface's order)
    "NAME", "LABEL", "TARGET_NOTE", "PUBLISH_STEP", "COLLECT_STEP", "SENDS_DECISIONS", "SERVES_PAGES",
    "REVIEW_CATEGORIES", "MIN_REASON_CHARS", "REVIEW_SENDERS", "publish", "collect", "decide", "block_mode",
    "block", "reconcile", "refresh", "cancel_plan", "cancel", "estimate", "place_cost", "dry_run", "check_target",
    "open_session", "is_live"
]

NAME = "prolific"
LABEL = "Prolific"
TARGET_NOTE = " (Prolific API)"
PUBLISH_STEP = "publish study"
COLLECT_STEP = "collect submissions"
SENDS_DECISIONS = True
SERVES_PAGES = True
# Prolific's rejection categories (its API refuses any other) and its minimum message length
REVIEW_CATEGORIES = ("TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
                     "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER")
MIN_REASON_CHARS = 100
BLOCK_MODE = "blocklist"


def decide(run: Run, batch: int, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """Approve in bulk, reject one by one, leave unpaid what Prolific says was not finished."""
    applied = apply_decisions(run, batch, decisions)
    run.progress(f"batch {batch}: on Prolific {applied}")
    return {"prolific": applied}


def block_mode(cfg: CampaignConfig) -> str:
    return BLOCK_MODE


def block(run: Run, worker_id: str, reason: str) -> dict[str, Any]:
    exclude_participants(run, [worker_id])  # made-up ids (never reported by Prolific) are left out
    return {"mode": BLOCK_MODE}


def is_live(target_kind: str, task_url: str, invitees: tuple[str, ...]) -> bool:
    return target_kind != "sim"
