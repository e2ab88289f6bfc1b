"""A batch's units as the plan stored them: what every platform posts, one unit at a time."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.core.run.run_context import Run

if TYPE_CHECKING:  # a type here: `hitflow status` loads no config
    from flows.core.config.config import CampaignConfig


def hit_groups(run: Run, batch: int) -> list[tuple[int, list[dict[str, Any]]]]:
    rows = run.store.rows("SELECT * FROM items WHERE campaign = ? AND batch = ? ORDER BY rowid",
                          [run.cfg.name, batch])
    groups: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["hit_index"], []).append(row)
    return sorted(groups.items())


def units_planned(store: Store, campaign: str, batch: int) -> int:
    """How many units the plan made of the batch: its items' highest unit index, plus one."""
    top = store.rows("SELECT max(hit_index) AS top FROM items WHERE campaign = ? AND batch = ?", [campaign, batch])
    return int(top[0]["top"] or 0) + 1


def planned_index(store: Store, campaign: str, batch: int, index: int) -> int:
    """The planned unit whose items a unit shows (a repost's index is past the batch's unit count)."""
    return index % units_planned(store, campaign, batch)


def hit_token(cfg: CampaignConfig, batch: int, hit_index: int, item_ids: list[str]) -> str:
    """Deterministic UniqueRequestToken (<= 64 chars) for one planned HIT."""
    digest = hashlib.sha256(f"{cfg.name}|{batch}|{hit_index}|{','.join(item_ids)}".encode()).hexdigest()[:16]
    return f"hf-{cfg.name[:24]}-b{batch}-h{hit_index}-{digest}"


def page_html(run: Run, items: list[dict[str, Any]]) -> str:
    """A unit's page as the run's task kind renders it (``Run.page``, handed down by the driver)."""
    if run.page is None:
        raise ConfigError(f"{run.cfg.name}: this run was opened without its task's page renderer (Run.page)")
    return run.page(run.cfg, items)
