"""``item_blind``: a worker whose choice, number and tick answers do not follow the items, over their campaign.
Input columns: ``worker_id, image_id, field, answer`` (batch, then page order), optionally ``ticks`` (a checkbox group,
``answer`` its ticked options joined by ``|``) and ``kind`` ("number") or ``scale`` ("1..7") for scales.
Params: ``item_blind_alpha`` (0.01), ``item_blind_review_alpha`` (0.25), ``item_blind_honest_share`` (2/3),
``item_blind_min_others`` (2); ``value`` is ``1/E`` (docs/explanation/qc-rules.md)."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import pandas as pd

from qc.flags import flag_frame, register
from qc.straight_lining_odds import R_MAX

MIN_GAP = 0.1  # the crowd agrees this much above chance, or the field judges no one
PRIOR_WEIGHTS = (2.0, 0.25)  # the field's own spread, worth this many of the worker's answers, before they answer
RULE, REVIEW_RULE = "item_blind", "item_blind_review"
REVIEW_ALPHA = 0.25  # item_blind_review_alpha's default
DOUBTFUL = 0.5  # a giver agreeing with the crowd less often than not: their split with a reader settles to the reader
SETTLED_LEAST = 10  # split items settled by reliability judge a worker only where the crowd answered this many


Consensus = str | float | frozenset[tuple[str, bool]]


@dataclass
class Field:
    """One field's answers: per item, (worker, answer) in order; ``shape`` "choice", "scale" (``band``) or "ticks"."""

    name: str
    rows: list[tuple[str, Any, str]]  # (worker, item, answer) in the order given
    shape: str
    band: float = 0.0
    on_item: dict[Any, list[tuple[str, str]]] = field(default_factory=dict)
    options: tuple[str, ...] = ()


def as_number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def split_fields(df: pd.DataFrame) -> list[Field]:
    """The frame's fields, answers in order (a blank checkbox group is an answer: nothing ticked)."""
    ticks = df["ticks"].astype(bool).tolist() if "ticks" in df.columns else [False] * len(df)
    scales = set(df.loc[declared_scale(df), "field"].astype(str))
    answered: dict[tuple[str, bool], list[tuple[str, Any, str]]] = {}
    for worker, item, name, answer, many in zip(df["worker_id"].astype(str).tolist(), df["image_id"].tolist(),
                                                df["field"].astype(str).tolist(), df["answer"].tolist(), ticks,
                                                strict=True):
        text = "" if pd.isna(answer) else str(answer).strip()
        if not (pd.isna(item) or item == "" or (text == "" and not many)):
            answered.setdefault((name, bool(many)), []).append((worker, item, text))
    return [_field(name, many, rows, name in scales) for (name, many), rows in sorted(answered.items())]


def declared_scale(df: pd.DataFrame) -> pd.Series:
    """Rows of a field the page declares a number or a slider (``kind`` "number", ``scale`` "low..high")."""
    number = df["kind"].astype(str).eq("number") if "kind" in df.columns else pd.Series(False, df.index)
    bounded = df["scale"].astype(str).str.contains("..", regex=False) if "scale" in df.columns else False
    return number | bounded


def _field(name: str, many: bool, rows: list[tuple[str, Any, str]], declared: bool) -> Field:
    numbers = [as_number(a) for _, _, a in rows]
    distinct = sorted({n for n in numbers if n is not None})
    scale = declared and not many and len(distinct) >= 3 and all(n is not None for n in numbers)
    band = 0.0
    if scale:
        step = min(b - a for a, b in pairwise(distinct))
        band = max(step, (distinct[-1] - distinct[0]) / 6)
    options = tuple(sorted({o for _, _, a in rows for o in a.split("|") if o})) if many else ()
    out = Field(name, rows, "ticks" if many else "scale" if scale else "choice", band, options=options)
    seen: set[tuple[str, Any]] = set()
    for worker, item, answer in rows:
        if (worker, item) not in seen:  # a worker's repeated answer to an item counts once, the first
            seen.add((worker, item))
            out.on_item.setdefault(item, []).append((worker, answer))
    return out


def consensus(f: Field, others: list[str], weights: list[float] | None = None) -> Consensus | None:
    """The others' one answer (choice), median (scale) or options a strict majority ticked or left; None on a tie.
    A choice tie goes to the options whose givers hold the larger summed ``weights`` (their reliability), if any."""
    if f.shape == "scale":
        return statistics.median(float(o) for o in others)
    if f.shape == "ticks":
        sets = [set(o.split("|")) for o in others]
        held = frozenset((o, 2 * sum(o in t for t in sets) > len(sets)) for o in f.options
                         if 2 * sum(o in t for t in sets) != len(sets))
        return held or None
    counts = Counter(others)
    top = [a for a, n in counts.items() if n == max(counts.values())]
    if len(top) > 1 and weights is not None:  # a majority stays the consensus: weights only settle a tie
        summed = {a: math.fsum(w for o, w in zip(others, weights, strict=True) if o == a) for a in top}
        top = [a for a in top if summed[a] >= max(summed.values()) - 1e-9]
    return top[0] if len(top) == 1 else None


