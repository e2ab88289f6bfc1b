"""The judgements' contract: ``item_id, worker_id, label`` [, ``field``] as text, blanks no judgement."""

from __future__ import annotations

import numpy as np
import pandas as pd

REQUIRED = ("item_id", "worker_id", "label")
DEFAULT_FIELD = "label"
SMALL = 20_000  # rows up to which repeats are found by one pass in Python (module: _repeated)


def judgements(frame: pd.DataFrame, drop: pd.Series | None = None, keep: tuple[str, ...] = ()) -> pd.DataFrame:
    """The column contract: ``item_id, worker_id, label, field`` as text, blanks dropped, a repeat's last kept."""
    if missing := [c for c in REQUIRED if c not in frame.columns]:
        raise ValueError(f"missing column(s) {', '.join(missing)}; expected {', '.join(REQUIRED)} [, field]")
    out = pd.DataFrame({c: _stripped(frame[c]) for c in REQUIRED}, copy=False)
    out["field"] = _stripped(frame["field"]) if "field" in frame.columns else DEFAULT_FIELD
    for column in keep:
        out[column] = frame[column]
    # masks over numpy's object arrays (pandas' string comparisons cost ~0.2 ms each, many times)
    text = {c: out[c].to_numpy() for c in ("item_id", "worker_id", "label")}
    blank = (text["label"] == "") | (text["item_id"] == "") | (text["worker_id"] == "")
    if drop is not None:
        blank |= drop.to_numpy(dtype=bool)
    if blank.any():
        out = out[~blank]
    repeated = _repeated(out)
    if repeated.any():
        out = out[~repeated]
    return out.reset_index(drop=True)


def _repeated(out: pd.DataFrame) -> np.ndarray:
    """``out.duplicated(["item_id", "worker_id", "field"], keep="last")``, one pass below SMALL rows."""
    if len(out) > SMALL:
        return out.duplicated(["item_id", "worker_id", "field"], keep="last").to_numpy()
    keys = list(zip(out["item_id"].to_numpy(), out["worker_id"].to_numpy(), out["field"].to_numpy(), strict=True))
    seen: set[tuple[object, ...]] = set()
    repeated = np.zeros(len(keys), dtype=bool)
    for row in range(len(keys) - 1, -1, -1):
        if keys[row] in seen:
            repeated[row] = True
        else:
            seen.add(keys[row])
    return repeated


def _stripped(column: pd.Series) -> pd.Series:
    """``column`` as text without surrounding blanks (itself, no copy, when it has none)."""
    text = column.astype(str)
    if all(value is value.strip() if type(value) is str else True for value in text.to_numpy()):
        return text
    return text.str.strip()
