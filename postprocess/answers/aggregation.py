"""Answers, not responses: one answer per item and field from several workers' labels, with its
confidence, and a skill estimate per worker.

Input (the long format ``hitflow analyze agreement`` reads): one row per judgement with columns
``item_id, worker_id, label`` and optionally ``field`` (several questions of one page; each field
is aggregated on its own). Labels are compared as text; blank labels are no judgement.

Output, ``aggregate(frame) -> Aggregation(answers, workers)``:

- ``answers``: ``item_id, field, label, confidence, method, judgements, posterior, confidence_source,
  note``, one row per item and field; ``posterior`` is the probability of the chosen label under the
  method's model, or the share of judgements that gave it under majority vote; ``judgements`` counts the
  labels used. ``confidence`` is what a user acts on (issue 56): without controls (``confidence_source``
  ``model``) the probability of the chosen label under the skill posterior (with ``worker-coin``, the mean of it
  and worker-coin's: postprocess.answers.worker_coin.confidence_model) (postprocess.answers.skill_posterior:
  Dawid-Skene with a prior on each worker's skill, each item left out of its workers' records, so a
  worker's estimated skill carries its uncertainty), never above what the item's judgements could show
  (postprocess.answers.calibration.bounded: never 1.0 from one or two), its labels' evidence tempered where
  held-out labels show items split more than independent workers would (postprocess.answers.tempering; the
  temperature by field in ``attrs["temperature"]``); with controls (``calibrated on N
  controls``) that confidence calibrated on the control items (postprocess.answers.calibration), where the
  controls' cross-validation finds it better (the fit in ``attrs["calibration_fit"]``). ``note`` is ``tie``
  where the method's top labels tie; the confidence is still the skill posterior's (which broke the tie).
- ``workers``: ``worker_id, skill, items, agreement, control_accuracy``; ``skill`` is the mean
  posterior probability, under the method used, of the labels the worker gave (a soft agreement,
  comparable across methods, in [0, 1]); ``agreement`` the share of their labels equal to the
  chosen answer; ``items`` the distinct items they labelled; with ``controls`` (``item_id, answer``
  [, ``field``]: items whose answer is known), ``control_accuracy`` is the share of their labels of
  those items equal to the known answer and ``controls`` how many they labelled (empty and 0 without).
  Control items (every field of them) never enter ``answers`` nor the models.

Methods come from crowd-kit (Ustalov et al., https://github.com/Toloka/crowd-kit):
``mv`` majority vote, ``ds`` Dawid-Skene (1979), ``glad`` (Whitehill et al. 2009), ``mace``
(Hovy et al. 2013), ``one-coin`` (Dawid-Skene with one accuracy per worker); and ``skill``, the model
adaptive overlap stops on (postprocess.answers.skill_posterior: Dawid-Skene with a prior on every worker's skill,
``prior``, each item left out of its workers' records), which holds up where workers give few labels
each. ``auto`` chooses per field on the file's evidence (postprocess.answers.method_choice): majority vote,
Dawid-Skene or ``worker-coin`` (one accuracy a worker, shrunk toward the crowd's: postprocess.answers.worker_coin;
issue 66), whichever predicts held-out labels best (k-fold over the labels); majority vote without a
test when workers gave fewer than ``min_per_worker`` labels on average (a worker's confusion cannot be
estimated from one or two labels) or the field has a single label value. The reason is in the answers'
``attrs["method_choice"]`` (by field), which the summaries print.

Ties are resolved by worker skill, never by a label's frequency in the field: among labels of equal
probability under the method the one the skill posterior finds more probable wins, then the first in
text order; the row's ``note`` says ``tie``.

With ``controls``, the control items' judgements enter the models as any item's (their answers unseen:
more labels to learn each worker from), their answers leave the output and score the calibration.
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
    of the module (the skill posterior's, bounded by the judgements; a tie's too: the skill posterior broke it,
    and its probability of the label it chose is what the labels support, where the tied share undersold it:
    issue 66, RTE's majority-vote ties were right 84% at 0.5)."""
    present = labels.index.to_numpy()
    columns = probas.columns.get_indexer(labels.to_numpy())
    posterior = _posterior(probas, present, columns)
    confidence = bounded(_posterior(skill, present, columns), counts, max(len(probas.columns), 2))
    tied, n = tie.to_numpy(), len(present)
    return {"item_id": np.asarray(ids, dtype=object), "field": np.full(n, field, dtype=object),
            "label": np.asarray(labels.to_numpy(), dtype=object), "confidence": np.asarray(confidence, dtype=float),
            "method": np.full(n, method, dtype=object), "judgements": np.asarray(counts),
            "posterior": np.asarray(posterior, dtype=float), "confidence_source": np.full(n, "model", dtype=object),
            "note": np.where(tied, "tie", "").astype(object)}


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
