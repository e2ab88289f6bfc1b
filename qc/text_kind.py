"""Which submit rules fit a file's kind of text: passages go without one_sentence and banned openings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from qc.submit_candidates import BLANK, SECOND_SENTENCE, _mask
from qc.submit_rules import SubmitRules, has_second_sentence, is_blank

PASSAGE_SHARE = 0.5  # more than half the answered texts run past one sentence: passages, not captions
OFF_FOR_PASSAGES = ("one_sentence", "banned_prefix")


def text_kind(texts: pd.Series) -> str:
    """"passage" when most answered texts have a second sentence, else "caption"."""
    values = texts.astype(str).tolist()
    try:  # the submit rules' own tests, spelled in RE2 (qc/submit_candidates.py), over the column at once
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
