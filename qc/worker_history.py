"""A worker's evidence over the whole campaign, and blocks decided on rates over it.

Input columns: ``assignments``: ``assignment_id, worker_id, batch, captions`` (one row per
assignment, every batch so far); ``flags``: :mod:`qc.flags` columns plus ``batch``.
A flag covers captions: a caption-level flag (``image_id`` set) its caption, an
assignment-level flag its assignment's captions, a worker-level flag all the worker's
captions of that batch, or, for ``duplicate_text``, the images it names (its ``value``), and for
``canned_overuse``, ``caps_lock``, ``consensus_rate`` and ``quality_words_rate`` that share (their
``value``) of the batch's captions.
Output of :func:`worker_history`: ``worker_id, batch, rule, captions, covered, flags``
(one row per worker, batch and rule, and a ``rule == ""`` row with the batch's captions).
"""

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
    work = assignments.assign(batch=assignments["batch"].astype(int), captions=assignments["captions"].astype(int))
    per_batch = work.groupby(["worker_id", "batch"], as_index=False)["captions"].sum()
    if flags.empty:
        return per_batch.assign(rule="", covered=0, flags=0)[HISTORY_COLUMNS]
    f = flags[flags["worker_id"] != ""].assign(batch=flags["batch"].astype(int))
    per_assignment = work.set_index("assignment_id")["captions"]
    caption_level = f["image_id"] != ""
    assignment_level = ~caption_level & (f["assignment_id"] != "")
    counted = ~caption_level & ~assignment_level & f["rule"].isin(COUNTED_WORKER_RULES)
    by_assignment = f["assignment_id"].map(per_assignment).astype(float).fillna(1.0)
    value = pd.to_numeric(f["value"], errors="coerce").astype(float)
    batch_captions = f.merge(per_batch, on=["worker_id", "batch"], how="left")["captions"].to_numpy(float)
    shared = ~caption_level & ~assignment_level & f["rule"].isin(SHARE_WORKER_RULES)
    # a worker-level flag judged the whole batch's work: inf, capped at the batch's captions below
    f = f.assign(covered=np.select(
        [caption_level, assignment_level, counted, shared],
        [1.0, by_assignment, value.fillna(1.0), np.round(value.fillna(1.0).to_numpy() * batch_captions)], np.inf))
    # one caption flagged twice by the same rule is still one caption
    f["key"] = (f["assignment_id"] + "|" + f["image_id"]).where(caption_level, pd.Series(f.index, index=f.index)
                                                                .astype(str))
    f = f.drop_duplicates(["worker_id", "batch", "rule", "key"])
    by_rule = f.groupby(["worker_id", "batch", "rule"], as_index=False).agg(covered=("covered", "sum"),
                                                                           flags=("rule", "size"))
    by_rule = by_rule.merge(per_batch, on=["worker_id", "batch"], how="left").fillna({"captions": 0})
    by_rule["covered"] = by_rule[["covered", "captions"]].min(axis=1).astype(int)
    base = per_batch.assign(rule="", covered=0, flags=0)
    return pd.concat([base, by_rule], ignore_index=True)[HISTORY_COLUMNS].sort_values(
        ["worker_id", "batch", "rule"], ignore_index=True)


def wilson_lower(covered: float, n: float, z: float) -> float:
    """The lower end of the Wilson score interval of ``covered / n`` (z = 0: the share itself)."""
    if n <= 0:
        return 0.0
    p, z2 = covered / n, z * z
    return float((p + z2 / (2 * n) - z * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))) / (1 + z2 / n))


def wrong_share_blocks(scores: pd.DataFrame, seen: str, right: str, min_seen: int, block_below: float, z: float,
                       rule: str) -> pd.DataFrame:
    """Workers with ``min_seen`` judged answers (column ``seen``, of which ``right`` were right) whose
    wrong share's Wilson lower bound passes ``1 - block_below`` (control items, agreement with the
    others' answer); ``rules`` reads ``rule right% (right/seen)``. ``block_below`` 0: nobody."""
    rows = []
    if block_below > 0:
        for r in scores.itertuples(index=False):
            judged, correct = int(getattr(r, seen)), int(getattr(r, right))
            if judged >= min_seen and wilson_lower(judged - correct, judged, z) > 1 - block_below:
                rows.append({"worker_id": str(r.worker_id), "rules": f"{rule} {correct / judged:.0%} ({correct}/"
                             f"{judged})", "flags": judged - correct, "captions": judged})
    return pd.DataFrame(rows, columns=BLOCK_COLUMNS)


def blocks_on_rates(history: pd.DataFrame, policy: DecisionPolicy) -> pd.DataFrame:
    """Workers with ``block_min_evidence`` captions so far whose covered share reaches a rule's rate
    (with ``block_rate_confidence`` z > 0: the share's Wilson lower bound reaches it).

    ``rules`` reads ``rule share (covered/captions)`` for every rule over its rate."""
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
