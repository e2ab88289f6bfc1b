"""Workers whose share of flagged captions passes a threshold (``canned_overuse``, ``quality_words_rate``,
``consensus_rate``). Input columns: ``worker_id, flagged``; rows in ``worker_id`` order, ``value`` the share,
``detail`` ``"<flagged> of <counted> captions <what>"``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from qc.flags import flag_frame


def share_flags(captions: pd.DataFrame, rule: str, share: float, what: str, *, min_captions: int = 1,
                strictly: bool = False) -> pd.DataFrame:
    """``rule`` for workers of ``min_captions``+ counted captions whose flagged share reaches ``share`` (or passes)."""
    found = _counts(captions)
    if found is None:  # not text ids and true/false flags: pandas' groupby decides what counts
        return flag_frame(_grouped_rows(captions, rule, share, what, min_captions, strictly))
    rows = []
    for worker, (flagged, counted) in found.items():
        rate = np.float64(flagged) / np.float64(counted)  # numpy's division and rounding, as pandas' was
        if counted >= min_captions and (rate > share if strictly else rate >= share):
            rows.append({"worker_id": worker, "rule": rule, "value": round(rate, 3), "threshold": share,
                         "detail": f"{flagged} of {counted} captions {what}"})
    return flag_frame(rows)


def _counts(captions: pd.DataFrame) -> dict[str, tuple[int, int]] | None:
    """(flagged, counted) per worker in ``worker_id`` order; None unless ids are text and ``flagged`` boolean."""
    if captions["flagged"].dtype != bool:
        return None
    ids = captions["worker_id"]
    workers = ids.to_numpy(dtype=object)
    if not (isinstance(ids.dtype, pd.StringDtype) and not ids.isna().any()) and not all(
            type(w) is str for w in workers):
        return None
    codes, names = pd.factorize(workers, sort=True)  # sorted as Python sorts text
    counted = np.bincount(codes, minlength=len(names))
    flagged = np.bincount(codes[captions["flagged"].to_numpy()], minlength=len(names))
    return dict(zip(names.tolist(), zip(flagged.tolist(), counted.tolist(), strict=True), strict=True))


def _grouped_rows(captions: pd.DataFrame, rule: str, share: float, what: str, min_captions: int,
                  strictly: bool) -> list[dict[str, object]]:
    found = captions.groupby("worker_id")["flagged"].agg(["sum", "count"])
    rate = found["sum"] / found["count"]
    passes = rate > share if strictly else rate >= share
    return [{"worker_id": w, "rule": rule, "value": round(rate[w], 3), "threshold": share,
             "detail": f"{int(r['sum'])} of {int(r['count'])} captions {what}"}
            for w, r in found[(found["count"] >= min_captions) & passes].iterrows()]
