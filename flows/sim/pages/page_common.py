"""A page's own text (instructions, labels) learned from its first HITs, so workers never type it as their answer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from flows.core.pages.mturk_forms import INDEXED, FormField, read_page
from flows.sim.people.page_context import ID_FIELDS, templated

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
        return common_among(refs, own, page_chunks(hit.question.html))


def common_among(refs: list[tuple[str, frozenset[str]]], own: str,
                 own_chunks: frozenset[str] | None = None) -> frozenset[str]:
    """Chunks at least half the reference pages other than ``own`` show; a page with ``own``'s text under other ids
    is no reference unless all are. ``own_chunks``: ``own``'s text, if not in ``refs``."""
    mine = next((chunks for key, chunks in refs if key == own), own_chunks)
    others = [chunks for key, chunks in refs if key != own]
    others = ([c for c in others if c != mine] or others)[: REFERENCE_HITS - 1]
    if not others:
        return frozenset()
    counts = Counter(t for chunks in others for t in chunks)
    need = max(1, (len(others) + 1) // 2)
    exact = frozenset(t for t, n in counts.items() if n >= need)
    return exact | templated((mine or frozenset()) - exact, others)


def page_key(html: str) -> str:
    """Which page this is, whoever opened it: its items' ids (``image_id_<i>``/``item_id_<i>``), else its text."""
    page = read_page(html)
    ids = sorted((int(m["index"]), f.value) for name, f in page.fields.items()
                 if (m := INDEXED.match(name)) and m["base"] in ID_FIELDS and f.value)
    return "|".join(v for _, v in ids) or "\x1f".join(t for _, t, _ in page.texts)


class OpenedPages:
    """Per task address (link without query), the text chunks of the first ``REFERENCE_HITS`` pages opened there."""

    def __init__(self) -> None:
        self._refs: dict[str, dict[str, frozenset[str]]] = {}

    def opened(self, url: str, html: str) -> tuple[dict[str, frozenset[str]], str]:
        """The references at ``url`` (this page among them if it sorts among the first) and its key."""
        refs = self._refs.setdefault(urlsplit(url)._replace(query="", fragment="").geturl(), {})
        own = page_key(html)
        if own not in refs:
            refs[own] = page_chunks(html)
            if len(refs) > REFERENCE_HITS:  # a later page that sorts first takes the last one's place
                del refs[max(refs)]
        return refs, own

    def shared(self, url: str, html: str) -> frozenset[str]:
        """Chunks of this page that at least half of the other reference pages at ``url`` show."""
        refs, own = self.opened(url, html)
        return common_among(sorted(refs.items()), own)
