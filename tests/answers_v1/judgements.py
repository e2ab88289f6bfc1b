"""The judgements' column contract, which every model of the package reads first: one row per
judgement, ``item_id, worker_id, label`` [, ``field``] as text (several questions of one page: each
field is aggregated on its own; a frame without ``field`` has one, ``label``). Labels are compared as
text; blank labels are no judgement.

Its own module, below the models: the aggregation (postprocess.answers.aggregation) answers with the
skill posterior (postprocess.answers.skill_posterior), which reads its judgements through this, so
neither imports the other for it (they once imported each other: the project's one import circle).
"""

from __future__ import annotations

import pandas as pd

REQUIRED = ("item_id", "worker_id", "label")
DEFAULT_FIELD = "label"


def judgements(frame: pd.DataFrame, drop: pd.Series | None = None, keep: tuple[str, ...] = ()) -> pd.DataFrame:
    """The column contract: ``item_id, worker_id, label, field`` as text, blank labels dropped;
    a worker's repeated label of the same item and field counts once (the last one given).
    ``drop``: a mask of ``frame``'s rows left out first (as if not given); ``keep``: more of ``frame``'s
    columns carried along as they are, each row's beside its own label (a replay's ``seconds``). Built a
    column at a time and filtered only when something is dropped: at COCO's size the frame is 1.4 million
    rows, ~110 MB a copy."""
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise ValueError(f"missing column(s) {', '.join(missing)}; expected {', '.join(REQUIRED)} [, field]")
    out = pd.DataFrame({c: _stripped(frame[c]) for c in REQUIRED}, copy=False)
    out["field"] = _stripped(frame["field"]) if "field" in frame.columns else DEFAULT_FIELD
    for column in keep:
        out[column] = frame[column]
    blank = (out["label"] == "") | (out["item_id"] == "") | (out["worker_id"] == "")
    if drop is not None:
        blank |= drop.to_numpy(dtype=bool)
    if blank.any():
        out = out[~blank]
    repeated = out.duplicated(["item_id", "worker_id", "field"], keep="last")
    if repeated.any():
        out = out[~repeated]
    return out.reset_index(drop=True)


def _stripped(column: pd.Series) -> pd.Series:
    """``column`` as text without surrounding blanks: the column itself when it has none (no copy)."""
    text = column.astype(str)
    stripped = text.str.strip()
    return text if stripped.equals(text) else stripped
