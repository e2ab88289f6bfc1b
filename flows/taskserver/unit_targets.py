"""How many people a unit may be handed to under adaptive overlap ([answers] min_judgements).

Without it every unit is handed out up to ``assignments_per_image``. With it (or caption top-ups) a unit is asked for
``min_judgements`` plus the extensions the ledger records for it (``ExtendUnit`` rows,
flows/platforms/unit_extensions.py): the people who arrive after a round (Prolific's added places,
invitees opening their links again) get the uncertain units. The usual fallback for a participant who
finds every unit full (the least-held unit new to them) is off under adaptive overlap and top-ups: a unit is handed
out only below its target, which never passes ``max_judgements``, so nobody gives a judgement the
stopping rule did not ask for; such a participant is told there is no work left for them.
Kept apart from task_units.py's allocation, which only asks for the options.
"""

from __future__ import annotations

from flows.core.config.config import CampaignConfig
from flows.core.ledger.store import Store
from flows.platforms.unit_extensions import extending_batches, extra_by_index


def allocation_options(store: Store, cfg: CampaignConfig, batch: int, units: dict[int, list[str]],
                       held: dict[int, int]) -> list[tuple[int, list[str], int]]:
    """``(unit, item ids, holders counted against the shared target)`` for ``choose_unit``: an extended
    unit counts its extensions off its holders, so it is open until ``min + extensions`` hold it."""
    if not (cfg.answers.adaptive or cfg.answers.top_up_rounds):  # no rounds: no ledger read per arrival
        return [(unit, items, held.get(unit, 0)) for unit, items in units.items()]
    extra = extra_by_index(store, cfg.name, batch)
    options = [(unit, items, held.get(unit, 0) - extra.get(unit, 0)) for unit, items in units.items()]
    # strict: a unit at its target is never handed out, so nobody gives a judgement no round asked for
    return [o for o in options if o[2] < cfg.assignments_per_image]


def extending(store: Store, cfg: CampaignConfig) -> list[int]:
    """Batches open again for an adaptive round (invite links: a round runs after the batch's block step)."""
    return extending_batches(store, cfg.name) if cfg.answers.adaptive or cfg.answers.top_up_rounds else []
