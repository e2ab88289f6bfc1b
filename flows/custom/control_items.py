"""Control items of a custom campaign (``[answers] controls``): items whose answer is known, mixed
into every batch at ``control_share`` and scored per worker (qc/control_items.py).

A control is planned as an item like any other: the same page renders it from its own columns (its
answer is never in them), its id is the one the file gives it, it fills a place of a HIT or unit that
is paid like the rest, and the plan's item count, which the budget is checked on, includes it. The
known answers go to the ledger beside the campaign (``config_json["controls"]``) for the blocks.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

import pandas as pd

from flows.core.config.config import CampaignConfig
from flows.core.errors import ConfigError
from flows.core.inputs.csv_files import read_csv_frame
from qc.control_items import ControlPolicy

if TYPE_CHECKING:  # a hint only: `hitflow qc` reaches this module and needs no ledger (psycopg, sqlite_utils)
    from flows.core.ledger.store import Store

KEY_COLUMNS = ("item_id", "field", "answer")


def read_controls(cfg: CampaignConfig) -> pd.DataFrame | None:
    """The control items file (item_id, field, answer, and any item columns), or None without one."""
    path = cfg.answers.controls
    return read_csv_frame(path, KEY_COLUMNS, "the control items file") if path else None


def control_rows(cfg: CampaignConfig, controls: pd.DataFrame, items: list[dict[str, str]]) -> list[dict[str, str]]:
    """Each control item's columns as the page shows them: its row of the items file when it has one,
    else the control file's own columns other than field and answer (the first row of the item)."""
    by_id = {r["item_id"]: r for r in items}
    own = controls.drop(columns=["field", "answer"]).drop_duplicates("item_id")
    return [by_id.get(r["item_id"]) or {k: str(v).strip() for k, v in r.items()} for r in own.to_dict("records")]


def mix_controls(cfg: CampaignConfig, regular: list[dict[str, str]], controls: list[dict[str, str]]
                 ) -> list[tuple[int, list[dict[str, str]]]]:
    """(batch, its items in page order): each batch's ordinary items with ``control_share`` of the
    batch made of control items (a control used once), at places drawn from the campaign's seed."""
    share, rng = cfg.answers.control_share, random.Random(cfg.seed)
    pool = list(controls)
    rng.shuffle(pool)
    per_batch = -(-len(regular) // cfg.batches)
    chunks = [regular[k:k + per_batch] for k in range(0, len(regular), per_batch)]
    wanted = [max(1, round(share / (1 - share) * len(c))) for c in chunks]
    if sum(wanted) > len(pool):
        raise ConfigError(f"{cfg.answers.controls}: a control_share of {share:.0%} over {len(regular)} items needs "
                          f"{sum(wanted)} control items (each is used once); the file has {len(pool)}: add control "
                          "items or lower [answers] control_share")
    out = []
    for batch, (chunk, k) in enumerate(zip(chunks, wanted, strict=True), start=1):
        mine, pool = pool[:k], pool[k:]
        places = set(rng.sample(range(len(chunk) + k), k))
        ordinary, extra = iter(chunk), iter(mine)
        out.append((batch, [next(extra) if p in places else next(ordinary) for p in range(len(chunk) + k)]))
    return out


def controls_record(cfg: CampaignConfig) -> dict[str, Any] | None:
    """What the ledger keeps for the blocks: the known answers and ``[answers]``' control policy."""
    controls = read_controls(cfg) if cfg.task == "custom" else None
    if controls is None:
        return None
    a = cfg.answers
    return {"min_seen": a.control_min_seen, "block_below": a.control_block_below, "confidence": a.control_confidence,
            "key": controls[list(KEY_COLUMNS)].astype(str).map(str.strip).values.tolist()}


def stored_controls(store: Store, campaign: str) -> tuple[pd.DataFrame, ControlPolicy] | None:
    """The campaign's control answers and policy as the plan recorded them, or None."""
    rows = store.rows("SELECT config_json FROM campaigns WHERE name = ?", [campaign])
    record = json.loads(rows[0]["config_json"] or "{}").get("controls") if rows else None
    if not record:
        return None
    key = pd.DataFrame(record["key"], columns=list(KEY_COLUMNS))
    return key, ControlPolicy(int(record["min_seen"]), float(record["block_below"]), float(record["confidence"]))
