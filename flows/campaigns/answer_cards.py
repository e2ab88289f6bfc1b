"""A review card's rows for any kind whose answers are form fields."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

import pandas as pd

from flows.answers.control_items import stored_controls
from flows.campaigns.review_data import worker_work
from flows.captions.caption_telemetry import TELEMETRY_FIELD
from flows.core.run.run_context import Run
from flows.core.task_kinds import AnswerField, CardRow
from qc.telemetry_frame import telemetry_columns
from qc.telemetry_rules import telemetry_in_words

UNSHOWN = {"item_id", "image_id", "sim_truth"}  # an item's columns no page shows as its content
LONGEST = 2000  # characters of a value a card shows; the ledger and the dataset keep it whole
# an http(s) URL's origin on a plain host the CSP can name (an item's value is untrusted), and an image URL
ORIGIN = re.compile(r"(https?://[a-z0-9.-]+(?::[0-9]{1,5})?)(?:[/?#]|$)", re.I)
PICTURE = re.compile(r"[^?#]*\.(?:jpe?g|png|gif|webp|avif|bmp|svg)(?:[?#]|$)", re.I)


def answer_cards(run: Run, fields: list[AnswerField], cards: list[tuple[int, str, str]], most: int,
                 hidden: Collection[str] = (), pictured: Collection[str] = ()) -> list[tuple[list[CardRow], int]]:
    """Per card: its rows (``most`` at most, own first), the worker's assignments; ``hidden``, ``pictured``: columns."""
    chosen, done = worker_work(run.store, run.cfg.name, cards, most)
    ids = sorted({a for mine in chosen for a in mine})
    rows = _rows(run, ids, fields, (set(hidden) | UNSHOWN, set(pictured))) if ids else {}
    return [([r for a in mine for r in rows.get(a, [])][:most], n) for mine, n in zip(chosen, done, strict=True)]


def _rows(run: Run, ids: list[str], fields: list[AnswerField], columns: Columns) -> dict[str, list[CardRow]]:
    some = f"({', '.join('?' * len(ids))})"
    answers = run.store.rows(f"SELECT assignment_id, item_id, field, value FROM answers WHERE campaign = ? AND "
                             f"assignment_id IN {some} ORDER BY rowid", [run.cfg.name, *ids])
    pages = _pages(run, ids)
    seen = sorted({i for page in pages.values() for i in page} | {a["item_id"] for a in answers if a["item_id"]})
    items = {r["item_id"]: r for r in run.store.rows(
        f"SELECT item_id, url, payload FROM items WHERE campaign = ? AND item_id IN ({', '.join('?' * len(seen))})",
        [run.cfg.name, *seen])} if seen else {}
    known = _known_answers(run)
    kinds = {f.name: f.kind for f in fields}
    by_assignment: dict[str, dict[str, dict[str, str]]] = {}
    records: dict[str, str] = {}
    for a in answers:
        if a["field"] == TELEMETRY_FIELD:
            records[a["assignment_id"]] = a["value"] or ""
        elif a["field"] != "image_id" and (a["item_id"] or a["field"] in kinds):  # not the page's own timing
            by_assignment.setdefault(a["assignment_id"], {}).setdefault(a["item_id"], {})[a["field"]] = a["value"] or ""
    words = _telemetry_words(records, pages, by_assignment, kinds)
    out: dict[str, list[CardRow]] = {}
    for assignment in ids:
        given = by_assignment.get(assignment, {})
        order = [*pages.get(assignment, []), *(i for i in given if i not in pages.get(assignment, []))]
        out[assignment] = [_row(assignment, item, items.get(item), given.get(item, {}), kinds, columns,
                                known.get(item, ()), words) for item in order]
    return out


