"""Answers, not responses: one answer per item and field from several workers' labels, with its
confidence, and a skill estimate per worker.

Input: one row per judgement, ``item_id, worker_id, label`` [, ``field``] (postprocess.answers.judgements);
each field is aggregated on its own.

Output, ``aggregate(frame) -> Aggregation(answers, workers)``:

- ``answers``: ``item_id, field, label, confidence, method, judgements, posterior, confidence_source, note``.
  ``posterior`` is the method's own probability of its label (majority vote: the vote share). ``confidence`` is
  what a user acts on: the skill posterior's probability of the label (postprocess.answers.skill_posterior:
  each item left out of its workers' records, tempered by held-out labels), never above what the judgements
  could show (calibration.bounded); with controls, calibrated on them where cross-validation finds it better
  (``confidence_source`` says which). It is coherent: where the skill posterior prefers another label, the two
  share their probability (:func:`coherent`; 0.5 on two labels), so no answer reads as the less likely of two.
  ``note`` is ``tie`` where the method's top labels tie.
- ``workers``: ``worker_id, skill, items, agreement, control_accuracy, controls`` (skill: the mean posterior of
  the labels a worker gave; agreement: the share equal to the answer; controls: their control items scored).

Methods: crowd-kit's (Ustalov et al.) ``mv``, ``ds`` (Dawid and Skene 1979), ``glad`` (Whitehill et al. 2009),
``mace`` (Hovy et al. 2013), ``one-coin``; ``skill``, the skill posterior; ``auto`` chooses per field by
held-out labels (postprocess.answers.method_choice; its reason in ``attrs["method_choice"]``).

Ties go to the label the skill posterior finds more probable (the more trusted workers' label; between workers
trusted alike, the field's more common label), then to text order. Control items' judgements enter the models
as any item's; their answers leave the output and score the calibration.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from postprocess.answers import worker_coin
from postprocess.answers.calibration import bounded, calibrate_answers, known_answers
from postprocess.answers.crowdkit_models import model_class
from postprocess.answers.field_parts import by_field, joined
from postprocess.answers.judgements import DEFAULT_FIELD, judgements
from postprocess.answers.method_choice import Choice, choose
from postprocess.answers.skill_posterior import label_probabilities
from postprocess.answers.skill_prior import SkillPrior

METHODS = ("mv", "ds", "glad", "mace", "one-coin", "skill")
CHOICES = ("auto", *METHODS)
MIN_PER_WORKER = 3.0  # labels per worker on average below which `auto` uses majority vote
ANSWER_COLUMNS = ["item_id", "field", "label", "confidence", "method", "judgements", "posterior",
                  "confidence_source", "note"]
WORKER_COLUMNS = ["worker_id", "skill", "items", "agreement", "control_accuracy", "controls"]
TIE_DECIMALS = 12  # probabilities equal to this many places count as a tie


class Aggregation(NamedTuple):
    answers: pd.DataFrame
    workers: pd.DataFrame


def choose_method(field_frame: pd.DataFrame, method: str = "auto", min_per_worker: float = MIN_PER_WORKER) -> str:
    """The method for one field's judgements: ``method`` itself unless it is ``auto`` (see the module)."""
    items, workers = pd.factorize(field_frame["item_id"])[0], pd.factorize(field_frame["worker_id"])[0]
    return _choice(items, workers, field_frame["label"], method, min_per_worker).method


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
    """Answers and workers from a long frame of judgements (see the module for the columns).
    Works on any subset of judgements (e.g. the first batch only); an empty frame gives empty frames.
    ``drop``: a mask of rows to leave out (a blocked worker's), the same as passing ``frame[~drop]``;
    ``prior``: the skill prior of method ``skill`` (default ``SkillPrior()``)."""
    return aggregate_scored(frame, method, min_per_worker, seed, controls, drop, prior)[0]


