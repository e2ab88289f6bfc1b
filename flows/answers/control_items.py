"""Control items of a custom campaign, planned and paid as any item (docs/how-to/control-items.md)."""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any

import pandas as pd

from flows.core.config.config import CampaignConfig
from flows.core.errors import ConfigError
from flows.core.inputs.csv_files import read_csv_frame
from postprocess.answers.control_items import ControlPolicy, trusted_controls
from postprocess.answers.judgements import DEFAULT_FIELD
from postprocess.answers.worker_skill import SkillPolicy, pooled_columns, skill_scores

if TYPE_CHECKING:  # a hint only: `hitflow qc` reaches this module and needs no ledger (psycopg, sqlite_utils)
    from flows.core.ledger.store import Store

KEY_COLUMNS = ("item_id", "field", "answer")


def read_controls(cfg: CampaignConfig) -> pd.DataFrame | None:
    """The control items file (item_id, field, answer, and any item columns), or None without one."""
    path = cfg.answers.controls
    return read_csv_frame(path, KEY_COLUMNS, "the control items file") if path else None


def control_rows(cfg: CampaignConfig, controls: pd.DataFrame, items: list[dict[str, str]]) -> list[dict[str, str]]:
    """Each control item's columns as the page shows them: its items-file row, else the controls file's own."""
    by_id = {r["item_id"]: r for r in items}
    own = controls.drop(columns=["field", "answer"]).drop_duplicates("item_id")
    return [by_id.get(r["item_id"]) or {k: str(v).strip() for k, v in r.items()} for r in own.to_dict("records")]


