"""A worker's evidence over the whole campaign, and blocks decided on rates over it.
Input columns: ``assignments``: ``assignment_id, worker_id, batch, captions`` (every batch so far); ``flags``:
:mod:`qc.flags` columns plus ``batch``. A flag covers its caption, its assignment's captions, the worker's
batch, the images it names (``duplicate_text``) or its ``value`` share (``canned_overuse``, ``caps_lock``,
``consensus_rate``, ``quality_words_rate``).
Output of :func:`worker_history`: ``worker_id, batch, rule, captions, covered, flags`` (and a ``rule == ""``
row with the batch's captions)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qc.decisions import DecisionPolicy

COUNTED_WORKER_RULES = ("duplicate_text",)  # worker-level rules whose value counts images
# ... whose value is a share of the batch's captions
SHARE_WORKER_RULES = ("canned_overuse", "caps_lock", "consensus_rate", "quality_words_rate")
HISTORY_COLUMNS = ["worker_id", "batch", "rule", "captions", "covered", "flags"]
BLOCK_COLUMNS = ["worker_id", "rules", "flags", "captions"]


def worker_history(assignments: pd.DataFrame, flags: pd.DataFrame) -> pd.DataFrame:
    """Per worker, batch and rule: the worker's captions that batch and the ones the rule's flags cover."""
    # one pass over plain lists, not frames merged and grouped: the block step builds it after every batch
    captions: dict[tuple[Any, int], int] = {}
    per_assignment: dict[Any, int] = {}
    for assignment, worker, batch, n in zip(*(assignments[c].tolist() for c in ("assignment_id", "worker_id", "batch",
                                                                                "captions")), strict=True):
        key = (worker, int(batch))
        captions[key] = captions.get(key, 0) + int(n)
        per_assignment[assignment] = int(n)
    rows = [(worker, batch, "", n, 0, 0) for (worker, batch), n in captions.items()]
    if not flags.empty:
        rows += _flag_rows(flags, captions, per_assignment)
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    return pd.DataFrame(rows, columns=HISTORY_COLUMNS).astype({c: int for c in HISTORY_COLUMNS[3:]} | {"batch": int})


def _flag_rows(flags: pd.DataFrame, captions: dict[tuple[Any, int], int],
               per_assignment: dict[Any, int]) -> list[tuple[Any, int, Any, int, int, int]]:
    """Per worker, batch and rule: the captions its flags cover (capped at the batch's) and the flags."""
    values = pd.to_numeric(flags["value"], errors="coerce").astype(float).tolist()
    columns = (flags[c].tolist() for c in ("worker_id", "batch", "rule", "assignment_id", "image_id"))
    seen: set[tuple[Any, ...]] = set()
    groups: dict[tuple[Any, int, Any], list[float]] = {}  # Kahan sum, its compensation, flags
    for label, (worker, batch, rule, assignment, image), value in zip(flags.index, zip(*columns, strict=True),
                                                                      values, strict=True):
        if worker == "":
            continue
        batch = int(batch)
        caption_level = image != ""
        text = f"{assignment}|{image}" if isinstance(assignment, str) and isinstance(image, str) else None
        key = (worker, batch, rule, text if caption_level else str(label))
        if key in seen:  # one caption flagged twice by the same rule is still one caption
            continue
        seen.add(key)
        covered = _covered(caption_level, assignment, rule, value, per_assignment, captions.get((worker, batch)))
        total = groups.setdefault((worker, batch, rule), [0.0, 0.0, 0])
        total[2] += 1
        if covered == covered:  # pandas' sum leaves NaN out, and adds the rest compensated (Kahan)
            y = covered - total[1]
            t = total[0] + y
            c = t - total[0] - y
            total[1], total[0] = (0.0 if c != c else c), t
    return [(worker, batch, rule, n := captions.get((worker, batch), 0), int(min(covered, n)), int(flagged))
            for (worker, batch, rule), (covered, _, flagged) in groups.items()]


def _covered(caption_level: bool, assignment: Any, rule: Any, value: float, per_assignment: dict[Any, int],
             batch_captions: int | None) -> float:
    """The captions one flag covers: its caption, its assignment's, the images it counts, its share of the
    batch's; a worker-level flag of another rule judged the whole batch's work (inf, capped by the caller)."""
    if caption_level:
        return 1.0
    if assignment != "":
        return float(per_assignment.get(assignment, 1.0))
    if rule in COUNTED_WORKER_RULES:
        return 1.0 if value != value else value
    if rule in SHARE_WORKER_RULES:
        share = (1.0 if value != value else value) * (float("nan") if batch_captions is None else batch_captions)
        return share if share != share else float(np.round(share))
    return float("inf")


def wilson_lower(covered: float, n: float, z: float) -> float:
    """The lower end of the Wilson score interval of ``covered / n`` (z = 0: the share itself)."""
    if n <= 0:
        return 0.0
    p, z2 = covered / n, z * z
    return float((p + z2 / (2 * n) - z * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))) / (1 + z2 / n))


