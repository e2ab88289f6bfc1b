"""Every planned unit's page for a dry run, without a full render of each: the same bytes ``page_html``
renders, at a small cost a page.

A built-in page shows an item's values only as escaped text, so the page of five items is the page of
five *marked* items (each value a private-use marker) with each marker replaced by its value escaped.
That marked page is rendered once for each shape of unit (how many items, which columns) through the
task kind's renderer, attention checks and text telemetry included, and checked as MTurk checks a
Question (well-formed XML) once; each unit's page is then joined from its pieces and size-checked.

It is checked, never assumed: an item with a value the marker cannot stand for (one a filter changes,
a character XML refuses, a word the telemetry step reads) is rendered in full, as are units whose rows
carry a payload (an evaluation study's tasks, a page of one's own's columns). The first unit of each
shape, the largest one and a few spread over the plan are also rendered in full and compared byte for
byte; a difference (a template that branches on a value) sends every unit through the full render. A
real run always renders in full (``flows/platforms/units.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from markupsafe import escape

from flows.core.pages.mturk_forms import _NOT_XML, QuestionError, html_question, parse_question
from flows.core.pages.templates import bidi_shown, safe_url
from flows.core.run.run_context import Run
from flows.platforms.units import page_html

SPREAD = 16  # units rendered in full besides each shape's first and the largest: ~20 ms a plan
COLUMNS = ("item_id", "file_name", "url")  # what page_items shows of a row without a payload
_MARK = re.compile("\ue000(\\d+):(\\d)\ue001")  # private-use characters: no page or value holds them
_READ_BY_PAGE_STEPS = re.compile("telemetry|\ue000|\ue001", re.I)  # words the telemetry step searches a page for


@dataclass(frozen=True)
class PlannedPage:
    key: Any  # the unit's key in the plan's groups: (batch, index)
    items: list[dict[str, Any]]
    html: str
    checked_xml: bool  # its Question's XML checked already (its shape's marked page was; only the size is left)


def _mark(k: int, column: int) -> str:
    return f"\ue000{k}:{column}\ue001"


def _modelled(value: object) -> bool:
    """A value the marker stands for: every filter of ours leaves it as it is, XML takes it, and no step
    that reads the rendered page (telemetry's search for its field) could find it there."""
    text = str(value)
    return safe_url(text) == text and bidi_shown(text) == text and not _NOT_XML.search(text) \
        and not _READ_BY_PAGE_STEPS.search(text)


class _Shapes:
    """A marked page's pieces per shape of unit (its item count); None once a shape proved unfit."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.pieces: dict[int, list[str | tuple[int, int]] | None] = {}

    def page(self, items: list[dict[str, Any]]) -> str | None:
        n = len(items)
        if n not in self.pieces:
            self.pieces[n] = self._pieces(items)
        pieces = self.pieces[n]
        if pieces is None:
            return None
        return "".join(p if isinstance(p, str) else str(escape(items[p[0]][COLUMNS[p[1]]])) for p in pieces)

    def _pieces(self, items: list[dict[str, Any]]) -> list[str | tuple[int, int]] | None:
        marked = [{**row, **{c: _mark(k, i) for i, c in enumerate(COLUMNS)}} for k, row in enumerate(items)]
        page = page_html(self.run, marked)
        try:
            parse_question(html_question(page))
        except QuestionError:
            return None  # the shape's own XML is at fault: the full check names it, unit by unit
        split = _MARK.split(page)
        return [split[0], *(piece for j in range(1, len(split), 3)
                            for piece in ((int(split[j]), int(split[j + 1])), split[j + 2]))]


def _fits(items: list[dict[str, Any]]) -> bool:
    return all(not row.get("payload") and all(_modelled(row[c]) for c in COLUMNS) for row in items)


def planned_pages(run: Run, units: Iterable[tuple[Any, list[dict[str, Any]]]]) -> Iterator[PlannedPage]:
    """Each unit's page as ``page_html`` renders it, in the order given, one at a time (60,000 pages of
    30 KB are not held). A modelled page found different from its full render makes every page a full one."""
    listed = list(units)
    shapes = _Shapes(run)
    sizes = [len(html.encode()) if _fits(items) and (html := shapes.page(items)) is not None else -1
             for _, items in listed]
    if not _agrees(run, shapes, [items for _, items in listed], sizes):
        sizes = [-1] * len(listed)
    for (key, items), size in zip(listed, sizes, strict=True):
        html = shapes.page(items) if size >= 0 else None
        yield PlannedPage(key, items, html, True) if html is not None else \
            PlannedPage(key, items, page_html(run, items), False)


def _agrees(run: Run, shapes: _Shapes, units: list[list[dict[str, Any]]], sizes: list[int]) -> bool:
    """The first modelled unit of each shape, the largest, and ``SPREAD`` units spread over the plan, rendered
    in full, are the same bytes."""
    first: dict[int, int] = {}
    for at, size in enumerate(sizes):
        if size >= 0:
            first.setdefault(len(units[at]), at)
    largest = max(range(len(sizes)), key=sizes.__getitem__, default=-1)
    spread = range(0, len(sizes), max(1, len(sizes) // SPREAD))
    samples = {*first.values(), *(at for at in [largest, *spread] if at >= 0 and sizes[at] >= 0)}
    return all(page_html(run, units[at]) == shapes.page(units[at]) for at in samples)
