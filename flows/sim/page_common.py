"""Text a worker sees on most HITs of a type is the page's own (instructions, labels, prompts,
"Your browser does not support the audio element."), not the item's (issue 44).

A page of one item cannot tell its item's text from its instructions when both sit in the item's
block (a Ground Truth captioning page lists its instructions beside the image; "Instructions:
Pretend that you are ..." above the sentence to continue), and honest simulated workers then typed
the instructions as their answer. A person who has opened a few HITs of the type knows which text
changes from HIT to HIT: so does the simulator, from the first few HITs of the type (by HITId, so
the same ones whatever order the HITs were worked in).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from flows.core.pages.mturk_forms import FormField, read_page

REFERENCE_HITS = 6  # HITs of a type read for their common text; a chunk on half of the others is the page's


def needs_context(fields: list[FormField]) -> bool:
    """The page has controls a worker answers from what the item shows (not the simulator's hints)."""
    return any(f.kind != "hidden" and not f.attrs.get("data-sim-fill") for f in fields)


def page_chunks(html: str) -> frozenset[str]:
    return frozenset(t for _, t, _ in read_page(html).texts)


class CommonText:
    """Per HIT type, the text chunks of its first few HITs (kept in memory, rebuilt after a restart)."""

    def __init__(self) -> None:
        self._refs: dict[str, list[tuple[str, frozenset[str]]]] = {}

    def shared(self, hits: Iterable[Any], hit: Any) -> frozenset[str]:
        """Chunks of ``hit``'s page that at least half of the other reference HITs of its type show."""
        type_id, own = hit.fields.get("HITTypeId", ""), hit.fields["HITId"]
        refs = self._refs.get(type_id, [])
        if len(refs) < REFERENCE_HITS:  # a type still being posted: look again
            same = sorted((h for h in hits if h.fields.get("HITTypeId", "") == type_id
                           and h.question.kind == "HTMLQuestion"), key=lambda h: h.fields["HITId"])
            refs = self._refs[type_id] = [(h.fields["HITId"], page_chunks(h.question.html))
                                          for h in same[:REFERENCE_HITS]]
        others = [chunks for hit_id, chunks in refs if hit_id != own][: REFERENCE_HITS - 1]
        if not others:
            return frozenset()
        counts = Counter(t for chunks in others for t in chunks)
        need = max(1, (len(others) + 1) // 2)
        return frozenset(t for t, n in counts.items() if n >= need)
