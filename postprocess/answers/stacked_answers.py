"""Many fields' answers at once for the methods whose models stack."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from postprocess.answers.calibration import bounded, coherent
from postprocess.answers.field_parts import Coded
from postprocess.answers.one_field import TIE_DECIMALS, top_columns
from postprocess.answers.skill_fields import Stack, probabilities, vote_shares
from postprocess.answers.skill_prior import SkillPrior

STACKED = ("mv", "skill")


class StackedAnswers(NamedTuple):
    answers: dict[str, np.ndarray]  # the answers' columns (aggregation.ANSWER_COLUMNS), fields in no set order
    rows: np.ndarray  # the judgements' rows answered
    posterior: np.ndarray  # each row's: the method's probability of the row's own label
    agrees: np.ndarray  # each row's: 1.0 where its label is the answer, else 0.0
    temperatures: dict[int, float]  # by field code: the skill posterior's


class _Labels(NamedTuple):
    """Each field's own labels (text order): a judgement's label within its field and the fields' label texts."""
    local: np.ndarray  # each row's label, 0..seen-1 within its field
    seen: np.ndarray  # by field code: the labels seen
    first: np.ndarray  # by field code: the field's first label in ``texts``
    texts: np.ndarray  # the fields' labels, field after field


def stacked_answers(data: Coded, fields: np.ndarray, methods: np.ndarray, prior: SkillPrior) -> StackedAnswers:
    """The answers of the fields ``fields`` by ``methods`` (one of STACKED), the skill posterior under ``prior``."""
    rows = np.flatnonzero(np.isin(data.fields, fields))
    rows = rows[np.argsort(data.fields[rows], kind="stable")]  # field after field, each in file order
    labels = _field_labels(data, rows)
    width = np.maximum(labels.seen, 2)[data.fields[rows]]
    parts = [_stack_answers(data, rows[width == k], labels.local[width == k], labels, methods, prior, int(k))
             for k in np.unique(width)]
    if not parts:
        return StackedAnswers({}, rows, np.zeros(0), np.zeros(0), {})
    joined = [np.concatenate([getattr(p, c) for p in parts]) for c in ("rows", "posterior", "agrees")]
    return StackedAnswers({c: np.concatenate([p.answers[c] for p in parts]) for c in parts[0].answers},
                          joined[0], joined[1], joined[2], {f: t for p in parts for f, t in p.temperatures.items()})


def _field_labels(data: Coded, rows: np.ndarray) -> _Labels:
    n_ids = max(len(data.label_ids), 1)
    keys, local = np.unique(data.fields[rows] * n_ids + data.labels[rows], return_inverse=True)
    key_field = keys // n_ids
    first = np.searchsorted(key_field, np.arange(len(data.field_ids)))
    return _Labels(local - first[data.fields[rows]], np.bincount(key_field, minlength=len(data.field_ids)), first,
                   np.asarray(data.label_ids, dtype=object)[keys % n_ids])


def _stack(data: Coded, rows: np.ndarray, local: np.ndarray, k: int) -> tuple[Stack, np.ndarray, np.ndarray]:
    """(the stack of these rows' fields, item codes, field codes), in the skill posterior's own order."""
    field = data.fields[rows]
    n_items, n_workers = max(len(data.item_ids), 1), max(len(data.worker_ids), 1)
    item_rank = _text_rank(n_items)
    item_keys, item = np.unique(field * n_items + item_rank[data.items[rows]], return_inverse=True)
    codes, item_field = np.unique(item_keys // n_items, return_inverse=True)
    worker = np.unique(field * n_workers + _text_rank(n_workers)[data.workers[rows]], return_inverse=True)[1]
    return Stack(item, worker, local, item_field, k), np.argsort(item_rank)[item_keys % n_items], codes


def _text_rank(n: int) -> np.ndarray:
    """Each code 0..n-1's place among the codes written in decimal, in text order."""
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(np.arange(n).astype(str))] = np.arange(n)
    return rank


def _stack_answers(data: Coded, rows: np.ndarray, local: np.ndarray, labels: _Labels, methods: np.ndarray,
                   prior: SkillPrior, k: int) -> StackedAnswers:
    """The answers of the fields of ``rows`` (field after field), all with ``k`` labels as the model reads them."""
    stack, item_codes, field_codes = _stack(data, rows, local, k)
    skill, temperatures = probabilities(stack, prior)
    field = field_codes[stack.item_field]  # each stacked item's field code
    majority = (methods[field] == "mv")[:, None]
    probas = np.where(majority, vote_shares(stack), skill)
    valid = np.arange(k) < labels.seen[field][:, None]  # a field's unseen label: the model's, never an answer
    chosen, tie = top_columns(np.where(valid, probas.round(TIE_DECIMALS), -np.inf), skill)
    everything = np.arange(len(field))
    counts = np.bincount(stack.item, minlength=len(field))
    confidence = bounded(coherent(skill[everything, chosen], np.where(valid, skill, -np.inf).max(axis=1)), counts, k)
    n = len(field)
    answers = {"item_id": np.asarray(data.item_ids.take(item_codes), dtype=object),
               "field": np.asarray(data.field_ids.take(field), dtype=object),
               "label": labels.texts[labels.first[field] + chosen], "confidence": np.asarray(confidence, dtype=float),
               "method": np.asarray(methods[field], dtype=object), "judgements": counts,
               "posterior": probas[everything, chosen], "confidence_source": np.full(n, "model", dtype=object),
               "note": np.where(tie, "tie", "").astype(object)}
    return StackedAnswers(answers, rows, probas[stack.item, stack.label], (stack.label == chosen[stack.item]).astype(
        float), dict(zip(field_codes.tolist(), temperatures.tolist(), strict=True)))

