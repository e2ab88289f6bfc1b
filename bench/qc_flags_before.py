"""QC's flag-table helpers and the rules the output-speed work made faster, as they were at cdcbdc4 (verbatim but
for names), kept as an oracle: :func:`before` swaps them into the live modules, so ``run_rules``
computes the flag table the old way. tests/test_qc_fast_rules.py needs today's table to equal it;
``make bench-qc-batch`` (bench/qc_batch_speed.py) times both. Nothing in the product imports this."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import is_scalar

from qc import (
    consensus_rules,
    telemetry_rules,
    template_rules,
    text_features,
)
from qc.caption_rules import clip
from qc.flags import FLAG_COLUMNS, RULES, RegisteredRule
from qc.telemetry_frame import TM_COLUMNS, telemetry_columns
from qc.text_similarity import FINAL_PUNCTUATION

# --- qc/flags.py ---------------------------------------------------------------------------------


def flag_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return typed_flags(pd.DataFrame(rows, columns=FLAG_COLUMNS))


def flag_columns(columns: dict[str, Any]) -> pd.DataFrame:
    return typed_flags(pd.DataFrame(columns, columns=FLAG_COLUMNS))


def typed_flags(frame: pd.DataFrame) -> pd.DataFrame:
    for col in ("assignment_id", "image_id", "detail"):
        frame[col] = pd.array([_text(v) for v in frame[col].tolist()], dtype=str)
    frame["value"] = frame["value"].astype(object)
    frame["threshold"] = frame["threshold"].astype(object)
    return frame


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if is_scalar(value) and pd.isna(value):
        return ""
    return value.decode() if isinstance(value, bytes) else str(value)


# --- qc/caption_rules.py, qc/worker_share.py --------------------------------------------------------


def caption_flags(df: pd.DataFrame, rule: str, hits: Sequence[tuple[Any, object, object, str]]) -> pd.DataFrame:
    if not hits:
        return flag_frame([])
    index, values, thresholds, details = zip(*hits, strict=True)
    rows = df.loc[list(index), ["worker_id", "assignment_id", "image_id"]]
    return flag_columns({"worker_id": rows["worker_id"].tolist(), "rule": rule, "value": list(values),
                         "threshold": list(thresholds), "assignment_id": rows["assignment_id"].tolist(),
                         "image_id": rows["image_id"].tolist(), "detail": list(details)})


def share_flags(captions: pd.DataFrame, rule: str, share: float, what: str, *, min_captions: int = 1,
                strictly: bool = False) -> pd.DataFrame:
    found = captions.groupby("worker_id")["flagged"].agg(["sum", "count"])
    rate = found["sum"] / found["count"]
    passes = rate > share if strictly else rate >= share
    rows = [{"worker_id": w, "rule": rule, "value": round(rate[w], 3), "threshold": share,
             "detail": f"{int(r['sum'])} of {int(r['count'])} captions {what}"}
            for w, r in found[(found["count"] >= min_captions) & passes].iterrows()]
    return flag_frame(rows)


# --- qc/worker_rules.py --------------------------------------------------------------------------------


def _lone_canned(df: pd.DataFrame, params: dict[str, Any], used: bool) -> pd.DataFrame:
    rule = "canned_lone_use" if used else "canned_lone_nonuse"
    min_captions = int(params.get("lone_min_captions", 3))
    canned = df["is_precanned"].astype(bool)
    per_image = canned.groupby(df["image_id"])
    n, n_canned = per_image.transform("size"), per_image.transform("sum")
    odd_count = n_canned if used else n - n_canned
    lone = df[(n >= min_captions) & (odd_count == 1) & (canned == used)]
    if lone.empty:
        return flag_frame([])
    return flag_columns({"worker_id": lone["worker_id"].tolist(), "rule": rule, "value": 1,
                         "threshold": [f"only one of {total}" for total in n[lone.index].tolist()],
                         "assignment_id": lone["assignment_id"].tolist(), "image_id": lone["image_id"].tolist(),
                         "detail": f"{'used' if used else 'did not use'} the canned text alone"})


def duplicate_text(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    min_images = int(params.get("duplicate_min_images", 2))
    written = text_features.written(df)
    own = df.loc[written, ["worker_id", "image_id"]].copy()
    own["norm"] = np.array(text_features.folded(df), dtype=object)[written]
    own = own[(own["norm"] != "") & own.duplicated(["worker_id", "norm"], keep=False)]
    images = own.groupby(["worker_id", "norm"])["image_id"].nunique()
    rows = [
        {"worker_id": w, "rule": "duplicate_text", "value": int(n), "threshold": min_images,
         "detail": f"same caption on {int(n)} images: {norm[:100]}"}
        for (w, norm), n in images.items() if n >= min_images
    ]
    return flag_frame(rows)


def random_sample(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    share = float(params.get("random_sample_share", 0.05))
    assignments = df.drop_duplicates("assignment_id")
    if share <= 0 or assignments.empty:
        return flag_frame([])
    n = max(1, round(share * len(assignments)))
    before = set(params.get("sampled_before", ()))
    kept = assignments[assignments["assignment_id"].isin(before)]
    pool = assignments[~assignments["assignment_id"].isin(before | set(params.get("decided", ())))]
    more = pool.sample(n=min(len(pool), max(0, n - len(kept))), random_state=int(params.get("seed", 0)))
    picked = pd.concat([kept, more])
    if picked.empty:
        return flag_frame([])
    return flag_columns({"worker_id": picked["worker_id"].tolist(), "rule": "random_sample", "value": share,
                         "threshold": share, "assignment_id": picked["assignment_id"].tolist(), "image_id": "",
                         "detail": "picked for review"})


def assignment_times(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop_duplicates("assignment_id")[["worker_id", "work_time_s"]].dropna()


# --- qc/consensus_rules.py, qc/template_rules.py ------------------------------------------------------


def consensus_scores(df: pd.DataFrame, min_peers: int) -> pd.DataFrame:
    found = text_features.shared(df, "consensus_matches", lambda: consensus_rules._best_matches(df))
    if found is None:
        return pd.DataFrame(columns=["score", "peer", "peers"])
    own_index, (best, best_peer, peers) = found
    scored = peers >= min_peers
    return pd.DataFrame({"score": best[scored], "peer": own_index[best_peer[scored]], "peers": peers[scored]},
                        index=own_index[scored])


def consensus(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    threshold = float(consensus_rules._param(params, "consensus_threshold"))
    min_peers = int(consensus_rules._param(params, "consensus_min_peers"))
    scored = consensus_scores(df, min_peers)
    low = scored[scored["score"] < threshold]
    hits = [(i, round(float(r.score), 3), threshold,
             f"best of {int(r.peers)} peers {r.score:.2f}, {df.at[r.peer, 'worker_id']}: "
             f"{clip(df.at[r.peer, 'caption'], 100)}")
            for i, r in zip(low.index, low.itertuples(), strict=True)]
    found = caption_flags(df, "consensus", hits)
    info = consensus_rules._skipped_row(df, scored, min_peers)
    return pd.concat([found, flag_frame(info)], ignore_index=True) if info else found


def shared_template(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    min_images = int(consensus_rules._param(params, "shared_template_min_images"))
    own = consensus_rules._written(df)
    folded = np.array(text_features.folded(df), dtype=object)[text_features.written(df)]
    own["norm"] = [t.rstrip(FINAL_PUNCTUATION) for t in folded]
    own = own[(own["norm"] != "") & own["norm"].duplicated(keep=False)]
    pairs = own.drop_duplicates(["norm", "image_id"])["norm"].value_counts()
    common = pairs[pairs >= min_images]
    shared = own[own["norm"].isin(common.index)]
    images = shared["norm"].map(common)
    workers = shared["norm"].map(shared.groupby("norm")["worker_id"].nunique())
    hits = [(i, int(n), min_images, f"on {int(n)} images by {int(w)} worker(s): {clip(text, 100)}")
            for i, n, w, text in zip(shared.index, images, workers, shared["caption"], strict=True)]
    return caption_flags(df, "shared_template", hits)


def near_template_keys(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    n_words = int(template_rules._param(params, "near_template_words"))
    ceiling = float(template_rules._param(params, "near_template_consensus"))
    min_peers = int(params.get("consensus_min_peers", consensus_rules.DEFAULTS["consensus_min_peers"]))
    scored = consensus_scores(df, min_peers)
    low = scored[scored["score"] < ceiling]
    keys = pd.Series([template_rules.template_key(t, n_words) for t in df.loc[low.index, "caption"].tolist()],
                     index=low.index, dtype=object)
    keys = keys[keys != ""]
    images = df.loc[keys.index, "image_id"].groupby(keys).nunique()
    return pd.DataFrame({"key": keys, "images": keys.map(images).astype(int),
                         "score": low.loc[keys.index, "score"].astype(float)}, index=keys.index)


def near_template(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    min_images = int(template_rules._param(params, "near_template_min_images"))
    keyed = near_template_keys(df, params)
    found = keyed[keyed["images"] >= min_images]
    hits = [(i, int(r.images), min_images,
             f"opens like low-consensus captions on {int(r.images)} images ({clip(str(r.key), 60)!r}); "
             f"best peer {r.score:.2f}")
            for i, r in zip(found.index, found.itertuples(), strict=True)]
    return caption_flags(df, "near_template", hits)


# --- qc/telemetry_rules.py -------------------------------------------------------------------------------


def _judged(df: pd.DataFrame) -> pd.DataFrame:
    if not {"tm_present", "telemetry", "telemetry_log"} & set(df.columns):
        return telemetry_columns(df.iloc[:0])
    tm = df if "tm_present" in df.columns else telemetry_columns(df)
    return tm[tm["tm_present"].astype(bool) & ~tm["is_precanned"].astype(bool) & (tm["tm_final_len"] > 0)]


def _rows(hit: pd.DataFrame) -> zip[tuple[Any, dict[str, Any]]]:
    return zip(hit.index, hit[TM_COLUMNS].to_dict("records"), strict=True)


def paste_external(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """The share of the final text pasted from outside the page, own drafts aside, reaches
    ``paste_external_share``."""
    limit = float(params.get("paste_external_share", 0.5))
    tm = _judged(df)
    share = ((tm["tm_paste_external"] - tm["tm_paste_drafted"]) / tm["tm_final_len"]).clip(upper=1.0)
    hit = tm[share >= limit]
    return caption_flags(df, "paste_external", [
        (i, round(float(share[i]), 3), limit, f"{telemetry_rules.telemetry_in_words(r)}") for i, r in _rows(hit)])


def untyped_text(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Final text longer than typed + in-page pastes by ``untyped_share`` of it and ``untyped_min_chars``."""
    share = float(params.get("untyped_share", 0.5))
    least = int(params.get("untyped_min_chars", 20))
    tm = _judged(df)
    unexplained = tm["tm_final_len"] - tm["tm_typed"] - tm["tm_paste_page"] - tm["tm_paste_drafted"]
    hit = tm[(unexplained >= least) & (unexplained >= share * tm["tm_final_len"])]
    return caption_flags(df, "untyped_text", [
        (i, int(unexplained[i]), f">= {share:.0%} and {least}", f"{int(unexplained[i])} of {int(r['tm_final_len'])} "
         f"characters neither typed nor copied on the page; {telemetry_rules.telemetry_in_words(r)}")
        for i, r in _rows(hit)])


