"""Fields of the same shape answered once (docs/speed.md)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from postprocess.answers.field_parts import Coded
from postprocess.answers.label_hygiene import TooManyClasses
from postprocess.answers.one_field import FieldAnswers, field_answers
from postprocess.answers.skill_prior import SkillPrior

# CPU seconds of a fit (a small field's, and each cell's) by method, measured on 2 shared cores
FIT_COST = {"mace": (0.125, 6e-5), "glad": (0.013, 1e-5)}
OTHER_FIT = (0.004, 1e-5)
FIT_BUDGET_S = 20.0  # the fits' estimated CPU past which the fields are refused before any is fitted


class _Names(NamedTuple):
    """One field's distinct item, worker and label codes, each in code order (the shape's numbers index them)."""
    items: np.ndarray
    workers: np.ndarray
    labels: np.ndarray


class _Template(NamedTuple):
    """A shape's answers with its field's names taken out: items and labels by their number in the shape."""
    answers: FieldAnswers
    items: np.ndarray  # each answer's item, as its number among the field's items
    labels: np.ndarray  # each answer's label, as its number among the field's labels


def shaped_answers(data: Coded, fields: list[np.ndarray], methods: list[str], seed: int,
                   prior: SkillPrior) -> list[FieldAnswers]:
    """The answers of each field by its method, one fit per shape: the same as each field alone."""
    templates: dict[bytes, _Template] = {}
    out = []
    shapes = [_shape(data, rows, method) for rows, method in zip(fields, methods, strict=True)]
    _refuse_long_fits(data, fields, methods, shapes)
    for rows, method, (shape, names) in zip(fields, methods, shapes, strict=True):
        template = templates.get(shape)
        if template is None:
            answers = field_answers(data, rows, method, seed, prior)
            template = templates[shape] = _Template(
                answers, np.searchsorted(names.items, data.item_ids.get_indexer(answers.answers["item_id"])),
                np.searchsorted(names.labels, data.label_ids.get_indexer(answers.answers["label"])))
            out.append(template.answers)
        else:
            out.append(_renamed(data, template, rows, names))
    return out


def _refuse_long_fits(data: Coded, fields: list[np.ndarray], methods: list[str],
                      shapes: list[tuple[bytes, _Names]]) -> None:
    """``TooManyClasses`` where the distinct shapes' fits would take past ``FIT_BUDGET_S``."""
    first = {shape: f for f, (shape, _) in reversed(list(enumerate(shapes)))}  # each shape's first field
    seconds, cells = 0.0, 0
    for f in first.values():
        names = shapes[f][1]
        cell = len(fields[f]) + len(names.items) * len(names.labels)
        fixed, each = FIT_COST.get(methods[f], OTHER_FIT)
        seconds, cells = seconds + fixed + each * cell, cells + cell
    if seconds > FIT_BUDGET_S:
        field = str(data.field_ids[data.fields[fields[0][0]]])
        raise TooManyClasses(
            f"method {methods[0]} fits {len(first):,} field(s) of their own shape (from {field!r}; labels plus items "
            f"x label values: {cells:,} cells), about {seconds:.0f} s of CPU, past the {FIT_BUDGET_S:g} s allowed; "
            "use --method mv or skill (every field at once), or fewer label values or fields")


def _shape(data: Coded, rows: np.ndarray, method: str) -> tuple[bytes, _Names]:
    """(the field's shape as bytes, its names)."""
    parts: list[np.ndarray] = []
    names = []
    for codes, ids in ((data.items[rows], None), (data.workers[rows], None), (data.labels[rows], data.label_ids)):
        distinct, number = np.unique(codes, return_inverse=True)
        texts = distinct.astype(str) if ids is None else np.asarray(ids.take(distinct)).astype(str)
        parts += [np.array([len(distinct)]), number.reshape(-1), np.argsort(texts, kind="stable")]
        names.append(distinct)
    return method.encode() + b"|" + np.concatenate(parts).astype(np.int64).tobytes(), _Names(*names)


def _renamed(data: Coded, template: _Template, rows: np.ndarray, names: _Names) -> FieldAnswers:
    """The template's answers for the field of ``rows`` (same shape), under that field's names."""
    answers = dict(template.answers.answers)
    answers["item_id"] = np.asarray(data.item_ids.take(names.items[template.items]), dtype=object)
    answers["label"] = np.asarray(data.label_ids.take(names.labels[template.labels]), dtype=object)
    answers["field"] = np.full(len(template.items), data.field_ids[data.fields[rows[0]]], dtype=object)
    return template.answers._replace(answers=answers, rows=rows)
