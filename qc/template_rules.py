"""``near_template``: a pasted sentence varied a little that agrees with nothing on its image: consensus below
``near_template_consensus`` and its first ``near_template_words`` words opening such captions on
``near_template_min_images``+ images. Input columns: ``assignment_id, worker_id, image_id, caption, is_precanned``."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from qc.caption_rules import caption_flags, clip
from qc.consensus_rules import DEFAULTS as CONSENSUS_DEFAULTS
from qc.consensus_rules import consensus_scores
from qc.flags import flag_frame, register

DEFAULTS: dict[str, Any] = {"near_template_words": 4, "near_template_consensus": 0.1, "near_template_min_images": 4}
_LETTER_WORD = re.compile(r"[^\W\d_]+")


def template_key(text: str, n_words: int) -> str:
    """The first ``n_words`` words of letters, case folded; "" when the text is shorter."""
    found = _LETTER_WORD.findall(text.lower(), 0, 400)  # a key needs only the opening
    return " ".join(found[:n_words]) if len(found) >= n_words else ""


def _param(params: dict[str, Any], key: str) -> Any:
    return params.get(key, DEFAULTS[key])


def near_template_keys(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Per low-consensus caption with a key (index of ``df``): ``key``, ``images`` it opens, consensus ``score``."""
    n_words = int(_param(params, "near_template_words"))
    low = _low_consensus(df, params)
    keys = pd.Series([template_key(t, n_words) for t in df.loc[low.index, "caption"].tolist()],
                     index=low.index, dtype=object)
    keys = keys[keys != ""]
    images = df.loc[keys.index, "image_id"].groupby(keys).nunique()
    return pd.DataFrame({"key": keys, "images": keys.map(images).astype(int),
                         "score": low.loc[keys.index, "score"].astype(float)}, index=keys.index)


def _low_consensus(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """The scored captions (:func:`consensus_scores`) below ``near_template_consensus``."""
    ceiling = float(_param(params, "near_template_consensus"))
    min_peers = int(params.get("consensus_min_peers", CONSENSUS_DEFAULTS["consensus_min_peers"]))
    scored = consensus_scores(df, min_peers)
    return scored[scored["score"] < ceiling]


@register("near_template", "caption")
def near_template(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """A low-consensus caption that opens like low-consensus captions on many other images."""
    min_images = int(_param(params, "near_template_min_images"))
    if {"caption", "image_id"} <= set(df.columns) and _low_consensus(df, params).empty:  # most batches: none
        return flag_frame([])
    keyed = near_template_keys(df, params)
    found = keyed[keyed["images"] >= min_images]
    hits = [(i, int(r.images), min_images,
             f"opens like low-consensus captions on {int(r.images)} images ({clip(str(r.key), 60)!r}); "
             f"best peer {r.score:.2f}")
            for i, r in zip(found.index, found.itertuples(), strict=True)]
    return caption_flags(df, "near_template", hits)