def aggregate_scored(frame: pd.DataFrame, method: str = "auto", min_per_worker: float = MIN_PER_WORKER,
                     seed: int = 0, controls: pd.DataFrame | None = None, drop: pd.Series | None = None,
                     prior: SkillPrior | None = None) -> tuple[Aggregation, pd.DataFrame | None]:
    """:func:`aggregate` and, with ``controls``, the control items' rows that scored the calibration:
    ``item_id, field, label, answer, correct, model_confidence, confidence`` (``confidence`` cross-fitted:
    from a calibrator that never saw that control); None without controls."""
    data, gold, scored = _split_controls(judgements(frame, drop), controls)
    result = _aggregate(data, method, min_per_worker, seed, prior or SkillPrior(),
                        set() if gold is None else set(gold["item_id"]))
    if scored is None or gold is None:
        return result, None
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
    """``worker_id, control_accuracy, controls`` in worker order from the controls' ``correct`` (0 or 1 each,
    so the share is the exact count over the labels, as pandas' group mean gives it) without a group-by."""
    codes, names = pd.factorize(scored["worker_id"], sort=True)
    labels = np.bincount(codes, minlength=len(names))
    return pd.DataFrame({"worker_id": names, "control_accuracy": np.bincount(
        codes, scored["correct"].to_numpy(), minlength=len(names)) / labels, "controls": labels})


def _split_controls(data: pd.DataFrame, controls: pd.DataFrame | None,
                    ) -> tuple[pd.DataFrame, pd.DataFrame | None, pd.DataFrame | None]:
    """(every judgement, the known answers ``item_id, field, answer``, the control items' judgements'
    ``worker_id, correct``), or (all, None, None)."""
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
    """Per field, the model's answers; per worker, the skill over every field. ``held``: control items,
    answered here like any item but left out of the workers' figures (their answers score workers apart).

    Items and workers are integer codes in their text order from here on, the same for every field:
    the models, the posteriors and the per-worker sums see the same groups in the same order as on the
    text ids (so the same floats), without hashing 1.4 million ids again at each step (at COCO's size
    the text ids' copies and hash tables took ~600 MB over the judgements themselves)."""
    items, item_ids = pd.factorize(data["item_id"], sort=True)
    workers, worker_ids = pd.factorize(data["worker_id"], sort=True)
    answers, given, reasons, temperatures = [], [], {}, {}
    for field, rows, field_labels in by_field(data):
        choice = _choice(items[rows], workers[rows], field_labels, method, min_per_worker)
        chosen, reasons[str(field)] = choice.method, choice.reason
        label_codes, label_texts = pd.factorize(field_labels)
        probas = _probabilities(items[rows], workers[rows], field_labels, set(label_texts), chosen, seed, prior)
        skill = probas if chosen == "skill" else _skill_probabilities(
            items[rows], workers[rows], field_labels, prior).reindex(columns=probas.columns, fill_value=0.0)
        temperatures[str(field)] = float(skill.attrs.get("temperature", 1.0))  # postprocess.answers.tempering
        labels, tie = _pick(probas, skill)  # indexed by item code, in text order
        present = labels.index.to_numpy()
        answers.append(_answer_rows(probas, worker_coin.confidence_model(probas, skill, chosen), labels, tie,
                                    item_ids.take(present), field, chosen,
                                    np.bincount(items[rows], minlength=len(item_ids))[present]))
        answer = label_texts.get_indexer(labels.to_numpy())[labels.index.get_indexer(items[rows])]
        given.append({
            "worker": workers[rows], "item": items[rows],
            "posterior": _posterior(probas, items[rows], probas.columns.get_indexer(label_texts)[label_codes]),
            "agrees": (label_codes == answer).astype(float)})
        del probas, skill, labels  # one field's model at a time
    if not answers:
        return Aggregation(pd.DataFrame(columns=ANSWER_COLUMNS), pd.DataFrame(columns=WORKER_COLUMNS))
    out = joined(answers).sort_values(["field", "item_id"], kind="stable")
    given_all = joined(given)
    if held:  # control items: answered (to be scored), but their labels say nothing more of a worker here
        given_all = given_all[~np.isin(item_ids.take(given_all["item"].to_numpy()), list(held))]
    out = out.reset_index(drop=True)[ANSWER_COLUMNS]
    out.attrs["method_choice"] = {f: why for f, why in reasons.items() if why}  # auto's reasons, by field
    out.attrs["temperature"] = temperatures  # the confidence's, by field
    return Aggregation(out, _workers(given_all, worker_ids))


