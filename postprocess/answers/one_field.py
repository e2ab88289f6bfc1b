"""One field's answers from a model fitted to that field alone."""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from postprocess.answers import worker_coin
from postprocess.answers.calibration import bounded, coherent
from postprocess.answers.crowdkit_models import model_class
from postprocess.answers.field_parts import Coded
from postprocess.answers.skill_posterior import label_probabilities
from postprocess.answers.skill_prior import SkillPrior

TIE_DECIMALS = 12  # probabilities equal to this many places count as a tie


class FieldAnswers(NamedTuple):
    answers: dict[str, np.ndarray]  # the answers' columns (aggregation.ANSWER_COLUMNS)
    rows: np.ndarray  # the judgements' rows answered
    posterior: np.ndarray  # each row's: the method's probability of the row's own label
    agrees: np.ndarray  # each row's: 1.0 where its label is the answer, else 0.0
    temperature: float  # the skill posterior's (postprocess.answers.tempering)


def field_answers(data: Coded, rows: np.ndarray, chosen: str, seed: int, prior: SkillPrior) -> FieldAnswers:
    """The answers of the field whose judgements are ``rows`` (in file order) by method ``chosen``."""
    items, workers = data.items[rows], data.workers[rows]
    field_labels = pd.Series(data.label_ids.take(data.labels[rows]))  # the labels column's own dtype
    label_codes, label_texts = pd.factorize(field_labels)
    probas = _probabilities(items, workers, field_labels, set(label_texts), chosen, seed, prior)
    skill = probas if chosen == "skill" else _skill_probabilities(items, workers, field_labels, prior).reindex(
        columns=probas.columns, fill_value=0.0)
    labels, tie = _pick(probas, skill)  # indexed by item code, in text order
    present = labels.index.to_numpy()
    field = data.field_ids[data.fields[rows[0]]]
    answers = _answer_rows(probas, worker_coin.confidence_model(probas, skill, chosen), labels, tie,
                           data.item_ids.take(present), field, chosen,
                           np.bincount(items, minlength=len(data.item_ids))[present])
    answer = label_texts.get_indexer(labels.to_numpy())[labels.index.get_indexer(items)]
    return FieldAnswers(answers, rows, _posterior(probas, items, probas.columns.get_indexer(label_texts)[label_codes]),
                        (label_codes == answer).astype(float), float(skill.attrs.get("temperature", 1.0)))


def _answer_rows(probas: pd.DataFrame, skill: pd.DataFrame, labels: pd.Series, tie: pd.Series, ids: np.ndarray,
                 field: str, method: str, counts: np.ndarray) -> dict[str, np.ndarray]:
    """One field's answers (``labels``, ``tie`` by item code): the posterior and the module's confidence."""
    present = labels.index.to_numpy()
    columns = probas.columns.get_indexer(labels.to_numpy())
    posterior = _posterior(probas, present, columns)
    top = skill.to_numpy(dtype=float).max(axis=1)[skill.index.get_indexer(present)]  # each item's largest
    confidence = bounded(coherent(_posterior(skill, present, columns), top), counts, max(len(probas.columns), 2))
    tied, n = tie.to_numpy(), len(present)
    return {"item_id": np.asarray(ids, dtype=object), "field": np.full(n, field, dtype=object),
            "label": np.asarray(labels.to_numpy(), dtype=object), "confidence": np.asarray(confidence, dtype=float),
            "method": np.full(n, method, dtype=object), "judgements": np.asarray(counts),
            "posterior": np.asarray(posterior, dtype=float), "confidence_source": np.full(n, "model", dtype=object),
            "note": np.where(tied, "tie", "").astype(object)}


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
    """Majority vote's probabilities as crowd-kit's ``MajorityVote`` gives them, without its frames."""
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
    """The most probable label per item and whether the top labels tied (a tie to ``skill``'s choice)."""
    order = sorted(probas.columns)
    in_order = list(probas.columns) == order  # then the frames are read as they are, not reindexed
    values = (probas if in_order else probas[order]).to_numpy(dtype=float).round(TIE_DECIMALS)
    aligned = in_order and list(skill.columns) == order and skill.index.equals(probas.index)
    columns, tied = top_columns(values, (skill if aligned else skill.reindex(index=probas.index, columns=order))
                                .to_numpy(dtype=float))
    chosen = pd.Series(np.asarray(order, dtype=object)[columns], index=probas.index)
    tie = pd.Series(tied, index=probas.index)
    if probas.index.is_monotonic_increasing:
        return chosen, tie
    return chosen.sort_index(), tie.sort_index()


def top_columns(values: np.ndarray, skill: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each row's highest column of ``values``, rounded already; whether its top tied), a tie to ``skill``'s."""
    top = values == values.max(axis=1, keepdims=True)
    return np.where(top, skill.round(TIE_DECIMALS), -1.0).argmax(axis=1), top.sum(axis=1) > 1
