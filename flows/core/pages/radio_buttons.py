"""A ``<crowd-radio-group>`` of separately named buttons read as ONE field."""

from __future__ import annotations

import os
import re
from typing import Any

BUTTONS = "data-buttons"  # the group field's attribute: JSON {button name: its value}, in page order
_INDEX = re.compile(r"_\d+$")


def group_field_name(attrs: dict[str, str], names: list[str], taken: set[str] | object = ()) -> str:
    """The field a group of differently named buttons answers as (see the module docstring)."""
    suffixes = {m[0] if (m := _INDEX.search(n)) else "" for n in names}
    suffix = suffixes.pop() if len(suffixes) == 1 else ""
    own = (attrs.get("name") or attrs.get("id") or "").strip()
    # names, not paths: their common start character by character (btn1, btn2 -> btn)
    shared = os.path.commonprefix([n.removesuffix(suffix) for n in names]).rstrip("_-0123456789")  # noqa: RUF071
    base = own.removesuffix(suffix) if own else (shared if len(shared) >= 2 else "choice")
    name = base + suffix
    while isinstance(taken, set) and name in taken:  # never answer into another field's column
        base += "_choice"
        name = base + suffix
    return name


def per_button(buttons: dict[str, str], chosen: str) -> dict[str, Any]:
    """The group's answer as MTurk posts it: ``{"<button name>": {"<value>": <chosen?>}, ...}``."""
    return {name: {value: bool(chosen) and value == chosen} for name, value in buttons.items()}


def button_groups(rules: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Group field name -> {button name: value}, from a page's rules (``form_spec``) or fields."""
    return {r["name"]: r["buttons"] for r in rules if r.get("buttons")}


def merge_buttons(flat: dict[str, str], groups: dict[str, dict[str, str]]) -> dict[str, str]:
    """Answer fields with each per-button group replaced by its one field, the chosen button's value."""
    out = dict(flat)
    for group, buttons in groups.items():
        present = [b for b in buttons if b in out and b != group]
        if not present:
            continue
        chosen = [buttons[b] for b in present if out[b] and out[b] == buttons[b]]
        for b in present:
            del out[b]
        out.setdefault(group, chosen[0] if len(chosen) == 1 else "|".join(chosen))
    return out