def wrong_share_blocks(scores: pd.DataFrame, seen: str, right: str, min_seen: int, block_below: float, z: float,
                       rule: str) -> pd.DataFrame:
    """Workers with ``min_seen`` judged answers whose wrong share's Wilson lower bound passes ``1 - block_below``
    (0: nobody); ``rules`` reads ``rule right% (right/seen)``."""
    rows = []
    if block_below > 0:
        for r in scores.itertuples(index=False):
            judged, correct = int(getattr(r, seen)), int(getattr(r, right))
            if judged >= min_seen and wilson_lower(judged - correct, judged, z) > 1 - block_below:
                rows.append({"worker_id": str(r.worker_id), "rules": f"{rule} {correct / judged:.0%} ({correct}/"
                             f"{judged})", "flags": judged - correct, "captions": judged})
    return pd.DataFrame(rows, columns=BLOCK_COLUMNS)


def blocks_on_rates(history: pd.DataFrame, policy: DecisionPolicy) -> pd.DataFrame:
    """Workers with ``block_min_evidence`` captions so far whose covered share (with ``block_rate_confidence`` z > 0:
    its Wilson lower bound) reaches a rule's rate; ``rules`` reads ``rule share (covered/captions)`` per rule over."""
    # one pass over plain lists, not two filters and two groupbys: the block step asks after every batch
    captions: dict[str, Any] = {}
    totals: dict[tuple[str, str], list[Any]] = {}
    for worker, rule, n, covered, flags in zip(*(history[c].tolist() for c in ("worker_id", "rule", "captions",
                                                                               "covered", "flags")), strict=True):
        if pd.isna(worker):  # as groupby: no worker, no row
            continue
        if rule == "":
            captions[worker] = captions.get(worker, 0) + n
        elif rule in policy.block_min_rate:
            total = totals.setdefault((worker, rule), [0, 0])
            total[0], total[1] = total[0] + covered, total[1] + flags
    hits: dict[str, list[tuple[str, int, int]]] = {}
    for (worker, rule), (covered, flags) in sorted(totals.items()):
        n = int(captions.get(worker, 0))
        share = wilson_lower(float(covered), n, policy.block_rate_confidence)
        if n >= policy.block_min_evidence and share >= policy.block_min_rate[str(rule)]:
            hits.setdefault(str(worker), []).append((str(rule), int(covered), int(flags)))
    rows = [{"worker_id": w, "rules": ";".join(f"{r} {c / captions[w]:.0%} ({c}/{captions[w]})" for r, c, _ in rs),
             "flags": sum(k for _, _, k in rs), "captions": int(captions[w])} for w, rs in sorted(hits.items())]
    return pd.DataFrame(rows, columns=BLOCK_COLUMNS)


def history_table(history: pd.DataFrame, workers: list[str]) -> pd.DataFrame:
    """The named workers' history, one row per batch: captions and flags by rule (``rule:n;...``)."""
    mine = history[history["worker_id"].isin(workers)]
    base = mine[mine["rule"] == ""][["worker_id", "batch", "captions"]]
    flagged = mine[mine["rule"] != ""]
    text = (flagged.assign(item=flagged["rule"] + ":" + flagged["flags"].astype(str))
            .groupby(["worker_id", "batch"])["item"].agg(";".join).rename("flags_by_rule"))
    out = base.merge(text, on=["worker_id", "batch"], how="left").fillna({"flags_by_rule": ""})
    return out.sort_values(["worker_id", "batch"], ignore_index=True)
