"""Text features that several QC rules read, computed once per batch and shared.

``duplicate_text`` (one worker, one text, many images) and ``shared_template`` (one text on many
images, whoever wrote it) both compare captions with runs of whitespace folded and case
ignored; at 200,000 captions that pass is a second of Python, so it runs once for the batch's
non-canned captions and both rules read it. The cache holds the last batch only;
:func:`qc.consensus_rules.forget_batch` clears it when a run ends.
"""

from __future__ import annotations

from functools import lru_cache

import pandas as pd


@lru_cache(maxsize=1)
def _squeezed_lower(texts: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(" ".join(t.split()).lower() for t in texts)


def squeezed_lower(texts: pd.Series) -> list[str]:
    """Each text with whitespace runs as one space, trimmed, in lower case (shared per batch)."""
    return list(_squeezed_lower(tuple(texts.tolist())))


def forget() -> None:
    _squeezed_lower.cache_clear()
