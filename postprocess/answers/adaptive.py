"""Adaptive overlap, replayed offline: how many of a recorded file's judgements were needed.
Input: the judgements (``item_id, worker_id, label`` [, ``field``]: postprocess.answers.judgements) in arrival order.
Output, ``replay(frame, rule) -> Replay(answers, used)``: ``answers``, ANSWER_COLUMNS plus ``judgements_used``,
``available`` and ``stop_confidence``, one row per item and field; ``used``, the used judgements in the file's order."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from postprocess.answers import adaptive_budget
from postprocess.answers.aggregation import ANSWER_COLUMNS, Aggregation, aggregate
from postprocess.answers.calibration import as_reported
from postprocess.answers.judgements import judgements
from postprocess.answers.skill_posterior import SkillPrior, fast_workers, label_posterior

KEY = ["item_id", "field"]
# A settled item's runner-up could at best come out ahead at these odds, a coin toss, with base-rate slack.
SETTLED_ODDS = 1.1


@dataclass(frozen=True)
class StoppingRule:
    min_judgements: int = 3
    max_judgements: int | None = None  # None: as many as the file holds
    confidence: float | None = None  # stop once the aggregated confidence reaches this
    lead: int | None = None  # stop once the leading label is this many votes ahead
    method: str = "auto"  # the aggregation method (postprocess.answers.CHOICES)
    skill_prior: SkillPrior = field(default_factory=SkillPrior)  # shrinks each worker's skill (stop_on skill)
    stop_on: str = "skill"  # skill: answers.csv's confidence (stop_confidence); method: the aggregation's own
    settled: bool = True  # stop an item once the judgements it may still take cannot change its answer
    fast_share: float = 0.0  # a worker this much faster than the crowd is a draw from the fast workers (seconds)
    budget: float | None = None  # at most this share of the file's judgements, the largest expected gain first
    budget_confidence: float | None = None  # with budget: once every item meets confidence, what is left serves this

    def check(self) -> None:
        if self.min_judgements < 1:
            raise ValueError(f"min_judgements {self.min_judgements}: ask at least one judgement per item")
        if self.max_judgements is not None and self.max_judgements < self.min_judgements:
            raise ValueError(f"max_judgements {self.max_judgements} is below min_judgements {self.min_judgements}")
        if self.confidence is not None and not 0 < self.confidence <= 1:
            raise ValueError(f"confidence {self.confidence}: give a probability in (0, 1]")
        if self.lead is not None and self.lead < 1:
            raise ValueError(f"lead {self.lead}: give a number of votes, at least 1")
        if self.budget is not None and not 0 < self.budget <= 1:
            raise ValueError(f"budget {self.budget}: give a share of the judgements in (0, 1]")
        if self.budget_confidence is not None and not 0 < self.budget_confidence <= 1:
            raise ValueError(f"budget confidence {self.budget_confidence}: give a probability in (0, 1]")
        if not 0 <= self.fast_share < 1:
            raise ValueError(f"fast_share {self.fast_share}: give a share of the crowd's median time in [0, 1)")
        if self.stop_on not in ("skill", "method"):
            raise ValueError(f"stop_on {self.stop_on!r}: use skill or method")
        self.skill_prior.check()


# `hitflow aggregate --adaptive`'s defaults (tests/test_adaptive_cli.py keeps them equal)
DEFAULT_RULE = StoppingRule(2, None, 0.99, budget=0.5, budget_confidence=0.999)


class Replay(NamedTuple):
    answers: pd.DataFrame
    used: pd.DataFrame


def replay(frame: pd.DataFrame, rule: StoppingRule, seed: int = 0, controls: pd.DataFrame | None = None) -> Replay:
    """The adaptive replay of ``frame`` under ``rule``; ``controls``: ``item_id, answer`` [, ``field``]."""
    rule.check()
    if rule.fast_share > 0 and "seconds" not in frame.columns:
        raise ValueError("fast_share needs each judgement's work time in seconds: a seconds column")
    data = judgements(frame, keep=("seconds",) if rule.fast_share > 0 else ())
    data["rank"] = data.groupby(KEY, sort=False).cumcount()  # arrival order within the item
    groups = data.groupby(KEY)
    available = groups.size().rename("available")
    group = groups.ngroup().to_numpy()  # each judgement's position in ``available`` (and ``wanted``)
    cap = available.clip(upper=rule.max_judgements) if rule.max_judgements else available
    asked = adaptive_budget.limit(rule.budget, available.to_numpy())
    allowed = adaptive_budget.paid(asked, rule.min_judgements, available.to_numpy())
    wanted = available.clip(upper=rule.min_judgements)
    if controls is not None:  # scored, never answered: they need no more judgements (flows/custom/adaptive_rounds.py)
        control_ids = set(controls["item_id"].astype(str).str.strip())
        cap = cap.where(~cap.index.get_level_values("item_id").isin(control_ids), wanted)
    while True:
        used = data[data["rank"].to_numpy() < wanted.to_numpy()[group]]  # each item's first ``wanted``, in order
        if used.empty:
            empty = pd.DataFrame(columns=[*ANSWER_COLUMNS, "judgements_used", "available", "stop_confidence"])
            return Replay(empty, used.drop(columns="rank"))
        fast = fast_workers(used, rule.fast_share) if rule.fast_share > 0 else frozenset()
        tables: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # the skill posterior's, each field's: the gain's
        if rule.stop_on == "skill":  # the answers are aggregated once, from the last round's judgements
            result, sureness = None, stop_confidence(used, rule, fast, controls, tables)
        else:  # the method's own confidence, each round
            result = aggregate(used, rule.method, seed=seed, controls=controls, prior=rule.skill_prior)
            sureness = result.answers.assign(confidence=result.answers["posterior"])
        gain = _gains(tables, sureness, wanted, cap) if _capped(rule) else None
        asks = _round_asks(sureness, used, rule, wanted, cap, allowed, gain)
        if not asks.any():
            break
        wanted = wanted + asks.astype(int)
    if result is None:
        result = aggregate(used, rule.method, seed=seed, controls=controls, prior=rule.skill_prior)
    answers = _answers(result, wanted, available, sureness)
    answers.attrs["budget"] = adaptive_budget.budget_said(
        rule.budget, allowed, len(used), rule.min_judgements, asked is not None and allowed != asked,
        _left_uncertain(answers, rule) if allowed is not None else 0)
    return Replay(answers, used.drop(columns="rank").reset_index(drop=True))


def _capped(rule: StoppingRule) -> bool:
    """Does the rule spend a budget under the whole file (rounds capped by gain; stop_on skill only)?"""
    return rule.budget is not None and rule.budget < 1 and rule.stop_on == "skill"


def _round_asks(sureness: pd.DataFrame, used: pd.DataFrame, rule: StoppingRule, wanted: pd.Series, cap: pd.Series,
                allowed: int | None, gain: np.ndarray | None = None) -> np.ndarray:
    """Which items and fields (in ``wanted``'s order) take one more judgement this round, within the budget."""
    at = positions(wanted.index, zip(sureness["item_id"].to_numpy(), sureness["field"].to_numpy(), strict=True))
    sure = np.full(len(wanted), np.inf)
    sure[at] = sureness["confidence"].to_numpy(dtype=float)
    left = None if allowed is None else allowed - int(wanted.sum())
    second = left is not None and left > 0 and rule.budget_confidence is not None
    targets = [rule, replace(rule, confidence=rule.budget_confidence)] if second else [rule]
    for tier, target in enumerate(targets):
        asks = np.zeros(len(wanted), dtype=bool)
        asks[at] = _still_uncertain(sureness, at, used, target, (cap - wanted).to_numpy())
        asks &= (wanted < cap).to_numpy()
        if gain is not None and left is not None:
            asks = adaptive_budget.by_gain(asks, gain, min(left, adaptive_budget.round_cap(len(wanted))))
        elif left is not None:
            asks = adaptive_budget.within(asks, sure, left, nearest_first=tier > 0)
        if asks.any():
            return asks
    return np.zeros(len(wanted), dtype=bool)


def _gains(tables: dict[str, tuple[np.ndarray, np.ndarray]], sureness: pd.DataFrame, wanted: pd.Series,
           cap: pd.Series) -> np.ndarray:
    """Each item and field's expected gain per judgement (adaptive_budget.expected_gain), in ``wanted``'s order."""
    gain = np.zeros(len(wanted))
    remaining = (cap - wanted).to_numpy()
    # looked up once, not per field: per field they were quadratic in the fields (10,000 fields: minutes)
    where = {key: at for at, key in enumerate(wanted.index)}
    weights = sureness.drop_duplicates("field").set_index("field")["vote_weight"].astype(float)
    for name, (items, posterior) in tables.items():
        probabilities = posterior / posterior.sum(axis=1, keepdims=True)
        at = np.array([where.get((item, name), -1) for item in items], dtype=np.intp)
        gain[at] = adaptive_budget.expected_gain(probabilities, math.exp(weights[name]), remaining[at])
    return gain


def stop_confidence(used: pd.DataFrame, rule: StoppingRule, fast: frozenset[str] = frozenset(),
                    controls: pd.DataFrame | None = None,
                    tables: dict[str, tuple[np.ndarray, np.ndarray]] | None = None) -> pd.DataFrame:
    """What stop_on skill reads: label_posterior's rows with answers.csv's confidence (``tables``: theirs)."""
    posterior = label_posterior(used, rule.skill_prior, fast, tables)
    # ``used`` is judgements()' own rows (a replay's, or a campaign's): read through it again they are the same
    return as_reported(posterior, used.groupby("field")["label"].nunique(), controls)


def _still_uncertain(answers: pd.DataFrame, at: np.ndarray, used: pd.DataFrame, rule: StoppingRule,
                     remaining: np.ndarray) -> np.ndarray:
    """Per row of ``answers``: does the rule ask for one more judgement? ``at``: its place in ``remaining``."""
    confident = np.zeros(len(answers), dtype=bool)
    if rule.confidence is not None:
        confident |= answers["confidence"].to_numpy(dtype=float) >= rule.confidence - 1e-12
    if rule.lead is not None:
        confident |= _lead_at(used, answers) >= rule.lead
    if rule.confidence is None and rule.lead is None:
        confident[:] = True
    if rule.settled:
        left = remaining[at]
        if rule.stop_on == "skill":
            confident |= _settled(answers["margin"].to_numpy(dtype=float),
                                  answers["vote_weight"].to_numpy(dtype=float), left.astype(float))
        else:
            confident |= _lead_at(used, answers) >= left
    return ~confident


def _lead_at(used: pd.DataFrame, answers: pd.DataFrame) -> np.ndarray:
    """:func:`_lead` at each row of ``answers`` (``item_id, field``), 0 where an item has no votes."""
    lead = _lead(used)
    where = positions(lead.index, zip(answers["item_id"].to_numpy(), answers["field"].to_numpy(), strict=True))
    return np.where(where >= 0, lead.to_numpy()[where], 0) if len(lead) else np.zeros(len(where), dtype=int)


def settled(margin: pd.Series, vote_weight: pd.Series, remaining: pd.Series) -> pd.Series:
    """Whether ``remaining`` judgements of ``vote_weight`` could at best tie the answer (under SETTLED_ODDS)."""
    return pd.Series(_settled(margin.to_numpy(dtype=float), vote_weight.to_numpy(dtype=float),
                              remaining.to_numpy(dtype=float)), index=margin.index)


def _settled(margin: np.ndarray, vote_weight: np.ndarray, remaining: np.ndarray) -> np.ndarray:
    """:func:`settled` over arrays of floats."""
    return margin >= remaining * vote_weight - (math.log(SETTLED_ODDS) + 1e-9)


def _lead(used: pd.DataFrame) -> pd.Series:
    """Votes of the leading label minus those of the runner-up, per item and field."""
    counts = used.groupby([*KEY, "label"]).size().sort_values(ascending=False)
    top2 = counts.groupby(level=[0, 1]).head(2)
    first = top2.groupby(level=[0, 1]).max()
    second = (top2.groupby(level=[0, 1]).sum() - first).where(top2.groupby(level=[0, 1]).size() > 1, 0)
    return first - second


def _left_uncertain(answers: pd.DataFrame, rule: StoppingRule) -> int | None:
    """Items still under ``rule.confidence`` whose file had more labels (None: a rule without a confidence)."""
    if rule.confidence is None:
        return None
    short = (answers["stop_confidence"].to_numpy(dtype=float) < rule.confidence) & (
        answers["judgements_used"].to_numpy() < answers["available"].to_numpy())
    return int(short.sum())


def _answers(result: Aggregation, wanted: pd.Series, available: pd.Series, sureness: pd.DataFrame) -> pd.DataFrame:
    """The answers with their item's ``judgements_used``, ``available`` and ``stop_confidence``."""
    keys = zip(result.answers["item_id"].to_numpy(), result.answers["field"].to_numpy(), strict=True)
    asked = positions(wanted.index, keys)  # every answered item and field was asked
    stop = positions(zip(sureness["item_id"].to_numpy(), sureness["field"].to_numpy(), strict=True),
               zip(result.answers["item_id"].to_numpy(), result.answers["field"].to_numpy(), strict=True))
    out = result.answers.assign(judgements_used=values_at(wanted.to_numpy(), asked),
                                available=values_at(available.to_numpy(), asked),
                                stop_confidence=values_at(sureness["confidence"].to_numpy(), stop))
    out.attrs = {"method_choice": result.answers.attrs.get("method_choice", {})}  # the last round's, by field
    return out


def saving(replayed: Replay, frame: pd.DataFrame) -> dict[str, Any]:
    """The judgements used against the file's total, and their share; with a budget, what it allowed and cut."""
    total = len(judgements(frame))
    used = len(replayed.used)
    budget = replayed.answers.attrs.get("budget", {})
    return {"judgements_used": used, "judgements_total": total,
            "share_used": round(used / total, 4) if total else 0.0,
            **({"budget": budget} if budget.get("share") is not None else {})}


def positions(table: Iterable[tuple[object, ...]], keys: Iterable[tuple[object, ...]]) -> np.ndarray:
    """Each key's position among ``table``'s keys (each once there), -1 where absent: a dict, not a join (a merge
    or a MultiIndex cost ~1 ms a round on frames of a few hundred rows)."""
    where = {key: at for at, key in enumerate(table)}
    return np.array([where.get(key, -1) for key in keys], dtype=np.intp)


def values_at(values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``values`` at positions ``at``, NaN at -1 (as a left merge fills a row without a match)."""
    if (at >= 0).all():
        return values[at]
    kind = object if values.dtype == object else float
    return np.where(at >= 0, values[at].astype(kind), np.nan) if len(values) else np.full(len(at), np.nan, kind)
