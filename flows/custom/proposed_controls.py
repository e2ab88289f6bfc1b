"""``hitflow new --from PAGE --items CSV`` on a page with a choice field whose known answer a column of the items
file holds: its rows with an answer proposed as control items (``NAME_controls.csv``: item_id, field, answer)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from flows.core.inputs.csv_files import read_csv_table
from flows.core.pages.mturk_forms import form_fields

TRUTH_NAMES = ("answer", "truth", "gold", "label", "correct", "expected")  # on a page of one choice field
PER_ITEM = re.compile(r"_\{\{\s*i\s*\}\}$")  # a field's name on a page of several items: group_{{ i }}


def proposed_controls(name: str, template: str, items: Path) -> tuple[str, str] | None:
    """(the controls file's text, a note saying so) for the first choice field whose known answer a column
    holds (its own name, ``<field>_answer``/``_truth``/``_gold``, or on a page of one choice field a column
    named as in TRUTH_NAMES), every answer given one of its options; None when no column does."""
    choices = [f for f in form_fields(template) if f.kind in ("radio", "select") and f.options]
    table = read_csv_table(items, (), "the items file")
    key = "item_id" if "item_id" in table.columns else "image_id"
    for f in choices:
        base = PER_ITEM.sub("", f.name)
        names = [base, *(f"{base}_{s}" for s in ("answer", "truth", "gold")), *(TRUTH_NAMES * (len(choices) == 1))]
        for column in [c for c in names if c in table.columns]:
            known = [(r[key], r[column].strip()) for r in table.rows if r[column].strip()]
            if known and {a for _, a in known} <= set(f.options):
                out = io.StringIO()
                csv.writer(out, lineterminator="\n").writerows([("item_id", "field", "answer"),
                                                                 *((i, base, a) for i, a in known)])
                return out.getvalue(), (
                    f"proposed control items: {len(known)} row(s) of {items.name} give {base}'s answer in column "
                    f"{column!r}, written to config/{name}_controls.csv; to score workers on them and stop those who "
                    f"fail them, set [answers] controls = \"{name}_controls.csv\" (an item listed there is a "
                    "control: kept out of the dataset; delete the rows whose answers you want collected)")
    return None
