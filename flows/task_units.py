"""Which unit of items a participant gets: balanced, and never an item twice."""

from __future__ import annotations


def choose_unit(units: list[tuple[int, list[str], int]], seen: set[str],
                target: int) -> tuple[int, list[str]] | None:
    """``units``: (unit, item ids, sessions holding it). The least-held unit below ``target``
    with none of the participant's ``seen`` items; if every unit is full, the least-held one
    still new to them (so a returned or timed-out session never strands a participant); None
    when every unit holds an item they already did."""
    fresh = [u for u in units if not seen.intersection(u[1])]
    if not fresh:
        return None
    open_units = [u for u in fresh if u[2] < target] or fresh
    unit = min(open_units, key=lambda u: (u[2], u[0]))
    return unit[0], unit[1]
