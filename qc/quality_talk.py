"""``quality_talk``: a caption about the photo's quality instead of its content.

Input columns: ``assignment_id, worker_id, image_id, caption, is_precanned`` (one row per
caption; canned captions are neither judged nor used as peers).

A caption is flagged when it holds one of ``quality_words`` (whole word, any case) and its best consensus cosine
with the other workers' captions of its image is below ``quality_talk_consensus``: the word alone is weak
evidence ("A blurry twenty dollar bill ..."), why is in docs/explanation/qc-rules.md. Captions ``consensus``
cannot score (too few peers) are not judged.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from qc.caption_rules import QUALITY_WORDS, caption_flags, clip, quality_word_of
from qc.consensus_rules import DEFAULTS as CONSENSUS_DEFAULTS
from qc.consensus_rules import consensus_scores
from qc.flags import register

DEFAULTS: dict[str, Any] = {"quality_talk_consensus": 0.1}


@register("quality_talk", "caption")
def quality_talk(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """A caption that names image quality and agrees with none of its image's other captions."""
    ceiling = float(params.get("quality_talk_consensus", DEFAULTS["quality_talk_consensus"]))
    words = params.get("quality_words", QUALITY_WORDS)
    min_peers = int(params.get("consensus_min_peers", CONSENSUS_DEFAULTS["consensus_min_peers"]))
    scored = consensus_scores(df, min_peers)
    low = scored[scored["score"] < ceiling]
    found = quality_word_of(df.loc[low.index, "caption"].fillna("").astype(str), words)
    hits = [(i, round(float(low.at[i, "score"]), 3), ceiling,
             f"names image quality ({word!r}) and agrees with no peer (best {low.at[i, 'score']:.2f}): "
             f"{clip(df.at[i, 'caption'], 100)}")
            for i, word in found.items()]
    return caption_flags(df, "quality_talk", hits)