def tier(f: Field, answer: str, said: Consensus) -> int:
    """Distance from consensus: 0 agrees; a scale 1 within two bands, else 2; ticks 1 off by one option, else 2."""
    if f.shape == "choice":
        return 0 if answer == said else 1
    if f.shape == "ticks":
        ticked = set(answer.split("|"))
        assert isinstance(said, frozenset)
        return min(2, sum((o in ticked) != held for o, held in said))
    gap = abs(float(answer) - float(said))  # type: ignore[arg-type]
    return 0 if gap <= f.band + 1e-9 else (1 if gap <= 2 * f.band + 1e-9 else 2)


def tiers(f: Field) -> int:
    return 2 if f.shape == "choice" else 3


def outcome_spread(f: Field, spread: dict[str, float], said: Consensus) -> list[float]:
    """The chance of each tier for an answer drawn from ``spread`` (answer -> share), whatever the item."""
    out = [0.0] * tiers(f)
    for answer, p in spread.items():
        out[tier(f, answer, said)] += p
    return out


@dataclass
class Judged:
    """A worker's judged answers on one field: (item, tier, the others' consensus)."""

    answers: list[tuple[Any, int, Consensus]]
    own: list[str]  # every answer the worker gave the field, in order (what the blind prediction learns from)
    at: list[int]  # for each judged answer, how many of ``own`` came before it


def judged_answers(f: Field, min_others: int, settled: bool = False) -> dict[str, Judged]:
    """Per worker, each item they answered where the others hold one consensus, in the order given; ``settled``:
    instead, each item where two others split and one of them is ``DOUBTFUL`` (three workers an item: a careless
    giver beside a reader)."""
    out: dict[str, Judged] = {}
    done: set[tuple[str, Any]] = set()
    # a giver's reliability: their share of judged answers that agreed, plus one that did and one that did not
    trust = {w: (sum(t == 0 for _, t, _ in j.answers) + 1) / (len(j.answers) + 2)
             for w, j in judged_answers(f, min_others).items()} if settled else {}
    for worker, item, answer in f.rows:
        mine = out.setdefault(worker, Judged([], [], []))
        given = [(w, a) for w, a in f.on_item.get(item, []) if w != worker]
        others = [a for _, a in given]
        said = consensus(f, others) if len(others) >= min_others else None
        weights = [trust.get(w, 0.5) for w, _ in given]
        if settled:  # two readers who both agree with the crowd, or more others split, are a divided crowd
            said = consensus(f, others, weights) if (
                said is None and len(others) == 2 and min(weights, default=1.0) < DOUBTFUL) else None
        if said is not None and (worker, item) not in done:
            done.add((worker, item))
            mine.answers.append((item, tier(f, answer, said), said))
            mine.at.append(len(mine.own))
        mine.own.append(answer)
    return out


def blind_chance(f: Field, judged: dict[str, Judged]) -> list[float]:
    """``c``: each tier's chance for an answer drawn from the field's answers at large, over every judged answer."""
    pool = Counter(a for _, _, a in f.rows)
    spread = {a: n / sum(pool.values()) for a, n in pool.items()}
    blind = [outcome_spread(f, spread, said) for j in judged.values() for _, _, said in j.answers]
    return [math.fsum(b[t] for b in blind) / len(blind) for t in range(tiers(f))] if blind else [1.0] + [0.0] * (
        tiers(f) - 1)


def honest_floor(crowd: list[float], c: list[float], honest_share: float) -> list[float] | None:
    """``h``: the crowd's tiers (agreement held at ``R_MAX``) mixed with chance's; None when it barely beats chance."""
    r = list(crowd)
    if r[0] > R_MAX:
        r[1], r[0] = r[1] + r[0] - R_MAX, R_MAX
    if r[0] - c[0] < MIN_GAP:
        return None
    return [ct + honest_share * (rt - ct) for rt, ct in zip(r, c, strict=True)]


def field_evidence(f: Field, judged: dict[str, Judged], honest_share: float, least: int = 1
                   ) -> dict[str, dict[Any, tuple[float, ...]]]:
    """Per worker, per judged item: the item-blind to honest likelihood ratios, one per smoothing weight; a worker
    is judged where the others hold at least ``least`` judged answers to measure the crowd by."""
    c = blind_chance(f, judged)
    counts = {w: Counter(t for _, t, _ in j.answers) for w, j in judged.items()}
    every = sum(counts.values(), Counter())
    total = sum(every.values())
    pool = Counter(a for _, _, a in f.rows)
    out: dict[str, dict[Any, tuple[float, ...]]] = {}
    for worker, mine in judged.items():
        rest = total - len(mine.answers)
        if rest < max(1, least):
            continue
        h = honest_floor([(every[t] - counts[worker][t]) / rest for t in range(tiers(f))], c, honest_share)
        if h is not None:
            out[worker] = {item: tuple(_ratio(f, pool, mine.own[:k], said, t, h, w) for w in PRIOR_WEIGHTS)
                           for (item, t, said), k in zip(mine.answers, mine.at, strict=True)}
    return out


