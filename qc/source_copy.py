"""``source_copy``: a free-text answer mostly copied, in runs of :data:`RUN_WORDS`+ words, from its item's text or
the page's instructions (docs/custom_pages.md). Input columns: ``assignment_id, worker_id, image_id, caption``;
``params``: ``item_text``, ``page_text``, ``source_copy_share``/``_cover`` (0.8), ``source_copy_min_words`` (4)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from qc.asked_limits import copied_words, word_runs
from qc.caption_rules import caption_flags, clip
from qc.echo_rules import page_lines
from qc.flags import register
from qc.text_similarity import words

ITEM = "its item's text"
CUT_WORDS = 10  # a quote this long from the item's first word on is its text pasted, cut by the box


@register("source_copy", "caption")
def source_copy(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """An answer with ``source_copy_share`` of its words from one shown text or line, covering ``_cover`` of it."""
    share = float(params.get("source_copy_share", 0.8))
    cover = float(params.get("source_copy_cover", 0.8))
    least = int(params.get("source_copy_min_words", 4))
    fragments = bool(params.get("source_copy_fragments"))
    shown = params.get("item_text")
    shown = shown if isinstance(shown, Mapping) else {}
    page = [("the page's instructions", _source(line)) for line in page_lines(str(params.get("page_text") or ""))]
    every = set().union(*(runs for _, (runs, _) in page))
    items: dict[str, tuple[list[tuple[str, tuple[set[tuple[str, ...]], int]]], set[tuple[str, ...]]]] = {}
    hits = []
    canned = df["is_precanned"].astype(bool).tolist() if "is_precanned" in df.columns else [False] * len(df)
    for index, item, answer, is_canned in zip(df.index, df["image_id"].astype(str),
                                              df["caption"].fillna("").astype(str), canned, strict=True):
        said = words(answer.lower())
        if is_canned or len(said) < least:
            continue
        if item not in items:
            own = [(ITEM, _source(str(t))) for t in (shown.get(item) or ())]
            items[item] = (own + page, every.union(*(runs for _, (runs, _) in own)))
        sources, anywhere = items[item]
        if copied_words(said, anywhere)[0] < max(least, share * len(said)):
            continue  # copied from no source enough, so from no one of them (the usual answer: one pass)
        for where, (runs, size) in sources:
            copied, total, stretch = copied_words(said, runs)
            whole = copied >= cover * size or (where == ITEM and ((fragments and copied == total) or cut_short(
                said, shown.get(item) or ())))
            if copied >= least and copied >= share * total and whole:
                hits.append((index, round(copied / total, 3), share, f"{copied} of its {total} words copied from "
                             f"{where} ({size} words): \u201c{clip(stretch, 100)}\u201d"))
                break
    return caption_flags(df, "source_copy", hits)


def cut_short(said: list[str], texts: Iterable[str]) -> bool:
    """Whether an answer of :data:`CUT_WORDS`+ is an item text from its first word, cut mid-word where a length limit
    stops a paste: no one writes their own words that way."""
    if len(said) < CUT_WORDS:
        return False
    n = len(said)
    return any(shown[:n - 1] == said[:-1] and len(shown) >= n and shown[n - 1].startswith(said[-1])
               for shown in (words(str(t).lower()) for t in texts))


def _source(text: str) -> tuple[set[tuple[str, ...]], int]:
    """A source's runs of words and its word count."""
    said = words(text.lower())
    return word_runs([said]), len(said)
