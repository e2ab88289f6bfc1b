"""Caption rules: the submit rules again server-side, registered from :data:`qc.submit_rules.CHECKS` so the server
cannot drift from the page, plus quality words. Input columns: ``assignment_id, worker_id, image_id, caption,
is_precanned``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from qc import text_features
from qc.flags import RuleFn, flag_columns, flag_frame, register
from qc.submit_candidates import CANDIDATES, re2_literal
from qc.submit_rules import CHECKS, SubmitCheck, SubmitRules
from qc.worker_share import share_flags


def _rules(params: dict[str, Any]) -> SubmitRules:
    rules = params.get("submit_rules")
    return rules if isinstance(rules, SubmitRules) else SubmitRules()


def caption_flags(df: pd.DataFrame, rule: str, hits: Sequence[tuple[Any, object, object, str]]) -> pd.DataFrame:
    if not hits:
        return flag_frame([])
    index, values, thresholds, details = zip(*hits, strict=True)
    ids = _ids_at(df, list(index))
    return flag_columns({"worker_id": ids["worker_id"], "rule": rule, "value": list(values),
                         "threshold": list(thresholds), "assignment_id": ids["assignment_id"],
                         "image_id": ids["image_id"], "detail": list(details)})


def _ids_at(df: pd.DataFrame, index: list[Any]) -> dict[str, list[Any]]:
    """The worker, assignment and image ids of the rows ``index`` labels, from shared lists when labels are unique."""
    names = ("worker_id", "assignment_id", "image_id")
    if df.index.is_unique and set(names) <= set(df.columns):
        at = df.index.get_indexer(index)
        if (at >= 0).all():
            return {c: [values[k] for k in at.tolist()] for c, values in zip(
                names, (text_features.column(df, c) for c in names), strict=True)}
    rows = df.loc[index, list(names)]
    return {c: rows[c].tolist() for c in names}


def submit_rule(c: SubmitCheck) -> RuleFn:
    """A caption rule that flags each caption ``c``'s check refuses (nothing when the spec turns it off)."""
    def rule(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
        rules = _rules(params)
        if not c.applies(rules):
            return flag_frame([])
        texts, check = text_features.captions(df), c.bind(rules)
        hits = [(df.index[k], *hit, clip(texts[k])) for k in _may_break(df, c.name, rules)
                if (hit := check(texts[k])) is not None]  # one call per caption the check may refuse
        return caption_flags(df, c.name, hits)

    rule.__name__ = rule.__qualname__ = c.name
    rule.__doc__ = f"The page's {c.name} submit rule, re-checked on what the server received."
    return rule


def _may_break(df: pd.DataFrame, name: str, rules: SubmitRules) -> np.ndarray | range:
    """Positions of the captions check ``name`` may refuse (:mod:`qc.submit_candidates`); all without a mask."""
    find = CANDIDATES[name](rules) if name in CANDIDATES else None
    column = text_features.arrow_captions(df) if find is not None else None
    return range(len(df)) if find is None or column is None else np.flatnonzero(find(column))


for _check in CHECKS.values():
    register(_check.name, "caption")(submit_rule(_check))


@register("min_words", "caption")
def min_words(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """The page's min_words rule from the batch's shared word counts (:func:`qc.submit_rules.count_words`'s)."""
    rules = _rules(params)
    if not CHECKS["min_words"].applies(rules):
        return flag_frame([])
    counts, texts = text_features.counts(df).words, text_features.captions(df)
    hits = [(df.index[k], int(counts[k]), rules.min_words, clip(texts[k]))
            for k in np.flatnonzero(counts < rules.min_words)]
    return caption_flags(df, "min_words", hits)


@register("max_words", "caption")
def max_words(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """More words than the most a page states ("no more than 20 words"): ``max_words`` (0: off), by page or config."""
    most = int(params.get("max_words") or 0)
    if most <= 0 or df.empty:
        return flag_frame([])
    counts, texts = text_features.counts(df).words, text_features.captions(df)
    hits = [(df.index[k], int(counts[k]), most, clip(texts[k])) for k in np.flatnonzero(counts > most)]
    return caption_flags(df, "max_words", hits)


QUALITY_WORDS = ("quality", "blur", "blurry", "blurred")
# A picture's quality named where a page shows no picture: text written for another task (a caption job's "A
# blurry photo of ..."), not about the item; "poor quality wiring" on a text page names no picture and passes.
PICTURE_QUALITY_WORDS = tuple(f"{how} {what}" for how in ("blurry", "blurred", "out of focus", "low quality",
                                                          "low-quality", "grainy", "pixelated")
                              for what in ("photo", "photos", "picture", "pictures", "image", "images", "shot", "pic"))


def quality_word_of(texts: pd.Series, words: Sequence[str]) -> pd.Series:
    """Per text that holds one of ``words`` (whole word, any case): the first such word, lower case."""
    if not words or texts.empty:
        return pd.Series([], dtype=object)
    index, values = texts.index, texts.tolist()
    if all(w.isascii() for w in words):
        column = pa.array(values, pa.large_string())
        keep = np.flatnonzero(_may_hold(column, words))
        if pc.all(pc.string_is_ascii(column)).as_py() is not False:  # re's \b and case folding on ASCII are RE2's
            return _first_words(index[keep], column.take(keep), words)
        index, values = index[keep], [values[k] for k in keep]
    finditer = _word_pattern(tuple(words)).finditer  # the rest: a search per text that may hold a word
    found = [(k, m.group(1).lower()) for k, text in enumerate(values) if (m := next(finditer(text), None))]
    return pd.Series([w for _, w in found], index=index[[k for k, _ in found]], dtype=object) if found else pd.Series(
        [], dtype=object)


def _first_words(index: pd.Index, column: pa.Array, words: Sequence[str]) -> pd.Series:
    """Each ASCII text's first word of ``words`` (ASCII), by RE2 over the column at once."""
    pattern = "(?i)\\b(?P<w>" + "|".join(re2_literal(w) for w in words) + ")\\b"
    found = pc.extract_regex(column, pattern)
    hit = np.flatnonzero(pc.is_valid(found).to_numpy(zero_copy_only=False))
    said = found.field("w").take(hit).to_pylist()
    return pd.Series([w.lower() for w in said], index=index[hit], dtype=object) if len(hit) else pd.Series(
        [], dtype=object)


def _may_hold(column: pa.Array | pa.ChunkedArray, words: Sequence[str]) -> np.ndarray:
    """Where a text may hold one of ``words``: every non-ASCII text and ASCII ones holding one in any case (Arrow)."""
    any_word = "|".join(re2_literal(w) for w in words)  # one pass for all the words
    maybe = pc.or_(pc.invert(pc.string_is_ascii(column)), pc.match_substring_regex(column, any_word, ignore_case=True))
    return np.asarray(maybe.to_numpy(zero_copy_only=False), dtype=bool)


@lru_cache(maxsize=8)
def _word_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)


@register("quality_words", "caption")
def quality_words(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """A non-canned caption containing a configured word, whole word, any case."""
    words = params.get("quality_words", QUALITY_WORDS)
    own, column = text_features.written(df), text_features.arrow_captions(df)
    if column is not None and all(w.isascii() for w in words):  # only the captions that may hold one
        own = own & _may_hold(column, words)
    at, captions = np.flatnonzero(own), text_features.captions(df)
    texts = pd.Series([captions[k] for k in at.tolist()], index=at, dtype=object)  # labelled by place
    found, listed = quality_word_of(texts, words), "|".join(words)
    places = found.index.to_numpy(dtype=np.int64)
    hits = [(i, word, listed, clip(captions[k]))
            for i, word, k in zip(df.index[places], found.tolist(), places.tolist(), strict=True)]
    return caption_flags(df, "quality_words", hits)


@register("quality_words_rate", "worker")
def quality_words_rate(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Quality words as a habit: ``quality_words_rate_share`` (0.3) of ``quality_words_rate_min_captions`` (3)+."""
    words = params.get("quality_words", QUALITY_WORDS)
    share = float(params.get("quality_words_rate_share", 0.3))
    least = int(params.get("quality_words_rate_min_captions", 3))
    own = ~df["is_precanned"].astype(bool)  # two columns of the non-canned rows, not a copy of the frame
    texts = df["caption"].fillna("").astype(str)[own]
    worded = texts.index.isin(quality_word_of(texts, words).index)
    captions = pd.DataFrame({"worker_id": df["worker_id"][own], "flagged": worded})
    return share_flags(captions, "quality_words_rate", share, "name image quality", min_captions=least)


def clip(text: object, limit: int = 160) -> str:
    s = "" if not isinstance(text, str) else text
    return s if len(s) <= limit else s[: limit - 1] + "…"
