"""Which submit rules fit a file's kind of text: mostly passages are checked without one_sentence and the
banned openings, which would flag nearly every summary. Pure: texts in, a kind and a SubmitRules out."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from qc.submit_rules import SubmitRules, has_second_sentence, is_blank

PASSAGE_SHARE = 0.5  # more than half the answered texts run past one sentence: passages, not captions
OFF_FOR_PASSAGES = ("one_sentence", "banned_prefix")


def text_kind(texts: pd.Series) -> str:
    """"passage" when most answered texts have a second sentence, else "caption"."""
    answered = [t for t in texts.astype(str).tolist() if not is_blank(t)]
    if not answered:
        return "caption"
    share = sum(map(has_second_sentence, answered)) / len(answered)
    return "passage" if share > PASSAGE_SHARE else "caption"


def rules_for_kind(rules: SubmitRules, kind: str) -> SubmitRules:
    """The caption rules for captions; for passages the same without one_sentence and banned openings."""
    return replace(rules, one_sentence=False, banned_prefixes=()) if kind == "passage" else rules