def _answer_rows(probas: pd.DataFrame, skill: pd.DataFrame, labels: pd.Series, tie: pd.Series, ids: np.ndarray,
                 field: str, method: str, counts: np.ndarray) -> dict[str, np.ndarray]:
    """One field's answers (``labels`` and ``tie`` by item code): the method's posterior, and the confidence
    of the module (the skill posterior's, coherent with the label, bounded by the judgements; a tie's too: the
    skill posterior broke it)."""
    present = labels.index.to_numpy()
    columns = probas.columns.get_indexer(labels.to_numpy())
    posterior = _posterior(probas, present, columns)
    confidence = bounded(coherent(_posterior(skill, present, columns), _top(skill, present)), counts,
                         max(len(probas.columns), 2))
    tied, n = tie.to_numpy(), len(present)
    return {"item_id": np.asarray(ids, dtype=object), "field": np.full(n, field, dtype=object),
            "label": np.asarray(labels.to_numpy(), dtype=object), "confidence": np.asarray(confidence, dtype=float),
            "method": np.full(n, method, dtype=object), "judgements": np.asarray(counts),
            "posterior": np.asarray(posterior, dtype=float), "confidence_source": np.full(n, "model", dtype=object),
            "note": np.where(tied, "tie", "").astype(object)}


def coherent(confidence: np.ndarray, top: np.ndarray) -> np.ndarray:
    """The answer's confidence made its likeliest: where the confidence model finds another label likelier
    (``top``, its largest probability of the item, above the answer's), the two share their probabilities
    equally, ``(confidence + top) / 2``, tied for likeliest (0.5 on two labels): the method and the confidence
    model disagree there, and neither is taken at its word."""
    conf, best = np.asarray(confidence, dtype=float), np.asarray(top, dtype=float)
    return np.where(conf < best, np.round((conf + best) / 2, 12), conf)  # rounded: 0.5 on two labels, not 0.4999...


def _top(probas: pd.DataFrame, items: np.ndarray) -> np.ndarray:
    """Each item's largest probability under ``probas``; every item is one of ``probas``."""
    return probas.to_numpy(dtype=float).max(axis=1)[probas.index.get_indexer(items)]


