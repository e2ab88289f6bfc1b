"""A page's script that refused an honest full answer, asked what it still tells."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from flows.sim.pages.retyping import TEXT_KINDS, box_named
from flows.sim.people.refusal_asks import as_list, listed

Run = Callable[[list[Any]], list[Any]]  # tries [values, press] -> per try [sent, alerts, texts the page shows]


def as_asked(run: Run, html: str, groups: list[dict[str, Any]], honest: dict[str, str], base: list[Any]
             ) -> tuple[dict[str, str], list[Any], dict[str, str]]:
    """``honest`` with the text boxes the refusal is about retyped as the list it asks, the presses' results and
    box -> the message asking it; ``honest``, ``base`` and none where no message asks a list or the list is refused
    too."""
    said = [s for _sent, alerts, shown in base for s in [*alerts, *shown]]
    asks = next(((m, got) for m in said if (got := listed(m))), None)
    boxes = [g["name"] for g in groups if g["kind"] in TEXT_KINDS and honest.get(g["name"])]
    if not asks or not boxes:
        return honest, base, {}
    named = box_named(asks[0], html, honest)
    # every item's box of the question named (each item's is refused alike); where none is named, every box
    kin = [b for b in boxes if named and b.rsplit("_", 1)[0] == named.rsplit("_", 1)[0]] or boxes
    retyped = {**honest, **{b: as_list(honest[b], *asks[1]) for b in kin}}
    again = run([[retyped, p] for p in range(len(base))])
    if not any(sent for sent, *_rest in again):
        return honest, base, {}
    return retyped, again, dict.fromkeys(kin, asks[0])


def blank_refusals(run: Run, groups: list[dict[str, Any]], honest: dict[str, str], base: list[Any]
                   ) -> dict[str, str]:
    """Field -> what the page said, for each field that, left blank alone (the rest as ``honest``, still refused),
    brings a message the full answer did not: the page requires it (a field it refuses alike blank or not: unknown)."""
    seen = Counter(s for _sent, alerts, shown in base for s in [*alerts, *shown])
    tries = [[{**honest, g["name"]: ""}, p] for g in groups if honest.get(g["name"]) for p in range(len(base))]
    names = [g["name"] for g in groups if honest.get(g["name"])]
    done = run(tries) if tries else []
    out = {}
    for k, name in enumerate(names):
        now = Counter(s for _sent, alerts, shown in done[k * len(base):(k + 1) * len(base)] for s in [*alerts, *shown])
        new = [s for s in now if now[s] > seen[s]]
        if new and not any(sent for sent, *_rest in done[k * len(base):(k + 1) * len(base)]):
            out[name] = new[0]
    return out
