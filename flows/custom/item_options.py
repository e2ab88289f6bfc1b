"""Options a page takes from its items' columns (``value="{{ item.cand1 }}"``), so each item is read against its own."""

from __future__ import annotations

from typing import Any

from flows.core.pages.mturk_forms import INDEXED
from qc.form_constraints import Spec

Layout = list[tuple[str, str]]  # per option in page order: ("column", name) or ("value", the option)


def option_layouts(spec: Spec, items: list[dict[str, Any]], hidden: set[str]) -> dict[str, Layout]:
    """Per choice field with an option from the item: its layout; ``hidden`` columns never options (one item: two)."""
    by_field: dict[str, dict[int, list[str]]] = {}
    for f in spec["fields"]:
        m = INDEXED.match(f["name"])
        if m and f["type"] in ("one", "many") and int(m["index"]) < len(items):
            by_field.setdefault(m["base"], {})[int(m["index"])] = [str(o) for o in f.get("options") or []]
    out = {}
    for field, pages in by_field.items():
        widths = {len(options) for options in pages.values()}
        if len(widths) != 1:
            continue
        layout = [_source({i: o[k] for i, o in pages.items()}, items, hidden) for k in range(widths.pop())]
        if len({v for kind, v in layout if kind == "column"}) >= (1 if len(pages) > 1 else 2):
            out[field] = layout
    return out


def _source(shown: dict[int, str], items: list[dict[str, Any]], hidden: set[str]) -> tuple[str, str]:
    """The column every item of the page shows at this option, if one does (never the item's id)."""
    for column in items[min(shown)]:
        if column not in hidden | {"image_id", "item_id", "file_name", "url"} and all(
                value.strip() and str(items[i].get(column, "")).strip() == value.strip() for i, value in shown.items()):
            return "column", column
    return "value", shown[min(shown)]


def item_options(layout: Layout, item: dict[str, Any]) -> list[str]:
    """The options one item's field shows, in page order (an empty cell: no option)."""
    values = [str(item.get(v, "")).strip() if kind == "column" else v for kind, v in layout]
    return [v for v in dict.fromkeys(values) if v]
