"""Text features several QC rules read, computed once per batch: :func:`batch` keeps each for *that* frame (a
context variable, per thread); outside it, or for another frame, a feature is computed afresh."""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from qc.char_counts import TextCounts, text_counts
from qc.invisible_text import visible
from qc.submit_rules import canned_form, is_canned
from qc.text_similarity import FINAL_PUNCTUATION

T = TypeVar("T")
PART = 16_384  # captions folded at a time
_ASCII_SPACE = "[\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f ]"  # str.isspace's ASCII characters, in RE2's syntax
# non-ASCII, or whitespace that folding changes: at either end, before a space, or other than a space
_NOT_PLAIN = f"[^\\x00-\\x7f]|^{_ASCII_SPACE}|{_ASCII_SPACE}$|{_ASCII_SPACE} |[\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f]"


@dataclass
class _Batch:
    frame: pd.DataFrame
    values: dict[Hashable, Any] = field(default_factory=dict)
    after: tuple[str, ...] | None = None  # the rules still to run after the current one, when named


_CURRENT: ContextVar[_Batch | None] = ContextVar("qc_text_features_batch", default=None)


@contextmanager
def batch(df: pd.DataFrame, rules: Iterable[str] = ()) -> Iterator[Iterator[str]]:
    """Share features among the rules run on ``df`` (they must not change it); yields ``rules`` one by one, so a
    feature no later rule reads can be let go (:func:`later`)."""
    current = _Batch(df)
    token = _CURRENT.set(current)

    def each(names: tuple[str, ...]) -> Iterator[str]:
        for k, name in enumerate(names):
            current.after = names[k + 1:]
            yield name

    try:
        yield each(tuple(rules))
    finally:
        _CURRENT.reset(token)


def later(df: pd.DataFrame, rule: str) -> bool:
    """Whether ``rule`` may still run on ``df``'s batch: True unless the batch named its rules and the rest omit it."""
    current = _CURRENT.get()
    return current is None or current.frame is not df or current.after is None or rule in current.after


