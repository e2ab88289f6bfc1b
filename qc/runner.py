"""One runner applies every enabled rule and returns one flag table: every rule sees every row, a rule that
cannot run is a ``rule_error`` row, and an unreadable answer is ``malformed_answer`` and kept from the rest."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from qc import (  # noqa: F401  (registers the rules)
    answer_faults,
    caption_rules,
    consensus_rules,
    echo_rules,
    exceptional_speed,
    quality_talk,
    short_answer,
    skipped_required,
    source_copy,
    telemetry_rules,
    template_rules,
    text_features,
    worker_rules,
)
from qc.flags import FLAG_COLUMNS, RULES, flag_frame
from qc.submit_rules import CANNED_TEXT
from qc.telemetry_frame import telemetry_columns

DEFAULT_RULES = (
    "time_outlier", "caps_lock", "canned_overuse", "canned_lone_use", "canned_lone_nonuse",
    "quality_words", "random_sample", "duplicate_text", "required", "min_words", "one_sentence",
    "banned_prefix", "max_chars",
)
# Caption-text rules beyond the seed: on when a config names them.
TEXT_RULES = ("consensus", "consensus_rate", "shared_template", "near_template", "instruction_echo", "quality_talk",
              "quality_words_rate",  # the seed's quality-word trigger as a worker's rate
              "source_copy",  # an answer that is its item's text or the page's, copied back
              "short_answer")  # far shorter than the other workers' answers on the same item
# How the text arrived: on when a config names them; absent telemetry never flags.
TELEMETRY_RULES = telemetry_rules.TELEMETRY_RULES
KNOWN_RULES = DEFAULT_RULES + TEXT_RULES + TELEMETRY_RULES
REQUIRED_COLUMNS = ("assignment_id", "worker_id", "image_id", "caption")


def prepare(df: pd.DataFrame, canned_text: str = CANNED_TEXT) -> pd.DataFrame:
    """Check the column contract and add ``is_precanned`` (by text) when it is missing."""
    if missing := [c for c in REQUIRED_COLUMNS if c not in df.columns]:
        raise ValueError(f"missing column(s) {', '.join(missing)}; expected {', '.join(REQUIRED_COLUMNS)}")
    out = df.copy()
    if "malformed" in out.columns:  # the reason a row could not be read; "" for every row that was
        out["malformed"] = out["malformed"].fillna("").astype(str)
    out["caption"] = out["caption"].fillna("").astype(str)
    for col in ("assignment_id", "worker_id", "image_id"):
        out[col] = out[col].astype(str)
    if "is_precanned" not in out.columns:
        out["is_precanned"] = text_features.canned_mask(out["caption"], canned_text)
    blank = out["is_precanned"].isna()  # a blank cell says nothing (astype(bool) would read NaN as True)
    if blank.any():  # so the text decides, as it does for a missing column
        by_text = pd.Series(text_features.canned_mask(out["caption"], canned_text), index=out.index)
        out["is_precanned"] = out["is_precanned"].where(~blank, by_text)
    out["is_precanned"] = out["is_precanned"].astype(bool)
    if "work_time_s" not in out.columns:
        out["work_time_s"] = float("nan")
    out = out.reset_index(drop=True)
    if ("telemetry" in out.columns or "telemetry_log" in out.columns) and "tm_present" not in out.columns:
        out = telemetry_columns(out)  # parsed once here, read by every telemetry rule
    return out


def run_rules(df: pd.DataFrame, params: dict[str, Any] | None = None,
              enabled: Iterable[str] = DEFAULT_RULES) -> pd.DataFrame:
    """All enabled rules over one batch of captions; one table with a row per flag."""
    params = params or {}
    df, unread = answer_faults.split_malformed(df)
    flags = _rules_over(df, params, [name for name in enabled if name not in answer_faults.ALWAYS_ON])
    malformed = answer_faults.malformed_answer(unread, params)
    # joined after the others: their table (its number columns' types) is the same as without the row
    return flags if malformed.empty else pd.concat([malformed, flags], ignore_index=True)[FLAG_COLUMNS]


def _rules_over(df: pd.DataFrame, params: dict[str, Any], enabled: list[str]) -> pd.DataFrame:
    with text_features.batch(df, enabled) as names:  # features several rules read are computed once for this batch
        frames = [_run_rule(name, df, params) for name in names]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return flag_frame([])
    joined = pd.concat(frames, ignore_index=True)
    # in order when every rule kept to the contract: selecting the columns again copied the table
    return joined if list(joined.columns) == FLAG_COLUMNS else joined[FLAG_COLUMNS]


def _run_rule(name: str, df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    rule = RULES.get(name)
    if rule is None:
        return flag_frame([{"worker_id": "", "rule": "rule_error", "value": name,
                            "threshold": "", "detail": f"unknown rule {name!r}"}])
    try:
        return rule.fn(df, params)
    except (KeyError, ValueError, TypeError) as exc:
        return flag_frame([{"worker_id": "", "rule": "rule_error", "value": name,
                            "threshold": "", "detail": f"{type(exc).__name__}: {exc}"}])