def _workers(given: pd.DataFrame, worker_ids: pd.Index) -> pd.DataFrame:
    """Per worker (``given``: ``worker, item`` codes, ``posterior``, ``agrees`` per judgement). The skill is
    pandas' group mean (its compensated sum); the rest are counts, which numpy's sums give exactly: one
    group-by, not three and a frame of them (~1 ms a call, paid each round of a replay)."""
    worker, item = given["worker"].to_numpy(), given["item"].to_numpy()
    skill = given["posterior"].groupby(worker, sort=True).mean()
    present = skill.index.to_numpy()
    labels = np.bincount(worker)[present]
    pairs = np.unique(worker.astype(np.int64) * (int(item.max(initial=0)) + 1) + item)
    distinct = np.bincount(pairs // (int(item.max(initial=0)) + 1), minlength=len(worker_ids))[present]
    return pd.DataFrame({"worker_id": worker_ids.take(present), "skill": skill.to_numpy(), "items": distinct,
                         "agreement": np.bincount(worker, given["agrees"].to_numpy())[present] / labels,
                         "control_accuracy": np.nan, "controls": 0})


def _probabilities(items: np.ndarray, workers: np.ndarray, labels: pd.Series, seen: set[str], method: str,
                   seed: int, prior: SkillPrior) -> pd.DataFrame:
    """Item codes x labels, each row a probability distribution over the labels ``seen`` in the field."""
    if method == "skill":
        probas = _skill_probabilities(items, workers, labels, prior)
    elif method == "mv":
        return _vote_shares(items, labels, sorted(seen))
    elif method == "worker-coin":
        return worker_coin.probabilities(items, workers, labels, sorted(seen))
    else:
        data = pd.DataFrame({"task": items, "worker": workers, "label": labels.array})
        settings: dict[str, dict[str, Any]] = {"mv": {}, "mace": {"random_state": seed}}
        model = model_class(method)(**settings.get(method, {"n_iter": 100}))
        with warnings.catch_warnings():  # crowd-kit 1.4.2 uses pandas' deprecated inplace=: not the user's concern
            warnings.simplefilter("ignore", category=FutureWarning)
            warnings.simplefilter("ignore", category=DeprecationWarning)
            model.fit(data)
        probas = model.probas_.copy()
        probas.columns = probas.columns.astype(str)
    return probas.reindex(columns=sorted(seen), fill_value=0.0).fillna(0.0)


def _vote_shares(items: np.ndarray, labels: pd.Series, columns: list[str]) -> pd.DataFrame:
    """Majority vote's probabilities as crowd-kit's ``MajorityVote`` gives them (each item's label counts over
    its judgements, one integer division each), items in code order, without its frames: at a replay's size
    (tens of labels a round) crowd-kit's value_counts, unstack and division took ~3 ms a fit."""
    label = pd.Index(columns).get_indexer(labels.array)
    present, item = np.unique(items, return_inverse=True)
    k = len(columns)
    counts = np.bincount(item * k + label, minlength=len(present) * k).reshape(len(present), k)
    return pd.DataFrame(counts / counts.sum(axis=1, keepdims=True), index=pd.Index(present, dtype=np.int64),
                        columns=pd.Index(columns))


def _skill_probabilities(items: np.ndarray, workers: np.ndarray, labels: pd.Series, prior: SkillPrior) -> pd.DataFrame:
    """Method ``skill``: postprocess.answers.skill_posterior's posterior, by item code in code order."""
    part = pd.DataFrame({"item_id": items.astype(str), "worker_id": workers.astype(str), "label": labels.array})
    probas = label_probabilities(part, prior)
    probas.index = probas.index.astype(int)
    return probas.sort_index()


def _posterior(probas: pd.DataFrame, items: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """The probability of each (item code, label column) pair; every item is one of ``probas``."""
    rows = probas.index.get_indexer(items)
    if (rows < 0).any() or (columns < 0).any():
        raise KeyError("an item or label the model did not see")
    return probas.to_numpy(dtype=float)[rows, columns]


def _pick(probas: pd.DataFrame, skill: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """The most probable label per item and whether the method's top labels tied; a tie goes to the label
    the skill posterior ``skill`` (same items and columns) finds more probable, then to text order."""
    order = sorted(probas.columns)
    in_order = list(probas.columns) == order  # then the frames are read as they are, not reindexed
    values = (probas if in_order else probas[order]).to_numpy(dtype=float).round(TIE_DECIMALS)
    top = values == values.max(axis=1, keepdims=True)
    aligned = in_order and list(skill.columns) == order and skill.index.equals(probas.index)
    by_skill = np.where(top, (skill if aligned else skill.reindex(index=probas.index, columns=order)).to_numpy(
        dtype=float).round(TIE_DECIMALS), -1.0)
    chosen = pd.Series(np.asarray(order, dtype=object)[by_skill.argmax(axis=1)], index=probas.index)
    tie = pd.Series(top.sum(axis=1) > 1, index=probas.index)
    if probas.index.is_monotonic_increasing:
        return chosen, tie
    return chosen.sort_index(), tie.sort_index()