def mix_controls(cfg: CampaignConfig, regular: list[dict[str, str]], controls: list[dict[str, str]],
                 first_batch: int = 1, after_quiz: bool = False) -> list[tuple[int, list[dict[str, str]]]]:
    """(batch, its items in page order), ``control_share`` of each batch controls, each used once; ``after_quiz``:
    the quiz took its share of the file first (the pages get what is left)."""
    share, page = cfg.answers.control_share, cfg.images_per_hit
    rng = random.Random(cfg.seed if first_batch == 1 else f"{cfg.seed}:from-batch-{first_batch}")
    pool = list(controls)
    rng.shuffle(pool)
    chunks = batch_chunks(cfg, regular)
    wanted = [batch_controls(len(c), share, page) for c in chunks]
    if sum(wanted) > len(pool):  # too few for one a page: the share alone, and a worker's first page may lack one
        wanted = [batch_controls(len(c), share, page, every_page=False) for c in chunks]
    if sum(wanted) > len(pool) and after_quiz:
        wanted = [len(pool) // len(chunks) + (b < len(pool) % len(chunks)) for b in range(len(chunks))]
    if sum(wanted) > len(pool):
        raise ConfigError(f"{cfg.answers.controls}: a control_share of {share:.0%} over {len(regular)} items needs "
                          f"{sum(wanted)} control items (each is used once); the file has {len(pool)}"
                          f"{' not used yet' if first_batch > 1 else ''}: add control "
                          "items or lower [answers] control_share")
    out = []
    for batch, (chunk, k) in enumerate(zip(chunks, wanted, strict=True), start=first_batch):
        mine, pool = pool[:k], pool[k:]
        ordinary, extra = iter(chunk), iter(mine)
        out.append((batch, [next(extra) if c else next(ordinary) for c in control_places(len(chunk), k, page, rng)]))
    return out


def batch_chunks(cfg: CampaignConfig, regular: list[Any]) -> list[list[Any]]:
    per_batch = -(-len(regular) // cfg.batches)
    return [regular[k:k + per_batch] for k in range(0, len(regular), per_batch)]


def controls_needed(cfg: CampaignConfig, regular: list[Any]) -> int:
    """The controls :func:`mix_controls` puts in the batches of these ordinary items, one a page where it can."""
    share, page = cfg.answers.control_share, cfg.images_per_hit
    return sum(batch_controls(len(c), share, page) for c in batch_chunks(cfg, regular))


def batch_controls(ordinary: int, share: float, page: int, every_page: bool = True) -> int:
    """Controls in a batch: ``share`` of it, at least one, and with ``every_page`` at least one a page."""
    k = max(1, round(share / (1 - share) * ordinary))
    every = 1 if every_page and page > 1 else math.ceil(1 / (share * page) - 1e-9)
    while k < math.ceil((ordinary + k) / (every * page)):
        k += 1
    return k


def page_counts(sizes: list[int], k: int, offset: float) -> list[int]:
    """``k`` controls over pages of these sizes, spread evenly by systematic sampling from ``offset`` in [0, 1)
    (Toloka's "smart mixing"); a short last page left without one takes one from the fullest."""
    total, counts, cum = sum(sizes), [], 0
    for size in sizes:
        counts.append(math.floor((cum + size) * k / total + offset) - math.floor(cum * k / total + offset))
        cum += size
    if k >= len(sizes) and counts and counts[-1] == 0:
        counts[counts.index(max(counts))] -= 1
        counts[-1] = 1
    return counts


def control_places(ordinary: int, k: int, page: int, rng: random.Random) -> list[bool]:
    """Which places of a batch hold a control: :func:`page_counts` per page, places drawn from ``rng``."""
    total = ordinary + k
    sizes = [min(page, total - start) for start in range(0, total, page)]
    places: list[bool] = []
    for size, n in zip(sizes, page_counts(sizes, k, rng.random()), strict=True):
        chosen = set(rng.sample(range(size), n))
        places += [p in chosen for p in range(size)]
    return places


def controls_record(cfg: CampaignConfig, required: list[str] | tuple[str, ...] = ()) -> dict[str, Any] | None:
    """The ledger's record for the blocks: known answers, control policy, and ``required`` (blank counts wrong)."""
    controls = read_controls(cfg) if cfg.task == "custom" else None
    if controls is None:
        return None
    a = cfg.answers
    return {"min_seen": a.control_min_seen, "block_below": a.control_block_below, "confidence": a.control_confidence,
            "alpha": a.control_alpha, "key": controls[list(KEY_COLUMNS)].astype(str).map(str.strip).values.tolist(),
            "required": list(required)}


def stored_controls(store: Store, campaign: str) -> tuple[pd.DataFrame, ControlPolicy] | None:
    """The campaign's control answers and policy as the plan recorded them, or None."""
    record = store.recorded_config(campaign).get("controls")
    if not record:
        return None
    key = pd.DataFrame(record["key"], columns=list(KEY_COLUMNS))
    # a campaign planned before control_alpha keeps the Wilson rule it was planned with (alpha 0)
    return key, ControlPolicy(int(record["min_seen"]), float(record["block_below"]), float(record["confidence"]),
                              float(record.get("alpha", 0.0)), frozenset(record.get("required", ())))


def used_controls(cfg: CampaignConfig, planned: set[str]) -> set[str]:
    """The control items among the planned ones (a custom page's ``[answers] controls``)."""
    if cfg.task != "custom" or cfg.answers.control_share <= 0:
        return set()
    controls = read_controls(cfg)
    return set() if controls is None else planned & set(controls["item_id"].astype(str))


def controls_note(count: int) -> str:
    return f"; {count} control item(s) with known answers are mixed in ([answers] control_share)" if count else ""


def pooled_offline(frame: pd.DataFrame, controls: pd.DataFrame) -> pd.DataFrame:
    """Each worker's ``pooled_*`` columns over a labels file; a ``page`` column groups labels, else each is one."""
    given = pd.DataFrame({"worker_id": _stripped(frame, "worker_id"), "item_id": _stripped(frame, "item_id"),
                          "field": _stripped(frame, "field", DEFAULT_FIELD), "value": _stripped(frame, "label")})
    if "page" in frame.columns:
        given["unit"] = _stripped(frame, "page")
    given = given[(given["worker_id"] != "") & (given["item_id"] != "")]
    key = pd.DataFrame({"item_id": _stripped(controls, "item_id"), "field": _stripped(controls, "field", DEFAULT_FIELD),
                        "answer": _stripped(controls, "answer")})
    policy = SkillPolicy()
    trusted = trusted_controls(given[given["item_id"].isin(set(key["item_id"]))], key)
    return pooled_columns(skill_scores(given, trusted, policy), policy)


def _stripped(source: pd.DataFrame, column: str, default: str = "") -> pd.Series:
    if column not in source.columns:
        return pd.Series(default, index=source.index, dtype=str)
    return source[column].astype(str).str.strip()
