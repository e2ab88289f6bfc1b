"""``consensus``, ``consensus_rate``, ``shared_template`` and ``instruction_echo``: a caption against other captions
and the task page (docs/explanation/qc-rules.md; a quote of the item's shown text, qc/shown_text.py, is no template).
Input columns: ``assignment_id, worker_id, image_id, caption, is_precanned``. Canned captions are neither scored nor
peers; images under ``consensus_min_peers`` other captions are skipped and counted in a ``rule_info`` row."""

from __future__ import annotations

from itertools import compress
from typing import Any

import numpy as np
import pandas as pd

from qc import text_features
from qc.caption_rules import caption_flags, clip
from qc.flags import flag_frame, register
from qc.peer_match import best_peers
from qc.shown_text import quotes_own_item, shown_as
from qc.text_similarity import FINAL_PUNCTUATION, TermMatrix, fit_vectors
from qc.worker_share import share_flags

DEFAULTS = {"consensus_threshold": 0.02, "consensus_min_peers": 2, "shared_template_min_images": 2,
            "instruction_echo_threshold": 0.6, "consensus_rate_share": 0.5, "consensus_rate_min_captions": 3}


def _param(params: dict[str, Any], key: str) -> Any:
    return params.get(key, DEFAULTS[key])


def _written(df: pd.DataFrame) -> pd.DataFrame:
    """The non-canned captions, with their text as a string."""
    own = df.loc[~df["is_precanned"].astype(bool), ["worker_id", "image_id", "caption"]].copy()
    own["caption"] = own["caption"].fillna("").astype(str)
    return own


def consensus_scores(df: pd.DataFrame, min_peers: int) -> pd.DataFrame:
    """Per scored caption: best cosine ``score``, its ``peer`` row, ``peers``; under ``min_peers`` peers, left out."""
    return text_features.shared(df, ("consensus_scores", min_peers), lambda: _scores(df, min_peers))


def _scores(df: pd.DataFrame, min_peers: int) -> pd.DataFrame:
    found = text_features.shared(df, "consensus_matches", lambda: _best_matches(df))
    if found is None:
        return pd.DataFrame(columns=["score", "peer", "peers"])
    own_index, (best, best_peer, peers) = found
    scored = peers >= min_peers
    return pd.DataFrame({"score": best[scored], "peer": own_index[best_peer[scored]], "peers": peers[scored]},
                        index=own_index[scored])


def written_fit(df: pd.DataFrame) -> tuple[pd.Index, TermMatrix | None]:
    """The non-canned captions' index and their TF-IDF fit (consensus, its rate and instruction_echo share one
    within a batch: callers must not change it)."""
    def fit() -> tuple[pd.Index, TermMatrix | None]:
        # the fit is the batch's largest step: the captions' Arrow copy (~20 MB at 200,000) goes first
        text_features.forget(df, "arrow_captions")
        written = text_features.written(df)
        texts = tuple(compress(text_features.captions(df), written.tolist()))
        return df.index[written], fit_vectors(texts) if texts else None

    return text_features.shared(df, "written_fit", fit)


def _best_matches(df: pd.DataFrame) -> tuple[pd.Index, tuple[np.ndarray, np.ndarray, np.ndarray]] | None:
    own_index, fitted = written_fit(df)
    if fitted is None:
        return None
    written = text_features.written(df)
    found = best_peers(fitted, df["image_id"].to_numpy()[written], df["worker_id"].to_numpy()[written])
    if not text_features.later(df, "instruction_echo"):  # the fit's other reader: without it, the matrix
        text_features.forget(df, "written_fit")  # (~30 MB at 200,000 captions) goes once the matches are found
    return own_index, found


def _skipped_row(df: pd.DataFrame, scored: pd.DataFrame, min_peers: int) -> list[dict[str, Any]]:
    own = df.index[text_features.written(df)]
    # isin, not difference: difference keeps a hash table of the scored index for as long as the scores live
    unscored = own[~own.isin(scored.index)].unique()
    if len(unscored) == 0:
        return []
    images = df.loc[unscored, "image_id"].nunique()
    return [{"worker_id": "", "rule": "rule_info", "value": "consensus", "threshold": min_peers,
             "detail": f"skipped {len(unscored)} caption(s) on {images} image(s) with fewer than "
                       f"{min_peers} other workers' captions"}]


