"""A value or a box saying there is none ("The letter gives no date"): a simulated worker gives one of the two."""

from __future__ import annotations

import re
from collections.abc import Callable

from flows.core.pages.mturk_forms import FormField, item_index

# a box's own words saying the item has no such value
NONE_WORDS = re.compile(r"\b(?:no|none|nothing|not (?:given|stated|known|mentioned|shown|listed|said)|n/?a|"
                        r"unknown|(?:does|do)(?: not|n'?t) (?:say|give|state|mention|show|list|have)|"
                        r"can'?t (?:tell|find|say))\b", re.I)
VALUE_KINDS = ("text", "textarea", "number", "date", "time", "datetime-local", "month", "week", "email", "url", "tel")


def none_pairs(fields: list[FormField]) -> list[tuple[str, str, str]]:
    """(value field, its "none" box, the box's value): a lone box whose label says there is none, next to an optional
    value of the same item in page order."""
    shown = [f for f in fields if f.kind != "hidden"]
    pairs = []
    for k, f in enumerate(shown):
        if f.kind != "checkbox" or len(f.options) > 1 or not NONE_WORDS.search(" ".join(f.labels.values())):
            continue
        beside = [g for g in (shown[k - 1] if k else None, shown[k + 1] if k + 1 < len(shown) else None)
                  if g is not None and g.kind in VALUE_KINDS and "required" not in g.attrs
                  and item_index(g.name) == item_index(f.name)]
        if beside:
            pairs.append((beside[0].name, f.name, (f.options or ["on"])[0] or "on"))
    return pairs


def settle(values: dict[str, str], pairs: list[tuple[str, str, str]], known: Callable[[str], str | None]) -> None:
    """Exactly one of each pair: a value given unticks the box, unless the box's tick is a known answer (then the
    value goes); neither given ticks the box (the worker found none)."""
    for value, box, ticked in pairs:
        given, boxed = bool((values.get(value) or "").strip()), bool(values.get(box))
        if given and boxed:
            if (known(box) or "").strip():
                values[value] = ""
            else:
                values[box] = ""
        elif not given and not boxed:
            values[box] = ticked
