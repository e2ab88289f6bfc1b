"""``malformed_answer``: answers that could not be read, flagged one by one, never a stop for the rest
(docs/how-to/malformed-answers.md). Input columns: ``assignment_id, worker_id, malformed`` ("" when read),
optionally ``line``, ``image_id``; ``value`` is the line, ``detail`` the reason."""

from __future__ import annotations

from typing import Any

import pandas as pd

from qc.flags import flag_columns, register
from qc.worker_values import ForgedValue

MALFORMED = "malformed_answer"
ALWAYS_ON = (MALFORMED,)  # runs on every frame that carries a ``malformed`` column, named or not
DETAIL_CHARS = 300  # a reason quotes at most a little of the answer: the answer itself stays stored


@register(MALFORMED, "caption")
def malformed_answer(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """One flag per row whose answer could not be read, with the line and the reason."""
    if "malformed" not in df.columns:
        return flag_columns({})
    bad = df[df["malformed"].fillna("").astype(str) != ""]
    # the line as a whole number ("" when unknown): a frame's line column is float once other rows lack it
    lines = [str(int(n)) if pd.notna(n) else "" for n in bad["line"]] if "line" in bad.columns else ""
    return flag_columns({"worker_id": bad["worker_id"].astype(str), "rule": MALFORMED, "value": lines,
                         "threshold": "", "assignment_id": bad["assignment_id"].astype(str),
                         "image_id": bad["image_id"].astype(str) if "image_id" in bad.columns else "",
                         "detail": bad["malformed"].astype(str).str.slice(0, DETAIL_CHARS)})


def split_malformed(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the rows that were read, the rows that were not); a frame without ``malformed`` is all read."""
    if "malformed" not in df.columns:  # no rows, copied: a view of none still holds the batch's arrays
        return df, df.iloc[0:0].copy()
    bad = df["malformed"].fillna("").astype(str) != ""
    return df[~bad].reset_index(drop=True), df[bad].reset_index(drop=True)


def built_by_hand(exc: BaseException | None) -> bool:
    """Whether an answer failed to read on a value no page posts (:class:`ForgedValue`): the worker's own doing."""
    seen = 0
    while exc is not None and seen < 20:  # a cause chain is short; the bound guards against a cycle
        if isinstance(exc, ForgedValue):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False
