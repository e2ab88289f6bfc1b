"""Which unit of items a participant gets: balanced, and never an item twice."""

from __future__ import annotations

import re

from flows.config import CampaignConfig

_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


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


def exact_fields(fields: dict[str, str], ids: list[str], page_names: set[str]) -> bool:
    """A submission carries only names its page has, and ``image_id_i`` is the unit's i-th item
    for every i: no answers for items the person was never shown."""
    return set(fields) <= page_names and all(fields.get(f"image_id_{i}") == item for i, item in enumerate(ids))


def xml_safe(fields: dict[str, str]) -> bool:
    """Whether every value can be stored as XML 1.0 text (no C0 controls but tab and newlines)."""
    return not any(_XML_FORBIDDEN.search(v) for v in fields.values())


def hold_seconds(cfg: CampaignConfig) -> float:
    """How long an unsubmitted session keeps its unit: the longest a participant may take."""
    return float(max(cfg.assignment_duration_s, 60 * cfg.prolific.maximum_minutes))
