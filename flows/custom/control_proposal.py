"""The controls file ``hitflow new --items`` proposes from a column of known answers."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from flows.core.inputs.csv_files import read_csv_table
from flows.core.pages.mturk_forms import form_fields

TRUTH_NAMES = ("answer", "truth", "gold", "label", "correct", "expected")  # on a page of one choice field


def proposed_controls(path: Path, template: str, items: Path) -> tuple[list[list[str]], str, Path] | None:
    """(controls file rows, note, ``path``) for the first choice field a column knows; if most do, a fifth (>= ten)."""
    choices = [f for f in form_fields(template) if f.kind in ("radio", "select") and f.options]
    table = read_csv_table(items, (), "the items file")
    key = "item_id" if "item_id" in table.columns else "image_id"
    for f in choices:
        base = re.sub(r"_\{\{\s*i\s*\}\}$", "", f.name)  # group_{{ i }} on a page of several items
        names = [base, *(f"{base}_{s}" for s in ("answer", "truth", "gold")),
                 *(f"{s}_{base}" for s in ("answer", "truth", "gold", "correct", "expected")),
                 *(TRUTH_NAMES * (len(choices) == 1))]
        for column in [c for c in names if c in table.columns]:
            known = [[r[key], base, r[column].strip()] for r in table.rows if r[column].strip()]
            if known and {a for *_, a in known} <= set(f.options):
                kept = _spread(known, len(table.rows))
                of = f" (of its {len(table.rows)})" if len(known) < len(table.rows) else ""
                said = (f"proposed control items: {len(kept)} of the {len(known)} row(s) of {items.name} that give "
                        f"{base}'s answer in column {column!r}{of}")
                return kept, _proposal_note(said, path, base, column), path
    return None


def _proposal_note(said: str, path: Path, field: str, column: str) -> str:
    """Where the proposal went (beside a controls file of the user's), and that it is optional."""
    mine = "" if path.stem.endswith("_controls") else \
        f" (config/{path.name.replace('_proposed', '')} is yours: left as it is)"
    return (f"{said}, written to config/{path.name}{mine}; optional, read only once [answers] controls names it: to "
            f"score workers on them and stop those who fail them, set controls = \"{path.name}\" (an item listed "
            "there is a control, kept out of the dataset: delete the rows whose answers you want collected); a "
            f"column kept for the rehearsal's figures alone ([campaign] truth = {{{field} = \"{column}\"}}) needs "
            "no controls")


def _spread(known: list[list[str]], items: int) -> list[list[str]]:
    """All of ``known`` when it is at most half the items; else a fifth of the items (at least ten), evenly spaced,
    each answer an equal share where it has the rows (each share evenly spaced where the even spread misses it)."""
    if len(known) * 2 <= items:
        return known
    left, groups, share = min(len(known), max(10, items // 5)), dict[str, list[int]](), Counter[str]()
    for index, row in enumerate(known):
        groups.setdefault(row[2], []).append(index)
    for n, (answer, rows) in enumerate(sorted(groups.items(), key=lambda kv: len(kv[1]))):  # the rarest first
        share[answer] = min(len(rows), left // (len(groups) - n))
        left -= share[answer]
    even = [known[k * len(known) // sum(share.values())] for k in range(sum(share.values()))]
    if Counter(row[2] for row in even) == share:
        return even
    kept = {rows[k * len(rows) // share[a]] for a, rows in groups.items() for k in range(share[a])}
    return [row for index, row in enumerate(known) if index in kept]
