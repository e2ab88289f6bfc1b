"""The threshold grid of ``make bench-qc-real``: per swept rule, its flags at each value.

Each grid maps a key (that rule's values, in :data:`GRID_KEYS` order) to a boolean array over
the frame's rows. Consensus starts above 0 because the campaigns run it (and its worker rate
``consensus_rate`` needs a threshold above 0); near_template and quality_talk may be off
(all-zero key).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qc.caption_rules import QUALITY_WORDS, quality_word_of
from qc.consensus_rules import consensus_scores
from qc.runner import run_rules
from qc.template_rules import near_template_keys

GRID_KEYS = ("shared_template_min_images", "consensus_threshold", "near_template_words",
             "near_template_consensus", "near_template_min_images", "quality_talk_consensus")
MIN_IMAGES = (2, 3, 4)
CONSENSUS = (0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1)
NEAR_WORDS = (3, 4, 5)
NEAR_CONSENSUS = (0.05, 0.1, 0.15, 0.2)
NEAR_MIN_IMAGES = (2, 3, 4, 6)
QUALITY_TALK = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3)

Grid = dict[tuple[Any, ...], np.ndarray]


def _rows(frame: pd.DataFrame, index: pd.Index) -> np.ndarray:
    return np.asarray(frame.index.isin(index))


def _shared_template(frame: pd.DataFrame, params: dict[str, Any]) -> Grid:
    grid = {}
    for min_images in MIN_IMAGES:
        flags = run_rules(frame, {**params, "shared_template_min_images": min_images}, ["shared_template"])
        grid[(min_images,)] = np.asarray(frame["assignment_id"].isin(set(flags["assignment_id"])))
    return grid


def _near_template(frame: pd.DataFrame, params: dict[str, Any]) -> Grid:
    grid = {(0, 0.0, 0): np.zeros(len(frame), dtype=bool)}
    for words in NEAR_WORDS:
        for ceiling in NEAR_CONSENSUS:
            keyed = near_template_keys(frame, {**params, "near_template_words": words,
                                               "near_template_consensus": ceiling})
            for min_images in NEAR_MIN_IMAGES:
                grid[(words, ceiling, min_images)] = _rows(frame, keyed.index[keyed["images"] >= min_images])
    return grid


def _quality_talk(frame: pd.DataFrame, scores: pd.Series, params: dict[str, Any]) -> Grid:
    scored = scores[np.isfinite(scores)]
    worded = quality_word_of(frame.loc[scored.index, "caption"], params.get("quality_words", QUALITY_WORDS)).index
    return {(ceiling,): _rows(frame, worded[scored[worded] < ceiling]) for ceiling in QUALITY_TALK}


def rule_grids(frame: pd.DataFrame, params: dict[str, Any]) -> list[Grid]:
    """The grids of shared_template, consensus, near_template and quality_talk, in GRID_KEYS order."""
    scores = consensus_scores(frame, int(params["consensus_min_peers"]))["score"].reindex(frame.index)
    scores = scores.astype(float).fillna(np.inf)
    consensus = {(t,): (scores < t).to_numpy() for t in CONSENSUS}
    return [_shared_template(frame, params), consensus, _near_template(frame, params),
            _quality_talk(frame, scores, params)]
