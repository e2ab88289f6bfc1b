"""``page_straight_lining``: one answer to every question of a page on one scale (six 1-5 ratings all "3"), far
more often than the crowd, judged over a worker's campaign.
Input columns: ``worker_id, image_id, field, answer``, optionally ``scale`` ("1..7", "choice 5"; "" for none),
``options`` and ``ticks`` (checkbox groups left out). Params: ``page_straight_lining_alpha`` (0.01),
``item_blind_honest_share`` (2/3), ``page_straight_lining_min_fields`` (3); ``value`` is ``1/E``
(docs/explanation/qc-rules.md)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from qc.agreement_odds import as_number
from qc.flags import flag_frame, register

RULE = "page_straight_lining"
PRIOR_PAGES = 1.0  # the crowd's flat share, worth one of the worker's pages, before they answer


def scale_keys(df: pd.DataFrame) -> dict[str, str]:
    """Each field's scale: ``scale`` if given, else "choice k", else "number" if all answers are; ticks none."""
    keys: dict[str, str] = {}
    ticks = df["ticks"].astype(bool) if "ticks" in df.columns else pd.Series(False, index=df.index)
    options = pd.to_numeric(df["options"], errors="coerce").fillna(0) if "options" in df.columns else None
    for name, at in df[~ticks].groupby("field").groups.items():
        declared = str(df.loc[at, "scale"].iloc[0]) if "scale" in df.columns else ""
        if declared or "scale" in df.columns:
            key = declared
        elif options is not None and int(options.loc[at].max()) > 0:
            key = f"choice {int(options.loc[at].max())}"
        else:
            key = "number" if all(as_number(str(a)) is not None for a in df.loc[at, "answer"]) else ""
        if key:
            keys[str(name)] = key
    return keys


def pages(df: pd.DataFrame, min_fields: int) -> list[tuple[str, Any, bool]]:
    """(worker, item, flat) per page with ``min_fields`` answers on one scale, in the order first answered."""
    keys = scale_keys(df)
    answered = df[df["field"].astype(str).isin(keys) & (df["answer"].astype(str).str.strip() != "")]
    by_page: dict[tuple[str, Any], dict[str, list[str]]] = {}
    for worker, item, name, answer in zip(answered["worker_id"].astype(str), answered["image_id"],
                                          answered["field"].astype(str), answered["answer"].astype(str), strict=True):
        by_page.setdefault((worker, item), {}).setdefault(keys[name], []).append(answer.strip())
    out = []
    for (worker, item), scales in by_page.items():
        asked = [a for a in scales.values() if len(a) >= min_fields]
        if asked:
            out.append((worker, item, any(len(set(a)) == 1 for a in asked)))
    return out


def page_evidence(df: pd.DataFrame, params: dict[str, Any]) -> dict[str, tuple[float, int, int, float]]:
    """Per worker: (``E``, flat pages, pages, the others' flat share)."""
    share = float(params.get("item_blind_honest_share", 2 / 3))
    judged = pages(df, int(params.get("page_straight_lining_min_fields", 3)))
    flat_all, total = sum(f for _, _, f in judged), len(judged)
    mine: dict[str, list[bool]] = {}
    for worker, _, flat in judged:
        mine.setdefault(worker, []).append(flat)
    out = {}
    for worker, flats in mine.items():
        if total == len(flats):
            continue
        r = (flat_all - sum(flats)) / (total - len(flats))
        h = r + (1 - share) * (1 - r)
        log_e, seen = 0.0, 0
        for k, flat in enumerate(flats):
            q = max(h, (seen + PRIOR_PAGES * r) / (k + PRIOR_PAGES))
            log_e += math.log(q / h if flat else (1 - q) / (1 - h)) if h < 1 else 0.0
            seen += flat
        out[worker] = (math.exp(min(log_e, 700.0)), seen, len(flats), r)
    return out


@register(RULE, "worker")
def page_straight_lining(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """One answer to every question of a page on one scale, far more often than the crowd (module docstring)."""
    alpha = float(params.get("page_straight_lining_alpha", 0.01))
    rows = [{"worker_id": worker, "rule": RULE, "value": float(f"{1 / e:.3g}"), "threshold": alpha,
             "detail": f"one answer to every question on one scale on {flat} of {n} pages (the other workers: "
                       f"{r:.0%} of theirs); an honest worker gives this with odds 1 in {e:.3g} (flagged from "
                       f"{1 / alpha:g})"}
            for worker, (e, flat, n, r) in sorted(page_evidence(df, params).items()) if e >= 1 / alpha]
    return flag_frame(rows)