def shared(df: pd.DataFrame, key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, once per batch for ``df`` (every time outside :func:`batch`)."""
    current = _CURRENT.get()
    if current is None or current.frame is not df:
        return compute()
    if key not in current.values:
        current.values[key] = compute()
    return current.values[key]  # type: ignore[no-any-return]


def forget(df: pd.DataFrame, key: Hashable) -> None:
    """Let go of a shared feature of ``df``'s batch (a later rule that reads it computes it again)."""
    current = _CURRENT.get()
    if current is not None and current.frame is df:
        current.values.pop(key, None)


def captions(df: pd.DataFrame) -> list[str]:
    """The caption column as a list of strings (a missing caption as "")."""
    return shared(df, "captions", lambda: df["caption"].fillna("").astype(str).tolist())


def column(df: pd.DataFrame, name: str) -> list[Any]:
    """A column's values as a list, once per batch (rules read, never change it)."""
    return shared(df, ("column", name), lambda: df[name].tolist())


def arrow_captions(df: pd.DataFrame) -> pa.Array | pa.ChunkedArray | None:
    """The caption column as Arrow text, or None when Arrow cannot hold a value (a lone surrogate)."""
    def convert() -> pa.Array | pa.ChunkedArray | None:
        try:
            return pa.array(captions(df), type=pa.large_string())  # the shared list: cheaper than pandas' own
        except (pa.ArrowException, UnicodeEncodeError):
            return None

    return shared(df, "arrow_captions", convert)


def written(df: pd.DataFrame) -> np.ndarray:
    """True where a caption is not the canned text (the rows the text rules judge)."""
    return shared(df, "written", lambda: ~df["is_precanned"].to_numpy(dtype=bool))


def folded(df: pd.DataFrame) -> list[str]:
    """Each caption without invisible characters, whitespace runs as one space, trimmed, in lower case."""
    return shared(df, "folded", lambda: _folded(captions(df), arrow_captions(df)))


def _folded(texts: list[str], column: pa.Array | pa.ChunkedArray | None, trim: str = "") -> list[str]:
    """Plain ASCII captions fold by Arrow's lower case at once (one regex finds them); the rest one at a time.
    ``trim``: characters then stripped from the end."""
    if column is None:
        return [" ".join(visible(t).split()).lower().rstrip(trim) for t in texts]
    odd = pc.match_substring_regex(column, _NOT_PLAIN)
    lower = pc.ascii_lower(column)
    out = (pc.utf8_rtrim(lower, characters=trim) if trim else lower).to_pylist()
    for k in np.flatnonzero(pc.fill_null(odd, True).to_numpy(zero_copy_only=False)).tolist():
        out[k] = " ".join(visible(texts[k]).split()).lower().rstrip(trim)
    return out


def folded_keys(df: pd.DataFrame) -> np.ndarray:
    """Hashes of each :func:`folded` caption without end punctuation, :data:`PART` at a time: equal folded texts
    have equal keys (so do a few others: callers compare the texts)."""
    def compute() -> np.ndarray:
        texts, column = captions(df), arrow_captions(df)
        keys = np.empty(len(texts), dtype=np.int64)
        for start in range(0, len(texts), PART):
            part = _folded(texts[start:start + PART], None if column is None else column.slice(start, PART),
                           FINAL_PUNCTUATION)
            keys[start:start + len(part)] = np.fromiter(map(hash, part), dtype=np.int64, count=len(part))
        return keys

    return shared(df, "folded_keys", compute)


def folded_at(df: pd.DataFrame, at: np.ndarray) -> list[str]:
    """The :func:`folded` texts of the captions at positions ``at`` (one at a time: a few rows)."""
    texts = captions(df)
    return _folded([texts[k] for k in at.tolist()], None)


def repeated(keys: np.ndarray, codes: np.ndarray | None = None) -> np.ndarray:
    """True where a key (with the same ``codes``) is on another row too; the caller weeds out collisions."""
    if codes is not None:
        keys = keys * 1_000_003 + codes  # wraps around: still equal for equal pairs
    found = pd.factorize(keys)[0]
    return np.bincount(found)[found] > 1


def counts(df: pd.DataFrame) -> TextCounts:
    """Per caption: uppercase letters, letters and submit-rule words (:mod:`qc.char_counts`)."""
    return shared(df, "counts", lambda: text_counts(captions(df)))


def canned_mask(texts: pd.Series, canned_text: str) -> np.ndarray:
    """:func:`qc.submit_rules.is_canned` for a whole column: ASCII by one Arrow regex (C speed), the rest by it."""
    if not canned_text.strip():
        return np.zeros(len(texts), dtype=bool)
    target = canned_form(canned_text)
    # pandas' str held in Arrow is taken as it is, not as a Python str per row
    held = texts if getattr(texts.dtype, "storage", "") == "pyarrow" else texts.to_numpy(dtype=object, na_value=None)
    found = pa.array(held, pa.large_string())
    column = found if isinstance(found, pa.ChunkedArray) else pa.chunked_array([found])
    ascii_text = pc.fill_null(pc.string_is_ascii(column), False).to_numpy(zero_copy_only=False)
    out = np.zeros(len(texts), dtype=bool)
    if target and target.isascii():
        # is_canned on ASCII: ASCII spaces around and between the words, any case, final dots on the last word or alone
        space = _ASCII_SPACE
        words = f"{space}+".join(re.escape(w) for w in target.split(" "))
        found = pc.match_substring_regex(column, f"^{space}*{words}(?:{space}*\\.+)?{space}*$", ignore_case=True)
        out[ascii_text] = pc.fill_null(found, False).to_numpy(zero_copy_only=False)[ascii_text]
        rest = np.flatnonzero(~ascii_text)
    else:
        rest = np.arange(len(texts))
    out[rest] = [is_canned(t, canned_text) for t in texts.iloc[rest].tolist()]
    return out