def switch_then_paste(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Left the tab or field, then pasted most of the caption from outside faster than anyone types it."""
    share = float(params.get("paste_external_share", 0.5))
    cps = float(params.get("switch_paste_cps", 8.0))
    tm = _judged(df)
    away_s = tm["tm_away_ms"].astype(float) / 1000.0
    speed = tm["tm_paste_external"] / away_s.clip(lower=0.5)
    hit = tm[tm["tm_hidden_before_paste"].astype(bool) & (tm["tm_paste_external"] >= share * tm["tm_final_len"])
             & (speed > cps)]
    return caption_flags(df, "switch_then_paste", [
        (i, round(float(speed[i]), 1), cps, f"away {away_s[i]:.1f} s, then pasted {int(r['tm_paste_external'])} "
         f"characters ({speed[i]:.0f}/s; typing them takes a person {r['tm_paste_external'] / cps:.0f}+ s)")
        for i, r in _rows(hit)])


def typing_cadence(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """``typing_min_chars``+ characters typed faster than ``max_typing_cps`` over the keystroke time."""
    cps = float(params.get("max_typing_cps", 25.0))
    least = int(params.get("typing_min_chars", 30))
    tm = _judged(df)
    active_s = tm["tm_active_ms"].astype(float) / 1000.0
    speed = tm["tm_typed"] / active_s.clip(lower=0.001)
    # only text that came with keystrokes: dictation, an input method or a script's fill() inserts text
    # without a keydown per character and has no cadence to judge
    keyed = tm["tm_keys"] >= 0.5 * tm["tm_typed"]
    hit = tm[(tm["tm_typed"] >= least) & keyed & (speed > cps)]
    return caption_flags(df, "typing_cadence", [
        (i, round(float(min(speed[i], 1e6)), 1), cps, f"typed {int(r['tm_typed'])} characters in "
         f"{active_s[i]:.2f} s of keystrokes") for i, r in _rows(hit)])


# --- swapping them in ------------------------------------------------------------------------------------

# under these names in any qc module
HELPERS = {"flag_frame": flag_frame, "flag_columns": flag_columns, "caption_flags": caption_flags,
           "share_flags": share_flags, "consensus_scores": consensus_scores, "assignment_times": assignment_times}
TELEMETRY_HELPERS = {"_judged": _judged}  # qc/telemetry_rules.py's own
OLD_RULES = {"canned_lone_use": lambda df, p: _lone_canned(df, p, used=True),
             "canned_lone_nonuse": lambda df, p: _lone_canned(df, p, used=False),
             "duplicate_text": duplicate_text, "consensus": consensus, "random_sample": random_sample,
             "shared_template": shared_template,
             "near_template": near_template, "paste_external": paste_external, "untyped_text": untyped_text,
             "switch_then_paste": switch_then_paste, "typing_cadence": typing_cadence}


@contextmanager
def before() -> Iterator[None]:
    """The live rules with the old helpers and the old versions of the rules the output-speed work rewrote (every
    ``qc`` module's name for a helper is swapped, then put back)."""
    swapped: list[tuple[object, str, object]] = []
    rules = dict(RULES)
    try:
        for name, module in list(sys.modules.items()):
            found = {**HELPERS, **TELEMETRY_HELPERS} if module is telemetry_rules else HELPERS
            for helper, old in found.items() if name.startswith("qc.") else ():
                if hasattr(module, helper):
                    swapped.append((module, helper, getattr(module, helper)))
                    setattr(module, helper, old)
        for name, fn in OLD_RULES.items():
            RULES[name] = RegisteredRule(name, RULES[name].level, fn)
        yield
    finally:
        for module, helper, live in reversed(swapped):
            setattr(module, helper, live)
        RULES.clear()
        RULES.update(rules)
