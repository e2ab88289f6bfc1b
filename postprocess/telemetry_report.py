"""The report's "How the text arrived" section: pure tables over DataFrames.
Inputs: captions ``batch, text_origin`` (one row per caption); flags as in :mod:`qc.flags` plus
``batch``; blocked ``worker_id, batch, rules``."""

from __future__ import annotations

from collections import Counter

import pandas as pd

from qc.telemetry_frame import ORIGINS
from qc.telemetry_rules import TELEMETRY_RULES

EVIDENCE_COLUMNS = ["worker_id", "flags", "rules", "blocked", "evidence"]


def origin_by_batch(captions: pd.DataFrame) -> pd.DataFrame:
    """Per batch: captions of each ``text_origin`` (columns in :data:`ORIGINS` order) and the total."""
    if captions.empty or "text_origin" not in captions:
        return pd.DataFrame(columns=["batch", *ORIGINS, "captions"])
    counts = Counter(zip(captions["batch"].astype(int).tolist(), captions["text_origin"].tolist(), strict=True))
    rows = [[b, *(n := [counts[b, o] for o in ORIGINS]), sum(n)] for b in sorted({b for b, o in counts if pd.notna(o)})]
    return pd.DataFrame(rows, columns=["batch", *ORIGINS, "captions"], dtype="int64")  # counted as lists: cheaper


def flagged_workers(flags: pd.DataFrame, blocked: pd.DataFrame) -> pd.DataFrame:
    """Workers with telemetry flags, most first: flags per rule, the batch blocked, evidence in words."""
    mine = flags[flags["rule"].isin(TELEMETRY_RULES) & (flags["worker_id"] != "")]
    if mine.empty:
        return pd.DataFrame(columns=EVIDENCE_COLUMNS)
    block_batch = dict(zip(blocked["worker_id"], blocked["batch"], strict=True))
    rows = []
    for worker, group in mine.groupby("worker_id"):
        counts = group["rule"].value_counts()
        rows.append({"worker_id": worker, "flags": len(group),
                     "rules": ", ".join(f"{rule} x{n}" for rule, n in counts.items()),
                     "blocked": "" if worker not in block_batch else f"after batch {block_batch[worker]}",
                     "evidence": _evidence_lines(group)})
    return pd.DataFrame(rows, columns=EVIDENCE_COLUMNS).sort_values(["flags", "worker_id"], ascending=[False, True],
                                                                    ignore_index=True)


def _evidence_lines(flags: pd.DataFrame, examples: int = 2) -> list[str]:
    """The first ``examples`` distinct ``rule: detail`` lines of one worker's flags, with counts."""
    alike = flags.groupby(["rule", "detail"], sort=False).size()
    return [f"{rule}: {detail}" + (f" ({n} flags)" if n > 1 else "")
            for (rule, detail), n in alike.head(examples).items()]
