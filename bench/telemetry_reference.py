"""A behaviour reference for ``make bench-authenticity`` from the raw telemetry record alone.

The simulator's labels (``caption_origin``) come from the same truth the simulator writes the
telemetry from, so scoring rules against them is right by construction. This reference reads only
the record the page wrote (the JSON of docs/telemetry.md), with its own code (nothing of
``qc.telemetry_frame``) and its own bound, and says per caption:

- ``outside``: at least half the final text arrived as external pastes (text not copied on the
  page) that came back faster than a fast typist could have typed them elsewhere, or by drop;
- ``own``: the rest (typed, copied on the page, or pasted back from an absence long enough to type
  it: a person's own drafted notes);
- ``none``: no record, or an empty field.

"Faster than a fast typist": the worker's latest absence before the paste (a tab hide to the next
show, or a field blur to the next focus) was shorter than the pasted length at
:data:`REFERENCE_CPS` characters a second: 120 words a minute, 3.4 SD above the mean of Dhakal et al.
(CHI 2018), fixed here independently of the rules' thresholds (8 a second, or the worker's own
speed). Input: the record's JSON text and the caption's field name.
"""

from __future__ import annotations

import json
from typing import Any

REFERENCE_CPS = 10.0
OUTSIDE_SHARE = 0.5


def _absences(record: dict[str, Any], field: dict[str, Any]) -> list[tuple[int, int]]:
    """(left, back) per absence; ``back`` is when the page or field came back (or ``left`` if never)."""
    spans = []
    for events, gone, here in ((record.get("vis") or [], "h", "v"), (field.get("focus") or [], "b", "f")):
        ordered = sorted((int(t), k) for t, k in events)
        for i, (t, k) in enumerate(ordered):
            if k == gone:
                spans.append((t, next((u for u, w in ordered[i + 1:] if w == here), t)))
    return spans


def outside_chars(record: dict[str, Any], field: dict[str, Any]) -> int:
    """Characters that arrived from outside faster than typing them elsewhere allows, plus drops."""
    spans = _absences(record, field)
    total = int(field.get("drop") or 0)
    for when, length, kind in field.get("paste") or []:
        if kind != "x":
            continue
        ended = [(back, back - left) for left, back in spans if back <= when]
        away_ms = max(ended)[1] if ended else 0
        if away_ms < 1000 * int(length) / REFERENCE_CPS:
            total += int(length)
    return total


def reference(record_text: str, field_name: str) -> str:
    """``own`` / ``outside`` / ``none`` for one caption's field of one record."""
    try:
        record = json.loads(record_text) if record_text else {}
    except ValueError:
        return "none"
    fields = record.get("f") or {}
    field = fields.get(field_name) or (next(iter(fields.values())) if len(fields) == 1 else None)
    if not isinstance(field, dict) or not field.get("len"):
        return "none"
    return "outside" if outside_chars(record, field) >= OUTSIDE_SHARE * int(field["len"]) else "own"
