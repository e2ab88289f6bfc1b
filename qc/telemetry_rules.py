"""Rules over text telemetry: how a caption's text arrived, not what it says (thresholds: docs/authenticity.md).
Input columns: ``assignment_id, worker_id, image_id, caption, is_precanned`` plus the ``tm_*`` columns
(:mod:`qc.telemetry_frame`). No telemetry never flags; in-page pastes are never "external"."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qc import text_features
from qc.caption_rules import caption_flags
from qc.flags import register
from qc.telemetry_frame import TM_COLUMNS, telemetry_columns

TELEMETRY_RULES = ("paste_external", "untyped_text", "switch_then_paste", "typing_cadence")
# Their block rates sit with the other rules' in qc/decisions.py CAPTION_BLOCK_RATES.


def _judged(df: pd.DataFrame) -> pd.DataFrame:
    """The captions a telemetry rule may judge (telemetry present, not canned), once a batch."""
    return text_features.shared(df, "telemetry_judged", lambda: _judgeable(df))


def _judgeable(df: pd.DataFrame) -> pd.DataFrame:
    tm = df if "tm_present" in df.columns else telemetry_columns(df)  # qc.runner.prepare adds them once per batch
    return tm[tm["tm_present"].astype(bool) & ~tm["is_precanned"].astype(bool) & (tm["tm_final_len"] > 0)]


@register("paste_external", "caption")
def paste_external(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """The share of the final text pasted from outside the page, own drafts aside, reaches ``paste_external_share``."""
    limit = float(params.get("paste_external_share", 0.5))
    tm = _columns(df)
    share = ((tm["tm_paste_external"] - tm["tm_paste_drafted"]) / tm["tm_final_len"]).clip(None, 1.0)
    return caption_flags(df, "paste_external", [
        (i, round(float(share[k]), 3), limit, telemetry_in_words(r)) for i, k, r in _hits(df, share >= limit)])


@register("untyped_text", "caption")
def untyped_text(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Final text longer than typed + in-page pastes by ``untyped_share`` of it and ``untyped_min_chars``."""
    share = float(params.get("untyped_share", 0.5))
    least = int(params.get("untyped_min_chars", 20))
    tm = _columns(df)
    unexplained = tm["tm_final_len"] - tm["tm_typed"] - tm["tm_paste_page"] - tm["tm_paste_drafted"]
    hit = (unexplained >= least) & (unexplained >= share * tm["tm_final_len"])
    return caption_flags(df, "untyped_text", [
        (i, int(unexplained[k]), f">= {share:.0%} and {least}", f"{int(unexplained[k])} of {int(r['tm_final_len'])} "
         f"characters neither typed nor copied on the page; {telemetry_in_words(r)}") for i, k, r in _hits(df, hit)])


@register("switch_then_paste", "caption")
def switch_then_paste(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Left the tab or field, then pasted most of the caption from outside faster than anyone types it."""
    share = float(params.get("paste_external_share", 0.5))
    cps = float(params.get("switch_paste_cps", 8.0))
    tm = _columns(df)
    away_s = tm["tm_away_ms"].astype(float) / 1000.0
    speed = tm["tm_paste_external"] / away_s.clip(0.5, None)
    hit = (tm["tm_hidden_before_paste"].astype(bool) & (tm["tm_paste_external"] >= share * tm["tm_final_len"])
           & (speed > cps))
    return caption_flags(df, "switch_then_paste", [
        (i, round(float(speed[k]), 1), cps, f"away {away_s[k]:.1f} s, then pasted {int(r['tm_paste_external'])} "
         f"characters ({speed[k]:.0f}/s; typing them takes a person {r['tm_paste_external'] / cps:.0f}+ s)")
        for i, k, r in _hits(df, hit)])


@register("typing_cadence", "caption")
def typing_cadence(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """``typing_min_chars``+ characters typed faster than ``max_typing_cps`` over the keystroke time."""
    cps = float(params.get("max_typing_cps", 25.0))
    least = int(params.get("typing_min_chars", 30))
    tm = _columns(df)
    active_s = tm["tm_active_ms"].astype(float) / 1000.0
    speed = tm["tm_typed"] / active_s.clip(0.001, None)
    # only text that came with keystrokes: dictation, an IME or a script's fill() has no cadence to judge
    keyed = tm["tm_keys"] >= 0.5 * tm["tm_typed"]
    hit = (tm["tm_typed"] >= least) & keyed & (speed > cps)
    return caption_flags(df, "typing_cadence", [
        (i, round(float(min(speed[k], 1e6)), 1), cps, f"typed {int(r['tm_typed'])} characters in "
         f"{active_s[k]:.2f} s of keystrokes") for i, k, r in _hits(df, hit)])


def _columns(df: pd.DataFrame) -> dict[str, Any]:
    """The judged captions' ``tm_*`` columns by position (numpy where possible); empty when none is judged (most
    files and pages: no telemetry), so no rule flags."""
    def columns() -> dict[str, Any]:
        tm = _judged(df) if {"tm_present", "telemetry", "telemetry_log"} & set(df.columns) else None
        if tm is None or tm.empty:
            return dict.fromkeys(TM_COLUMNS, np.empty(0))
        return {c: tm[c].to_numpy() if isinstance(tm[c].dtype, np.dtype) and tm[c].dtype.kind in "biuf"
                else tm[c].reset_index(drop=True) for c in TM_COLUMNS}

    return text_features.shared(df, "telemetry_columns", columns)


def _hits(df: pd.DataFrame, hit: Any) -> list[tuple[Any, int, dict[str, Any]]]:
    """(index, position among the judged captions, the caption's tm_* values) per flagged caption."""
    found = np.flatnonzero(np.asarray(hit, dtype=bool))
    if not len(found):  # most batches
        return []
    tm = _judged(df)
    values = [tm[c].tolist() for c in TM_COLUMNS]  # what to_dict("records") gives, without a frame of the columns
    return [(tm.index[k], k, dict(zip(TM_COLUMNS, (v[k] for v in values), strict=True))) for k in found.tolist()]


def telemetry_in_words(row: dict[str, Any]) -> str:
    """One caption's telemetry as a person reads it: "typed 64 characters, pasted 0"."""
    if not row.get("tm_present"):
        return "no telemetry recorded" + (f" ({row['tm_error']})" if row.get("tm_error") else "")
    parts = [f"typed {int(row['tm_typed'])} characters", f"pasted {int(row['tm_paste_external'])} from outside "
             f"the page" if row["tm_paste_external"] else f"pasted {int(row['tm_paste_page'])}"]
    if row["tm_paste_external"] and row["tm_paste_page"]:
        parts.append(f"{int(row['tm_paste_page'])} from the page")
    elif row["tm_paste_page"] and not row["tm_paste_external"]:
        parts[-1] += " from the page"
    if row.get("tm_deleted"):
        parts.append(f"deleted {int(row['tm_deleted'])}")
    away = row.get("tm_away_ms")
    if row.get("tm_hidden_before_paste") and away is not None and np.isfinite(away):
        parts.append(f"left the page {float(away) / 1000:.0f} s before pasting")
    if row.get("tm_final_len") is not None:
        parts.append(f"final text {int(row['tm_final_len'])} characters")
    return ", ".join(parts)
