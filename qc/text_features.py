"""Text features that several QC rules read, computed once per batch and shared.

At 200,000 captions each pass over the text costs a fraction of a second, and several rules
need the same one: the captions as a list, the folded text (whitespace runs as one space, lower
case: ``duplicate_text``, ``shared_template``), the per-caption counts of uppercase letters,
letters and words (``caps_lock``, ``min_words``), the consensus matches (``consensus``,
``consensus_rate``, ``near_template``, ``quality_talk``).

:func:`batch` (the runner holds it around one run of the rules) keeps each feature the first
rule computes for *that* frame; outside it, or for another frame, a feature is computed afresh,
so a rule called on its own never sees another batch's text. The scope is a context variable:
batches QC'd at once on several threads keep their own.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from qc.char_counts import TextCounts, text_counts
from qc.submit_rules import canned_form, is_canned

T = TypeVar("T")


@dataclass
class _Batch:
    frame: pd.DataFrame
    values: dict[Hashable, Any] = field(default_factory=dict)


_CURRENT: ContextVar[_Batch | None] = ContextVar("qc_text_features_batch", default=None)


@contextmanager
def batch(df: pd.DataFrame) -> Iterator[None]:
    """Share features among the rules run on ``df`` inside this block (rules must not change it)."""
    token = _CURRENT.set(_Batch(df))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def shared(df: pd.DataFrame, key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, once per batch for ``df`` (every time outside :func:`batch`)."""
    current = _CURRENT.get()
    if current is None or current.frame is not df:
        return compute()
    if key not in current.values:
        current.values[key] = compute()
    return current.values[key]  # type: ignore[no-any-return]


def captions(df: pd.DataFrame) -> list[str]:
    """The caption column as a list of strings (a missing caption as "")."""
    return shared(df, "captions", lambda: df["caption"].fillna("").astype(str).tolist())


def written(df: pd.DataFrame) -> np.ndarray:
    """True where a caption is not the canned text (the rows the text rules judge)."""
    return shared(df, "written", lambda: ~df["is_precanned"].to_numpy(dtype=bool))


def folded(df: pd.DataFrame) -> list[str]:
    """Each caption with whitespace runs as one space, trimmed, in lower case."""
    return shared(df, "folded", lambda: [" ".join(t.split()).lower() for t in captions(df)])


def counts(df: pd.DataFrame) -> TextCounts:
    """Per caption: uppercase letters, letters and submit-rule words (:mod:`qc.char_counts`)."""
    return shared(df, "counts", lambda: text_counts(captions(df)))


def canned_mask(texts: pd.Series, canned_text: str) -> np.ndarray:
    """:func:`qc.submit_rules.is_canned` for a whole column: exact, but the exact test runs only on
    the texts that could pass it (non-ASCII ones, and ASCII ones holding the canned text's longest
    word in any case, found by Arrow in C)."""
    values = texts.tolist()
    if not canned_text.strip():
        return np.zeros(len(values), dtype=bool)
    words = [w for w in canned_form(canned_text).split() if w.isascii() and w.isalpha()]
    column = pa.array([v if isinstance(v, str) else "" for v in values], pa.large_string())
    maybe = np.ones(len(values), dtype=bool)
    if words:
        holds = pc.match_substring(column, max(words, key=len), ignore_case=True)
        maybe = pc.or_(pc.invert(pc.string_is_ascii(column)), holds).to_numpy(zero_copy_only=False)
    out = np.zeros(len(values), dtype=bool)
    out[maybe] = [is_canned(values[k], canned_text) for k in np.flatnonzero(maybe)]
    return out


def squeezed_lower(texts: pd.Series) -> list[str]:
    """:func:`folded` for any column of text (computed here, not shared)."""
    return [" ".join(t.split()).lower() for t in texts.tolist()]


