"""Caption-level rules: the submit rules again, server-side, plus quality words.

Input columns: ``assignment_id, worker_id, image_id, caption, is_precanned``.
A caption that breaks a rule the page enforces was posted around the page (tampering).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import pandas as pd

from qc.flags import flag_columns, flag_frame, register
from qc.submit_rules import (
    SubmitRules,
    banned_prefix_of,
    count_words,
    has_second_sentence,
    may_open_with_prefix,
)


def _rules(params: dict[str, Any]) -> SubmitRules:
    rules = params.get("submit_rules")
    return rules if isinstance(rules, SubmitRules) else SubmitRules()


def caption_flags(df: pd.DataFrame, rule: str, hits: Sequence[tuple[Any, object, object, str]]) -> pd.DataFrame:
    if not hits:
        return flag_frame([])
    index, values, thresholds, details = zip(*hits, strict=True)
    rows = df.loc[list(index), ["worker_id", "assignment_id", "image_id"]]
    return flag_columns({"worker_id": rows["worker_id"].tolist(), "rule": rule, "value": list(values),
                         "threshold": list(thresholds), "assignment_id": rows["assignment_id"].tolist(),
                         "image_id": rows["image_id"].tolist(), "detail": list(details)})


def _captions(df: pd.DataFrame) -> pd.Series:
    return df["caption"].fillna("").astype(str)


@register("min_words", "caption")
def min_words(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    limit = _rules(params).min_words
    texts = _captions(df)
    hits = [(i, n, limit, clip(text)) for i, text in zip(texts.index, texts.tolist(), strict=True)
            if (n := count_words(text)) < limit]
    return caption_flags(df, "min_words", hits)


@register("one_sentence", "caption")
def one_sentence(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    if not _rules(params).one_sentence:
        return flag_frame([])
    texts = _captions(df)
    hits = [(i, "2+ sentences", "1 sentence", clip(text))
            for i, text in zip(texts.index, texts.tolist(), strict=True) if has_second_sentence(text)]
    return caption_flags(df, "one_sentence", hits)


@register("banned_prefix", "caption")
def banned_prefix(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    prefixes = _rules(params).banned_prefixes
    texts = _captions(df)
    may_open = may_open_with_prefix(prefixes)
    hits = [(i, prefix, "not allowed", clip(text)) for i, text in zip(texts.index, texts.tolist(), strict=True)
            if may_open(text) and (prefix := banned_prefix_of(text, prefixes)) is not None]
    return caption_flags(df, "banned_prefix", hits)


@register("max_chars", "caption")
def max_chars(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    limit = _rules(params).max_chars
    if limit is None:
        return flag_frame([])
    lengths = _captions(df).str.strip().str.len()
    hits = [(i, int(n), limit, clip(df.at[i, "caption"])) for i, n in lengths.items() if n > limit]
    return caption_flags(df, "max_chars", hits)


QUALITY_WORDS = ("quality", "blur", "blurry", "blurred")


def quality_word_of(texts: pd.Series, words: Sequence[str]) -> pd.Series:
    """Per text that holds one of ``words`` (whole word, any case): the first such word, lower case."""
    if not words or texts.empty:
        return pd.Series([], dtype=object)
    search = _word_pattern(tuple(words)).search
    found = [(i, m.group(1).lower()) for i, text in zip(texts.index, texts.tolist(), strict=True)
             if (m := search(text))]  # a plain loop: str.extract's per-row frames cost twice as much
    return pd.Series(dict(found), dtype=object) if found else pd.Series([], dtype=object)


@lru_cache(maxsize=8)
def _word_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)


@register("quality_words", "caption")
def quality_words(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """A non-canned caption containing a configured word, whole word, any case."""
    words = params.get("quality_words", QUALITY_WORDS)
    texts = _captions(df)[~df["is_precanned"].astype(bool)]
    found = quality_word_of(texts, words)
    hits = [(i, word, "|".join(words), clip(text))
            for i, word, text in zip(found.index, found.tolist(), texts[found.index].tolist(), strict=True)]
    return caption_flags(df, "quality_words", hits)


def clip(text: object, limit: int = 160) -> str:
    s = "" if not isinstance(text, str) else text
    return s if len(s) <= limit else s[: limit - 1] + "…"
