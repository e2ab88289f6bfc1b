"""Every planned unit's page for a dry run, the same bytes ``page_html`` renders, at a small cost a page."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from markupsafe import escape

from flows.core.inputs.text_files import read_text
from flows.core.pages.mturk_forms import QuestionError, html_question, parse_question
from flows.core.pages.plain_columns import shows_columns_plainly
from flows.core.pages.templates import safe_url
from flows.core.run.run_context import Run
from flows.platforms.units import page_html

SPREAD = 16  # units rendered in full besides each shape's first and the largest: ~20 ms a plan
COLUMNS = ("item_id", "file_name", "url")  # what page_items shows of a row without a payload
_MARK = re.compile("\ue000(\\d+):(\\d+)\ue001")  # private-use characters: no page or value holds them
# One search for what a marker cannot stand for (telemetry's word, markers, what XML or bidi refuse).
_UNFIT = re.compile("telemetry|[\ue000\ue001\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff"
                    "\u202a-\u202e\u2066-\u2069]", re.I)


@dataclass(frozen=True)
class PlannedPage:
    key: Any  # the unit's key in the plan's groups: (batch, index)
    items: list[dict[str, Any]]
    html: str
    checked_xml: bool  # its Question's XML checked already (its shape's marked page was; only the size is left)


def _mark(k: int, column: int) -> str:
    return f"\ue000{k}:{column}\ue001"


def _modelled(value: object) -> bool:
    """A value the marker stands for: every filter keeps it, XML takes it, and no page reader could find it."""
    text = str(value)
    return not _UNFIT.search(text) and safe_url(text) == text


class _Shapes:
    """A marked page's pieces per unit shape (None once unfit): text, or (row, column)."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.pieces: dict[tuple[Any, ...], list[str | tuple[int, int]] | None] = {}
        self.columns_plain = _columns_plain(run)

    def fit(self, items: list[dict[str, Any]]) -> tuple[Any, ...] | None:
        """The unit's shape when its page can be joined, else None."""
        payloads = [_payload(row) for row in items]  # each row's read once here, once for its page
        if not _fits(items, payloads, self.columns_plain):
            return None
        shape = _shape(payloads)
        if shape not in self.pieces:
            self.pieces[shape] = self._pieces(items)
        return shape if self.pieces[shape] is not None else None

    def page(self, items: list[dict[str, Any]]) -> str:
        payloads = [_payload(row) for row in items]
        pieces = self.pieces[_shape(payloads)]
        assert pieces is not None
        values = [[row[c] for c in COLUMNS] + list(payload.values()) for row, payload in zip(items, payloads,
                                                                                             strict=True)]
        return "".join(p if isinstance(p, str) else str(escape(values[p[0]][p[1]])) for p in pieces)

    def _pieces(self, items: list[dict[str, Any]]) -> list[str | tuple[int, int]] | None:
        marked = [{**row, **{c: _mark(k, i) for i, c in enumerate(COLUMNS)}, "payload": json.dumps(
            {key: _mark(k, len(COLUMNS) + j) for j, key in enumerate(_payload(row))}) if row.get("payload") else None}
            for k, row in enumerate(items)]
        try:
            page = page_html(self.run, marked)
            parse_question(html_question(page))
        except QuestionError:
            return None  # the shape's own XML is at fault: the full check names it, unit by unit
        except Exception:  # a renderer that refuses a marker for a value: the full render says what it does
            return None
        split = _MARK.split(page)
        return [split[0], *(piece for j in range(1, len(split), 3)
                            for piece in ((int(split[j]), int(split[j + 1])), split[j + 2]))]


def _columns_plain(run: Run) -> bool:
    """A page of one's own whose template prints its columns only as plain values."""
    template = getattr(run.cfg, "template", None)
    if run.cfg.task != "custom" or template is None:
        return False
    try:
        return shows_columns_plainly(read_text(template, "the template"))
    except Exception:  # unreadable here: the full render reports it
        return False


def _payload(row: dict[str, Any]) -> dict[str, Any]:
    return json.loads(row["payload"]) if row.get("payload") else {}


def _shape(payloads: list[dict[str, Any]]) -> tuple[Any, ...]:
    return (len(payloads), *(tuple(payload) for payload in payloads))


def _fits(items: list[dict[str, Any]], payloads: list[dict[str, Any]], columns_plain: bool) -> bool:
    for row, payload in zip(items, payloads, strict=True):
        if not all(_modelled(row[c]) for c in COLUMNS):
            return False
        if row.get("payload") and not (columns_plain and all(
                isinstance(v, str) and _modelled(v) for v in payload.values())):
            return False
    return True


def planned_pages(run: Run, units: Iterable[tuple[Any, list[dict[str, Any]]]]) -> Iterator[PlannedPage]:
    """Each unit's page as ``page_html`` renders it, one at a time; a modelled page that differs forces full ones."""
    listed = list(units)
    shapes = _Shapes(run)
    kinds = [shapes.fit(items) for _, items in listed]  # each unit's shape, None: rendered in full
    # how long a joinable unit's values are (-1: rendered in full): the longest is one of the samples
    weights = [sum(len(str(row[c])) for row in items for c in COLUMNS) if kind is not None else -1
               for (_, items), kind in zip(listed, kinds, strict=True)]
    if not _agrees(run, shapes, [items for _, items in listed], weights, kinds):
        weights = [-1] * len(listed)
    for (key, items), weight in zip(listed, weights, strict=True):
        yield PlannedPage(key, items, shapes.page(items), True) if weight >= 0 else \
            PlannedPage(key, items, page_html(run, items), False)


def _agrees(run: Run, shapes: _Shapes, units: list[list[dict[str, Any]]], weights: list[int],
            kinds: list[tuple[Any, ...] | None]) -> bool:
    """Some units of each shape, rendered in full, are the same bytes as joined."""
    first: dict[tuple[Any, ...], int] = {}
    for at, kind in enumerate(kinds):
        if kind is not None:
            first.setdefault(kind, at)
    longest = max(range(len(weights)), key=weights.__getitem__, default=-1)
    spread = range(0, len(weights), max(1, len(weights) // SPREAD))
    samples = {*first.values(), *(at for at in [longest, *spread] if at >= 0 and weights[at] >= 0)}
    return all(page_html(run, units[at]) == shapes.page(units[at]) for at in samples)
