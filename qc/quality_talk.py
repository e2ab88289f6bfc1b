"""``quality_talk``: a caption about the photo's quality, not its content: one of ``quality_words`` and consensus
below ``quality_talk_consensus``. Input columns: ``assignment_id, worker_id, image_id, caption, is_precanned``."""

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