def _row(assignment: str, item: str, stored: dict[str, Any] | None, given: dict[str, str], kinds: dict[str, str],
         columns: Columns, known: tuple[tuple[str, str], ...], words: dict[tuple[str, str, str], str]) -> CardRow:
    payload = json.loads((stored or {}).get("payload") or "{}")
    url = (stored or {}).get("url") or ""
    values = [(k, str(v)) for k, v in payload.items() if k not in columns[0] and isinstance(v, str | int | float)]
    pictured = {k for k, v in values if web_origin(v) and (k in columns[1] or PICTURE.match(v))}
    images = tuple((k, v) for k, v in values if k in pictured or v == url != "")
    images = images if not url or any(v == url for _, v in images) else (("", url), *images)
    shown = tuple((k, _short(v)) for k, v in values if (k, v) not in images)
    named = [f for f in kinds if f in given] + sorted(f for f in given if f not in kinds)
    answers = tuple((f, kind, _shown(given[f], kind), words.get((assignment, item, f), ""))
                    for f in named for kind in [kinds.get(f, "text")])
    # as postprocess/answers/control_items.py scores a control: the stripped answer against the known one
    wrong = tuple(f for f, answer in known if given.get(f, "").strip() and given[f].strip() != answer.strip())
    return CardRow(assignment_id=assignment, item_id=item, images=images, shown=shown,
                   answers=answers, known=known, wrong=wrong)


def web_origin(url: str) -> str:
    return m[1] if (m := ORIGIN.match(url)) else ""


def _shown(value: str, kind: str) -> str:
    """An answer as a person reads it: marks (spans, boxes, points: a JSON list) with their count first."""
    if kind == "marks":
        try:
            marks = json.loads(value)
        except ValueError:
            return _short(value)
        if isinstance(marks, list):
            return _short(f"{len(marks)} mark(s): {value}")
    return _short(value)


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= LONGEST else text[:LONGEST] + f"... ({len(text)} characters)"


def _pages(run: Run, ids: list[str]) -> dict[str, list[str]]:
    """Each assignment's items in the order its page showed them (an MTurk HIT's, or a task-server session's)."""
    some = f"({', '.join('?' * len(ids))})"
    pages = {r["assignment_id"]: json.loads(r["item_ids"] or "[]") for r in run.store.rows(
        f"SELECT a.assignment_id, h.item_ids FROM assignments a JOIN hits h ON h.campaign = a.campaign AND "
        f"h.hit_id = a.hit_id WHERE a.campaign = ? AND a.assignment_id IN {some}", [run.cfg.name, *ids])}
    pages |= {r["session_id"]: json.loads(r["item_ids"] or "[]") for r in run.store.rows(
        f"SELECT session_id, item_ids FROM task_sessions WHERE campaign = ? AND session_id IN {some}",
        [run.cfg.name, *ids])}
    return pages


def _known_answers(run: Run) -> dict[str, tuple[tuple[str, str], ...]]:
    """Control item -> its (field, known answer) pairs, as the plan recorded them."""
    stored = stored_controls(run.store, run.cfg.name)
    if stored is None:
        return {}
    known: dict[str, list[tuple[str, str]]] = {}
    for item, field, answer in stored[0].astype(str).itertuples(index=False):
        known.setdefault(item, []).append((field, answer))
    return {k: tuple(v) for k, v in known.items()}


Given = dict[str, dict[str, dict[str, str]]]  # assignment -> item -> field -> value
Columns = tuple[set[str], set[str]]  # an item's columns the page hides, and those it pictures


def _telemetry_words(records: dict[str, str], pages: dict[str, list[str]], given: Given,
                     kinds: dict[str, str]) -> dict[tuple[str, str, str], str]:
    """(assignment, item, field) -> how the free text was entered, in words, for every text answer."""
    rows = []
    for assignment, record in records.items():
        order = pages.get(assignment, [])
        for item, values in given.get(assignment, {}).items():
            for name, value in values.items():
                if kinds.get(name, "text") != "text" or not value.strip():
                    continue  # no text, nothing was typed: the card says "no answer" alone
                on_page = f"{name}_{order.index(item)}" if item in order else name
                rows.append({"key": (assignment, item, name), "telemetry": record, "telemetry_field": on_page,
                             "caption": value})
    if not rows:
        return {}
    flat = telemetry_columns(pd.DataFrame(rows))
    return {r["key"]: telemetry_in_words(r) for r in flat.to_dict("records")}