def _peers_said(df: pd.DataFrame, peers: pd.Series) -> list[tuple[Any, Any]]:
    """Each peer row's worker and caption, from the batch's shared lists when row labels are unique (``df.at`` cost)."""
    if not df.index.is_unique:
        return [(df.at[p, "worker_id"], df.at[p, "caption"]) for p in peers.tolist()]
    at = df.index.get_indexer(peers).tolist()
    workers, texts = text_features.column(df, "worker_id"), text_features.column(df, "caption")
    return [(workers[k], texts[k]) for k in at]


@register("consensus", "caption")
def consensus(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """A caption sharing (almost) nothing with the other workers' captions of its image."""
    threshold = float(_param(params, "consensus_threshold"))
    min_peers = int(_param(params, "consensus_min_peers"))
    scored = consensus_scores(df, min_peers)
    low = scored[scored["score"] < threshold]
    said = _peers_said(df, low["peer"]) if not low.empty else []  # (itertuples costs)
    hits = [(i, round(float(r.score), 3), threshold,
             f"best of {int(r.peers)} peers {r.score:.2f}, {who}: {clip(text, 100)}")
            for i, r, (who, text) in zip(low.index, low.itertuples(), said, strict=True)] if said else []
    found = caption_flags(df, "consensus", hits)
    info = _skipped_row(df, scored, min_peers)
    return pd.concat([found, flag_frame(info)], ignore_index=True) if info else found


@register("consensus_rate", "worker")
def consensus_rate(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """The share of a worker's scored captions that fall below the consensus threshold."""
    threshold = float(_param(params, "consensus_threshold"))
    share = float(_param(params, "consensus_rate_share"))
    min_captions = int(_param(params, "consensus_rate_min_captions"))
    scored = consensus_scores(df, int(_param(params, "consensus_min_peers")))
    captions = pd.DataFrame({"worker_id": df.loc[scored.index, "worker_id"], "flagged": scored["score"] < threshold})
    return share_flags(captions, "consensus_rate", share, "agree with no peer", min_captions=min_captions)


@register("shared_template", "caption")
def shared_template(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """The same normalised caption on many images, whoever wrote it."""
    min_images = int(_param(params, "shared_template_min_images"))
    own = _written(df)
    written = np.flatnonzero(text_features.written(df))
    kept = text_features.repeated(text_features.folded_keys(df)[written])  # only repeats can count
    if not kept.any():
        return flag_frame([])  # most batches: no text twice, nothing to count
    own = own[kept].assign(norm=[t.rstrip(FINAL_PUNCTUATION) for t in text_features.folded_at(df, written[kept])])
    own = own[(own["norm"] != "") & own["norm"].duplicated(keep=False)]
    # an answer quoting its own item's shown text is about that item (qc/shown_text.py)
    own = own[~np.array(quotes_own_item(own["caption"].tolist(), own["image_id"].tolist(), params), dtype=bool)]
    # two items showing one text are one item here: the same answer on both is no template
    shown = own.assign(image_id=shown_as(own["image_id"].tolist(), params)) if params.get("item_text") else own
    pairs = shown.drop_duplicates(["norm", "image_id"])["norm"].value_counts()
    common = pairs[pairs >= min_images]
    shared = own[own["norm"].isin(common.index)]
    images = shared["norm"].map(common)
    workers = shared["norm"].map(shared.groupby("norm")["worker_id"].nunique())
    hits = [(i, int(n), min_images, f"on {int(n)} images by {int(w)} worker(s): {clip(text, 100)}")
            for i, n, w, text in zip(shared.index, images, workers, shared["caption"].tolist(), strict=True)]
    return caption_flags(df, "shared_template", hits)
