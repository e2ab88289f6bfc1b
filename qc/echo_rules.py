"""``instruction_echo``: a caption that copies the task page's own text. Input columns: ``assignment_id, worker_id,
image_id, caption, is_precanned``; ``params``: ``page_text`` (without it a ``rule_error`` row),
``instruction_echo_threshold``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qc.caption_rules import caption_flags, clip
from qc.consensus_rules import written_fit
from qc.flags import register
from qc.text_similarity import foreign_vectors

# shorter lines ("Submit", "Yes", "This image") any honest caption may hold: on real captions all were false flags
MIN_LINE_WORDS = 3


def page_lines(page_text: str) -> list[str]:
    """The page's lines worth comparing with: instructions, examples, the banned-phrase list."""
    return [line.strip() for line in page_text.splitlines() if len(line.split()) >= MIN_LINE_WORDS]


@register("instruction_echo", "caption")
def instruction_echo(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """A non-canned caption whose TF-IDF cosine with a line of the page reaches the threshold."""
    page_text = params.get("page_text")
    if not isinstance(page_text, str) or not page_text.strip():
        raise ValueError("instruction_echo needs the page's text (params page_text); "
                         "run `hitflow qc --config <campaign.toml>` or drop the rule")
    threshold = float(params.get("instruction_echo_threshold", 0.6))
    lines = page_lines(page_text)
    if not lines:
        raise ValueError(f"the page text has no line of {MIN_LINE_WORDS}+ words to compare captions with")
    # the batch's fit (shared with consensus): a page word no caption uses cannot match anyway
    own_index, fitted = written_fit(df)
    if fitted is None:
        return caption_flags(df, "instruction_echo", [])
    sims = (fitted.rows @ foreign_vectors(fitted, lines).T).toarray()
    best, which = sims.max(axis=1), sims.argmax(axis=1)
    hit = np.flatnonzero(best >= threshold)
    hits = [(own_index[k], round(float(best[k]), 3), threshold, f"{best[k]:.2f} like the page's "
             f"\u201c{clip(lines[which[k]], 100)}\u201d") for k in hit]
    return caption_flags(df, "instruction_echo", hits)
