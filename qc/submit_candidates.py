"""Which captions a submit check may refuse, found for a whole Arrow column at once: a mask true for every
caption :mod:`qc.submit_rules` refuses (and few others), so the exact check runs on those alone. The patterns
spell the same characters in RE2 (each as ``\\x{...}``). The same tests say which rules fit a file's kind of text
(:func:`text_kind`): passages go without one_sentence and banned openings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from qc.submit_rules import _CURLY_APOSTROPHES, SPACE, SubmitRules, has_second_sentence, is_blank

Candidates = Callable[[pa.ChunkedArray], np.ndarray]


def re2_literal(text: str) -> str:
    """``text`` as an RE2 pattern that matches it literally (each character as ``\\x{...}``)."""
    return "".join(f"\\x{{{ord(c):x}}}" for c in text)


_SPACE_CLASS = f"[{re2_literal(SPACE)}]"
_NOT_SPACE_CLASS = f"[^{re2_literal(SPACE)}]"
BLANK = f"^{_SPACE_CLASS}*$"  # qc.submit_rules.is_blank
SECOND_SENTENCE = f"[.!?]{_SPACE_CLASS}+{_NOT_SPACE_CLASS}"  # qc.submit_rules._SECOND_SENTENCE, character for character
PASSAGE_SHARE = 0.5  # more than half the answered texts run past one sentence: passages, not captions
OFF_FOR_PASSAGES = ("one_sentence", "banned_prefix")


def _mask(found: pa.ChunkedArray) -> np.ndarray:
    return np.asarray(pc.fill_null(found, True).to_numpy(zero_copy_only=False), dtype=bool)


def _required(rules: SubmitRules) -> Candidates | None:
    # blank: empty, or only SPACE; so it is empty or starts with a SPACE character
    return lambda column: _mask(pc.match_substring_regex(column, f"^(?:$|{_SPACE_CLASS})"))


def _one_sentence(rules: SubmitRules) -> Candidates | None:
    return lambda column: _mask(pc.match_substring_regex(column, SECOND_SENTENCE))


def _banned_prefix(rules: SubmitRules) -> Candidates | None:
    """may_open_with_prefix in RE2: non-ASCII text, or ASCII opening with a prefix in any ASCII case."""
    prefixes = tuple(p.translate(_CURLY_APOSTROPHES).lower() for p in rules.banned_prefixes)
    if not prefixes or not all(p.isascii() for p in prefixes):
        return None
    options = "|".join(re2_literal(p).replace(re2_literal("'"), f"[{re2_literal(chr(39) + chr(0x2019) + chr(0x2018))}]")
                       for p in prefixes)
    pattern = f"^{_SPACE_CLASS}*(?:{options})"
    return lambda column: _mask(pc.or_(pc.invert(pc.string_is_ascii(column)),
                                       pc.match_substring_regex(column, pattern, ignore_case=True)))


def _max_chars(rules: SubmitRules) -> Candidates | None:
    limit = rules.max_chars or 0
    return lambda column: _mask(pc.greater(pc.utf8_length(column), limit))


CANDIDATES: dict[str, Callable[[SubmitRules], Candidates | None]] = {
    "required": _required, "one_sentence": _one_sentence, "banned_prefix": _banned_prefix, "max_chars": _max_chars,
}


def text_kind(texts: pd.Series) -> str:
    """"passage" when most answered texts have a second sentence, else "caption"."""
    values = texts.astype(str).tolist()
    try:  # the submit rules' own tests, spelled in RE2 above, over the column at once
        column = pa.array(values, pa.large_string())
        answered = ~_mask(pc.match_substring_regex(column, BLANK))
        found = int((_mask(pc.match_substring_regex(column, SECOND_SENTENCE)) & answered).sum())
    except (pa.ArrowException, UnicodeEncodeError):  # a lone surrogate: one text at a time
        answered = np.array([not is_blank(t) for t in values], dtype=bool)
        found = sum(map(has_second_sentence, [t for t, a in zip(values, answered, strict=True) if a]))
    if not answered.any():
        return "caption"
    return "passage" if found / int(answered.sum()) > PASSAGE_SHARE else "caption"


def rules_for_kind(rules: SubmitRules, kind: str) -> SubmitRules:
    """The caption rules for captions; for passages the same without one_sentence and banned openings."""
    return replace(rules, one_sentence=False, banned_prefixes=()) if kind == "passage" else rules
