"""Caption-level rules: the submit rules again, server-side, plus quality words.

Input columns: ``assignment_id, worker_id, image_id, caption, is_precanned``.
A caption that breaks a rule the page enforces was posted around the page (tampering). The
submit rules (``required``, ``min_words``, ``one_sentence``, ``banned_prefix``, ``max_chars``)
are registered here from :data:`qc.submit_rules.CHECKS`: the very checks the simulator's worker
and the parity test use, so the server cannot drift from the page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import pandas as pd

from qc.flags import RuleFn, flag_columns, flag_frame, register
from qc.submit_rules import CHECKS, SubmitCheck, SubmitRules


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


def submit_rule(c: SubmitCheck) -> RuleFn:
    """A caption rule that flags each caption ``c``'s check refuses (nothing when the spec turns it off)."""
    def rule(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
        rules = _rules(params)
        if not c.applies(rules):
            return flag_frame([])
        texts, check = _captions(df), c.bind(rules)
        hits = [(i, *hit, clip(text)) for i, text in zip(texts.index, texts.tolist(), strict=True)
                if (hit := check(text)) is not None]  # a plain loop: one call per caption
        return caption_flags(df, c.name, hits)

    rule.__name__ = rule.__qualname__ = c.name
    rule.__doc__ = f"The page's {c.name} submit rule, re-checked on what the server received."
    return rule


for _check in CHECKS.values():
    register(_check.name, "caption")(submit_rule(_check))


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
