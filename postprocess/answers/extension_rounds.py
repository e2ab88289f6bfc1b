"""A live campaign's extra rounds, and why an item is still short after them (pure)."""

from __future__ import annotations

import pandas as pd

from postprocess.answers.adaptive import settled


def units_to_extend(answers: pd.DataFrame, units: pd.DataFrame, confidence: float, max_judgements: int,
                    min_judgements: int = 1, stop_settled: bool = False) -> list[str]:
    """A live campaign's round (adaptive overlap): the units that get one more judgement, in order, each once.
    ``answers``: ``item_id, field, confidence, judgements`` [, ``margin``, ``vote_weight``]; ``units``:
    ``unit_id, item_id, asked, received``."""
    if units.empty:
        return []
    open_units = units[(units["asked"] < max_judgements) & (units["received"] >= units["asked"])]
    rows = open_units.assign(item_id=open_units["item_id"].astype(str)).merge(
        answers.assign(item_id=answers["item_id"].astype(str)), on="item_id", how="left")
    unsure = ~(rows["confidence"] >= confidence - 1e-12)  # no usable judgement (NaN) is unsure too
    if stop_settled:
        unsure &= ~settled(rows["margin"], rows["vote_weight"], max_judgements - rows["asked"])
    fewest = answers.groupby(answers["item_id"].astype(str))["judgements"].min()
    short = rows["item_id"].map(fewest).fillna(0) < min_judgements
    return list(dict.fromkeys(rows.loc[unsure | short, "unit_id"].astype(str)))


def top_up_units(accepted: pd.Series, units: pd.DataFrame, target: int, cap: int) -> list[str]:
    """A caption top-up round, a unit once per assignment; ``accepted`` by ``item_id``; ``units`` as above."""
    if units.empty:
        return []
    lacking = (target - units["item_id"].astype(str).map(accepted).fillna(0).astype(int)).clip(lower=0)
    frame = units.assign(lacking=lacking)
    per_unit = frame.groupby("unit_id", sort=False).agg(lacking=("lacking", "max"), asked=("asked", "first"),
                                                        received=("received", "first"))
    per_unit = per_unit[per_unit["received"] >= per_unit["asked"]]
    extra = per_unit["lacking"].clip(upper=(cap - per_unit["asked"]).clip(lower=0))
    return [unit for unit, n in extra.items() for _ in range(int(n))]


def short_items(captions: pd.DataFrame, item_ids: pd.Series, target: int) -> pd.DataFrame:
    """Items under ``target`` accepted captions (``item_id, accepted``) from a batch's captions and ``item_ids``."""
    kept = captions[~captions["is_rejected"].astype(bool) & (captions["caption"].fillna("").astype(str).str.strip()
                                                             != "")]
    counts = kept.groupby(kept["image_id"].astype(str)).size()
    accepted = item_ids.astype(str).map(counts).fillna(0).astype(int)
    frame = pd.DataFrame({"item_id": item_ids.astype(str).to_numpy(), "accepted": accepted.to_numpy()})
    return frame[frame["accepted"] < target].reset_index(drop=True)


SHORT_REASONS = ("rounds", "after", "unfilled", "cap", "unposted")


def short_reasons(short: pd.DataFrame, units: pd.DataFrame, cap: int, rounds_ran_out: bool = True) -> pd.DataFrame:
    """``short`` (``item_id, accepted``) with why each item is still short (``reason``); ``units`` as above."""
    per_item = units.assign(item_id=units["item_id"].astype(str)).drop_duplicates("item_id", keep="last")
    rows = short.assign(item_id=short["item_id"].astype(str)).merge(
        per_item[["item_id", "asked", "received"]], on="item_id", how="left")
    reason = pd.Series("rounds" if rounds_ran_out else "after", index=rows.index).mask(rows["asked"] >= cap, "cap")
    reason = reason.mask(rows["received"] < rows["asked"], "unfilled").mask(rows["asked"].isna(), "unposted")
    return short.assign(reason=reason.to_numpy())
