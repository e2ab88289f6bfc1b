"""How many people a unit may be handed to under adaptive overlap ([answers] min_judgements)."""

from __future__ import annotations

from flows.core.config.config import CampaignConfig
from flows.core.ledger.store import Store
from flows.platforms.unit_extensions import extending_batches, extra_by_index

# Finished work's statuses (Prolific's), written here: the task server names no platform's module
# (tests/test_task_server.py keeps it equal to prolific.statuses.FINISHED).
FINISHED = ("AWAITING REVIEW", "APPROVED", "REJECTED")
# A session holding its unit (?: the time before which an unsubmitted one has lapsed): submitted and not freed
# by Prolific (released 1), or open, not released (2: taken back, unit_holds.py) and within its hold.
HOLDS_UNIT = "t.released != 1 AND (t.submitted_at IS NOT NULL OR (t.released = 0 AND t.created_at > ?))"


def allocation_options(store: Store, cfg: CampaignConfig, batch: int, units: dict[int, list[str]],
                       held: dict[int, int], participant: str) -> list[tuple[int, list[str], int]]:
    """``(unit, item ids, holders)`` for ``choose_unit``, an extended unit's extensions off its holders."""
    if not (cfg.answers.adaptive or cfg.answers.top_up_rounds):  # no rounds: no ledger read per arrival
        return [(unit, items, held.get(unit, 0)) for unit, items in units.items()]
    extra = extra_by_index(store, cfg.name, batch)
    options = [(unit, items, held.get(unit, 0) - extra.get(unit, 0)) for unit, items in units.items()]
    if participant.startswith("invite:"):  # strict: nobody gives a judgement no round asked for
        return [o for o in options if o[2] < cfg.assignments_per_image]
    if cfg.answers.adaptive:  # Prolific: the fallback stays (a place Prolific freed), never past max_judgements
        return [o for o in options if held.get(o[0], 0) < cfg.answers.max_judgements]
    return options


def extending(store: Store, cfg: CampaignConfig) -> list[int]:
    """Batches open again for an adaptive round (invite links: a round runs after the batch's block step)."""
    return extending_batches(store, cfg.name) if cfg.answers.adaptive or cfg.answers.top_up_rounds else []


def unsettled_holders(store: Store, cfg: CampaignConfig, batch: int, stale: float) -> dict[int, list[float]]:
    """Per unit, oldest first, its holders' start times that Prolific had not reported finished."""
    unsettled: dict[int, list[float]] = {}
    for r in store.rows(
            "SELECT t.unit, t.created_at FROM task_sessions t LEFT JOIN platform_submissions p "
            f"ON p.campaign = t.campaign AND p.submission_id = t.session_id WHERE t.campaign = ? AND t.batch = ? "
            f"AND {HOLDS_UNIT} "
            f"AND (p.status IS NULL OR p.status NOT IN ({', '.join('?' * len(FINISHED))})) "
            "ORDER BY t.created_at, t.session_id", [cfg.name, batch, stale, *FINISHED]):
        unsettled.setdefault(int(r["unit"]), []).append(float(r["created_at"]))
    return unsettled
