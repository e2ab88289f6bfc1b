"""``choice_straight_lining``: one answer to a choice field on every item a worker answered, rare for an honest one.
Input columns: ``assignment_id, worker_id, image_id, field, answer``, optionally ``options`` (the field's number of
options; 0 or absent: the distinct answers seen, at least 2). Params: ``straight_lining_min_items`` (3),
``straight_lining_alpha`` (0.01): blocks below ``alpha / m``, reviews below ``alpha`` (docs/explanation/qc-rules.md)."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pandas as pd

from qc.flags import flag_frame

# the simulator's honest workers agree with the majority ~86% of the time: a page whose few answers agree proves little
R_MAX = 0.85
RULE, REVIEW_RULE = "choice_straight_lining", "choice_straight_lining_review"
RATES = 8  # steps of honest agreement, from the crowd's to 1, over which a run's p-value is taken at its largest


def _agreement(items: list[list[str]], scale: bool) -> float | None:
    """Share of answers agreeing with their item's other answers (see the module); None if no item has two."""
    agree = total = 0.0
    for answers in items:
        for j, x in enumerate(answers):
            others = answers[:j] + answers[j + 1:]
            if others:
                agree += _consensus_share(x, others, scale)
                total += 1
    return agree / total if total else None


def _consensus_share(x: str, others: list[str], scale: bool) -> float:
    """``m`` of the module: the chance the others' consensus is ``x``."""
    if scale:
        median = statistics.median([float(o) for o in others])  # not a pandas Series per call: the same float
        return float(abs(float(x) - median) <= 1)
    counts = Counter(others)
    top = max(counts.values())
    modes = [o for o, c in counts.items() if c == top]
    return 1 / len(modes) if x in modes else 0.0


def run_chance(shares: list[float], r: float, k: int, scale: bool) -> float:
    """An honest worker's chance of giving one answer on every item (``shares``: its ``m`` on each item)."""
    chance = 1.0
    for m in shares:
        chance *= r * m + (1 - r) * (1 - m) / (1 if scale else k - 1)
    return chance


def option_shares(answer: str, peers: list[list[str]], scale: bool, seen: Iterable[str]) -> dict[str, list[float]]:
    """Each option's ``m`` on each item (``peers``: each item's others' answers), ``answer`` and those ``seen``."""
    return {o: [_consensus_share(o, others, scale) for others in peers] for o in set(seen) | {answer}}


def p_value(answer: str, shares: dict[str, list[float]], r: float, k: int, scale: bool) -> float:
    """The chance of a run of one answer at most as likely as ``answer``'s (an option never seen on the field is
    the least likely, ``((1 - r)/(k - 1))^n``); ``shares`` from :func:`option_shares`."""
    own = run_chance(shares[answer], r, k, scale)
    runs = [run_chance(m, r, k, scale) for m in shares.values()]
    if not scale:
        runs += [((1 - r) / (k - 1)) ** len(shares[answer])] * max(0, k - len(shares))
    return min(1.0, sum(c for c in runs if c <= own * (1 + 1e-9)))


def option_count(field: pd.DataFrame) -> int:
    declared = int(pd.to_numeric(field["options"], errors="coerce").fillna(0).max()) if "options" in field else 0
    return max(2, declared or field["answer"].nunique())


def judge_field(name: str, field: pd.DataFrame, min_items: int) -> dict[str, tuple[float, str]]:
    """Each worker's run p-value on one field (one row per worker x item); 1.0 for a worker of several answers."""
    k = option_count(field)
    scale = k >= 3 and bool(pd.to_numeric(field["answer"], errors="coerce").notna().all())  # a rating scale
    # plain lists, not a frame filtered per worker and item (a boolean mask each, the field's rows squared)
    rows = list(zip(field["worker_id"].tolist(), field["image_id"].tolist(), field["answer"].tolist(), strict=True))
    on_item: dict[Any, list[tuple[Any, str]]] = {}
    for worker, image, answer in rows:
        if not pd.isna(image):
            on_item.setdefault(image, []).append((worker, answer))
    items, seen_on_field = sorted(on_item), field["answer"].unique()
    judged: dict[str, tuple[float, str]] = {}
    for worker, at in sorted(field.groupby("worker_id").indices.items()):
        own = [rows[j] for j in at]
        peers = [seen for _, i, _ in own if (seen := [a for w, a in on_item.get(i, []) if w != worker])]
        if len(peers) < min_items:
            continue
        if len({a for _, _, a in own}) != 1:
            judged[str(worker)] = (1.0, "")
            continue
        observed = _agreement([[a for w, a in on_item[i] if w != worker] for i in items], scale)
        if observed is None:
            judged[str(worker)] = (1.0, "")
            continue
        answer = str(own[0][2])
        r = min(R_MAX, max(1 / k, observed))
        # an honest worker may follow the items better than the crowd: the largest p-value over rates from the crowd up
        shares = option_shares(answer, peers, scale, seen_on_field)
        p = max(p_value(answer, shares, r + (1 - r) * j / RATES, k, scale) for j in range(RATES + 1))
        judged[str(worker)] = (p, f"{name}: {answer!r} on all {len(peers)} items; an honest worker agreeing with the "
                                  f"others {r:.0%} of the time or more gives one answer that unlikely with "
                                  f"probability {p:.2g}")
    return judged


def combined(p_values: list[float]) -> float:
    """Fisher's combination of independent p-values: P(chi-squared with 2m degrees > -2 sum ln p)."""
    half = -sum(math.log(p) for p in p_values)
    return min(1.0, math.exp(-half) * sum(half ** j / math.factorial(j) for j in range(len(p_values))))


def choice_straight_lining(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """One answer to a choice field on every item, or on each of several (Fisher's method); one flag a worker."""
    min_items = int(params.get("straight_lining_min_items", 3))
    alpha = float(params.get("straight_lining_alpha", 0.01))
    answered = df[df["answer"].astype(str) != ""].astype({"answer": str})
    by_worker: dict[str, list[tuple[float, str]]] = {}
    for name, field in answered.groupby("field"):
        for worker, run in judge_field(str(name), field.drop_duplicates(["worker_id", "image_id"]), min_items).items():
            by_worker.setdefault(worker, []).append(run)
    # every worker judged is a test: a block needs a run that stands out among all (Bonferroni), else a person looks
    tested = max(1, len(by_worker))
    rows = []
    for worker, runs in by_worker.items():
        p, said = min(runs)
        if sum(q < 1 for q, _ in runs) >= 2 and (together := combined([q for q, _ in runs])) < p:
            p, said = together, "; ".join(s for q, s in runs if q < 1) + f"; together {together:.2g}"
        if p < alpha:
            rows.append({"worker_id": worker, "rule": RULE if p < alpha / tested else REVIEW_RULE,
                         "value": float(f"{p:.3g}"), "threshold": alpha / tested,
                         "detail": f"{said} (< {alpha:g}; a block needs < {alpha / tested:.2g}, {alpha:g} among the "
                                   f"{tested} workers judged)"})
    return flag_frame(rows)
