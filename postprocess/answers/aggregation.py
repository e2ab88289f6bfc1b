"""One answer per item and field from several workers' labels, with its confidence, and a skill estimate per worker.
Input: one row per judgement, ``item_id, worker_id, label`` [, ``field``] (postprocess.answers.judgements); each field
is aggregated on its own. Output, ``aggregate(frame) -> Aggregation(answers, workers)``: ``answers`` (ANSWER_COLUMNS)
and ``workers`` (WORKER_COLUMNS)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from postprocess.answers.calibration import calibrate_answers, coherent, known_answers
from postprocess.answers.field_parts import ByField, Coded, coded, joined
from postprocess.answers.judgements import DEFAULT_FIELD, judgements
from postprocess.answers.method_choice import Choice, choose, settled
from postprocess.answers.one_field import FieldAnswers
from postprocess.answers.same_shape import shaped_answers
from postprocess.answers.skill_prior import SkillPrior
from postprocess.answers.stacked_answers import STACKED, StackedAnswers, stacked_answers
from postprocess.answers.unchecked import unchecked

__all__ = ["ANSWER_COLUMNS", "CHOICES", "METHODS", "MIN_PER_WORKER", "WORKER_COLUMNS", "Aggregation", "aggregate",
           "aggregate_scored", "coherent", "model_answers"]

METHODS = ("mv", "ds", "glad", "mace", "one-coin", "skill")
CHOICES = ("auto", *METHODS)
MIN_PER_WORKER = 3.0  # labels per worker on average below which `auto` uses majority vote
ANSWER_COLUMNS = ["item_id", "field", "label", "confidence", "method", "judgements", "posterior",
                  "confidence_source", "note"]
WORKER_COLUMNS = ["worker_id", "skill", "items", "agreement", "control_accuracy", "controls"]


class Aggregation(NamedTuple):
    answers: pd.DataFrame
    workers: pd.DataFrame


def _choice(items: np.ndarray, workers: np.ndarray, labels: pd.Series, method: str, min_per_worker: float) -> Choice:
    """``method`` itself, or ``auto``'s choice and its reason (postprocess.answers.method_choice)."""
    if method not in CHOICES:
        raise ValueError(f"unknown method {method!r}; use one of {', '.join(CHOICES)}")
    if method != "auto":
        return Choice(method, "", {})
    codes, names = pd.factorize(labels, sort=True)
    return choose(items, workers, codes, len(names), min_per_worker)


def aggregate(frame: pd.DataFrame, method: str = "auto", min_per_worker: float = MIN_PER_WORKER,
              seed: int = 0, controls: pd.DataFrame | None = None, drop: pd.Series | None = None,
              prior: SkillPrior | None = None) -> Aggregation:
    """Answers and workers from a long frame of judgements; ``drop``: a mask of rows left out; ``prior``: skill's."""
    return aggregate_scored(frame, method, min_per_worker, seed, controls, drop, prior)[0]


def model_answers(frame: pd.DataFrame, method: str = "auto") -> pd.DataFrame:
    """:func:`aggregate`'s answers with the model's own confidence, which controls calibrate."""
    return aggregate_scored(frame, method, controls=pd.DataFrame(columns=["item_id", "answer"]))[0].answers


def aggregate_scored(frame: pd.DataFrame, method: str = "auto", min_per_worker: float = MIN_PER_WORKER,
                     seed: int = 0, controls: pd.DataFrame | None = None, drop: pd.Series | None = None,
                     prior: SkillPrior | None = None) -> tuple[Aggregation, pd.DataFrame | None]:
    """:func:`aggregate`, and the controls' scored rows ``item_id, field, label, answer, correct, model_confidence,
    confidence``."""
    data, gold, scored = _split_controls(judgements(frame, drop), controls)
    result = _aggregate(data, method, min_per_worker, seed, prior or SkillPrior(),
                        set() if gold is None else set(gold["item_id"]))
    if scored is None or gold is None:
        return Aggregation(unchecked(result.answers, data), result.workers), None
    answers, checked = calibrate_answers(result.answers, gold)
    answers.attrs["method_choice"] = result.answers.attrs.get("method_choice", {})
    answers.attrs["temperature"] = result.answers.attrs.get("temperature", {})
    answers.attrs.setdefault("calibration_fit", {})
    workers = result.workers.drop(columns=["control_accuracy", "controls"]).merge(
        _control_scores(scored), on="worker_id", how="outer").sort_values("worker_id", kind="stable")
    workers["controls"] = workers["controls"].fillna(0).astype(int)
    workers["items"] = workers["items"].fillna(0).astype(int)
    return Aggregation(answers, workers.reset_index(drop=True)[WORKER_COLUMNS]), checked


def _control_scores(scored: pd.DataFrame) -> pd.DataFrame:
    """``worker_id, control_accuracy, controls`` in worker order from the controls' ``correct``."""
    codes, names = pd.factorize(scored["worker_id"], sort=True)
    labels = np.bincount(codes, minlength=len(names))
    return pd.DataFrame({"worker_id": names, "control_accuracy": np.bincount(
        codes, scored["correct"].to_numpy(), minlength=len(names)) / labels, "controls": labels})