def _ratio(f: Field, pool: Counter[str], before: list[str], said: Consensus, observed: int,
           h: list[float], weight: float) -> float:
    """One judged answer's e: the blind prediction from the worker's earlier answers, smoothed by the field's."""
    total = sum(pool.values())
    own = Counter(before)
    spread = {a: (own[a] + weight * pool[a] / total) / (len(before) + weight) for a in pool}
    return monotone_ratios(outcome_spread(f, spread, said), h)[observed]


def monotone_ratios(q: list[float], h: list[float]) -> list[float]:
    """``q/h`` per tier, pooled so a closer answer never has a larger e-value: an honest worker expects at most 1."""
    blocks: list[list[float]] = []  # [q, h, first tier, last tier]
    for t, (qt, ht) in enumerate(zip(q, h, strict=True)):
        blocks.append([qt, ht, t, t])
        while len(blocks) > 1 and (blocks[-1][1] <= 0 or blocks[-2][0] * blocks[-1][1] > blocks[-1][0] * blocks[-2][1]):
            last = blocks.pop()
            blocks[-1] = [blocks[-1][0] + last[0], blocks[-1][1] + last[1], blocks[-1][2], last[3]]
    out = [1.0] * len(q)
    for qb, hb, first, end in blocks:
        for t in range(int(first), int(end) + 1):
            out[t] = qb / hb if hb > 0 else 1.0
    return out


def worker_evidence(df: pd.DataFrame, params: dict[str, Any]) -> dict[str, tuple[float, dict[str, tuple[int, int]]]]:
    """Per worker: ``E`` (mean over weights of the product over items) and, per field, (agreeing, judged)."""
    min_others = int(params.get("item_blind_min_others", 2))
    honest_share = float(params.get("item_blind_honest_share", 2 / 3))
    per_item: dict[str, dict[Any, list[tuple[float, ...]]]] = {}
    counts: dict[str, dict[str, tuple[int, int]]] = {}
    passes = [(f, settled) for f in split_fields(df) for settled in (False, True) if f.shape == "choice" or not settled]
    for f, settled in passes:
        # items the others split on are measured apart: an honest worker agrees less there, and is judged so
        judged = judged_answers(f, min_others, settled)
        for worker, items in field_evidence(f, judged, honest_share, SETTLED_LEAST if settled else 1).items():
            for item, e in items.items():
                per_item.setdefault(worker, {}).setdefault(item, []).append(e)
            agreed = sum(t == 0 for i, t, _ in judged[worker].answers if i in items)
            was = counts.setdefault(worker, {}).get(f.name, (0, 0))
            counts[worker][f.name] = (was[0] + agreed, was[1] + len(items))
    out = {}
    for worker, by_item in per_item.items():  # a product's order does not change it: items in any order
        logs = [math.fsum(math.log(_mean([e[w] for e in es])) for es in by_item.values())
                for w in range(len(PRIOR_WEIGHTS))]
        out[worker] = (_mean([math.exp(min(v, 700.0)) for v in logs]), counts[worker])
    return out


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


@register(RULE, "worker")
def item_blind(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Answers that follow the items no better than a constant or a random answer would (module docstring)."""
    alpha = float(params.get("item_blind_alpha", 0.01))
    review = max(alpha, float(params.get("item_blind_review_alpha", REVIEW_ALPHA)))
    rows = []
    for worker, (e, counts) in sorted(worker_evidence(df, params).items()):
        if e >= 1 / review:
            agreed, judged = sum(a for a, _ in counts.values()), sum(n for _, n in counts.values())
            by_field = ", ".join(f"{name} {a}/{n}" for name, (a, n) in counts.items() if n)
            rows.append({"worker_id": worker, "rule": RULE if e >= 1 / alpha else REVIEW_RULE,
                         "value": float(f"{1 / e:.3g}"), "threshold": alpha if e >= 1 / alpha else review,
                         "detail": f"agreed with the other workers' answer on {agreed} of {judged} judged answers "
                                   f"({by_field}); answers that ignore the items are {e:.3g} times likelier than an "
                                   f"honest worker's to give this (flagged from {1 / review:g}, for a person; "
                                   f"blocked from {1 / alpha:g})"[:600]})
    return flag_frame(rows)