def _split_controls(data: pd.DataFrame, controls: pd.DataFrame | None,
                    ) -> tuple[pd.DataFrame, pd.DataFrame | None, pd.DataFrame | None]:
    """(judgements, known ``item_id, field, answer``, controls' ``worker_id, correct``), or (all, None, None)."""
    if controls is None:
        return data, None, None
    missing = [c for c in ("item_id", "answer") if c not in controls.columns]
    if missing:
        raise ValueError(f"the control items lack column(s) {', '.join(missing)}; expected item_id, answer [, field]")
    gold = pd.DataFrame({"item_id": controls["item_id"].astype(str).str.strip(),
                         "field": controls["field"].astype(str).str.strip() if "field" in controls else DEFAULT_FIELD,
                         "answer": controls["answer"].astype(str).str.strip()}).drop_duplicates(["item_id", "field"])
    known = known_answers(data, gold)
    found = known != None  # noqa: E711 (elementwise)
    scored = pd.DataFrame({"worker_id": data["worker_id"][found],
                           "correct": (data["label"].to_numpy()[found] == known[found]).astype(float)})
    return data, gold, scored


def _aggregate(data: pd.DataFrame, method: str, min_per_worker: float, seed: int, prior: SkillPrior,
               held: set[str] | None = None) -> Aggregation:
    """Per field, the model's answers; per worker, the skill; ``held``: controls, out of the workers' figures."""
    if data.empty:
        return Aggregation(pd.DataFrame(columns=ANSWER_COLUMNS), pd.DataFrame(columns=WORKER_COLUMNS))
    if method not in CHOICES:
        raise ValueError(f"unknown method {method!r}; use one of {', '.join(CHOICES)}")
    codes = coded(data)
    fields = codes.field_rows()
    methods, reasons = _choices(codes, fields, method, min_per_worker)
    together = np.isin(methods, STACKED)
    alone = np.flatnonzero(~together)
    parts: list[StackedAnswers | FieldAnswers] = [
        stacked_answers(codes, np.flatnonzero(together), methods, prior),
        *shaped_answers(codes, [fields[f] for f in alone], list(methods[alone]), seed, prior)]
    posterior, agrees = np.empty(len(data)), np.empty(len(data))
    temperatures: dict[int, float] = {}
    for part in parts:
        posterior[part.rows], agrees[part.rows] = part.posterior, part.agrees
        temperatures.update(part.temperatures if isinstance(part, StackedAnswers) else
                            {int(codes.fields[part.rows[0]]): part.temperature})
    out = joined([p.answers for p in parts if p.answers]).sort_values(["field", "item_id"], kind="stable")
    out = out.reset_index(drop=True)[ANSWER_COLUMNS]
    out.attrs["method_choice"] = ByField(reasons)  # auto's reasons, by field
    out.attrs["temperature"] = ByField({str(codes.field_ids[f]): temperatures[f] for f in range(len(fields))})
    order = np.argsort(codes.fields, kind="stable")  # field after field, each in file order
    given = pd.DataFrame({"worker": codes.workers[order], "item": codes.items[order],
                          "posterior": posterior[order], "agrees": agrees[order]})
    if held:  # control items: answered (to be scored), but their labels say nothing more of a worker here
        given = given[~np.isin(codes.item_ids.take(given["item"].to_numpy()), list(held))]
    return Aggregation(out, _workers(given, codes.worker_ids))


def _choices(codes: Coded, fields: list[np.ndarray], method: str, min_per_worker: float,
             ) -> tuple[np.ndarray, dict[str, str]]:
    """(each field's method by code; ``auto``'s reasons by name): ``method``, or ``auto``'s choice."""
    if method != "auto":
        return np.full(len(fields), method, dtype=object), {}
    judged = np.bincount(codes.fields, minlength=len(fields))
    workers, labels = (np.bincount(np.unique(codes.fields * max(len(ids), 1) + each) // max(len(ids), 1),
                                   minlength=len(fields))
                       for each, ids in ((codes.workers, codes.worker_ids), (codes.labels, codes.label_ids)))
    methods, reasons = np.empty(len(fields), dtype=object), {}
    for f, rows in enumerate(fields):
        choice = settled(int(judged[f]), int(workers[f]), int(labels[f]), min_per_worker) or _choice(
            codes.items[rows], codes.workers[rows], pd.Series(codes.labels[rows]), method, min_per_worker)
        methods[f] = choice.method
        if choice.reason:
            reasons[str(codes.field_ids[f])] = choice.reason
    return methods, reasons


def _workers(given: pd.DataFrame, worker_ids: pd.Index) -> pd.DataFrame:
    """Per worker (``given``: ``worker, item`` codes, ``posterior``, ``agrees``): skill and counts."""
    worker, item = given["worker"].to_numpy(), given["item"].to_numpy()
    skill = given["posterior"].groupby(worker, sort=True).mean()
    present = skill.index.to_numpy()
    labels = np.bincount(worker)[present]
    pairs = np.unique(worker.astype(np.int64) * (int(item.max(initial=0)) + 1) + item)
    distinct = np.bincount(pairs // (int(item.max(initial=0)) + 1), minlength=len(worker_ids))[present]
    return pd.DataFrame({"worker_id": worker_ids.take(present), "skill": skill.to_numpy(), "items": distinct,
                         "agreement": np.bincount(worker, given["agrees"].to_numpy())[present] / labels,
                         "control_accuracy": np.nan, "controls": 0})
