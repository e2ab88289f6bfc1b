"""``hitflow ui``: a campaign's answers and worker skill from its outputs."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from flows.core.outputs.output_mirror import read_output

THRESHOLD = 0.9  # [answers] threshold's default, for a campaign whose config cannot be read
LEAST_SURE = 20
WORKER_COLUMNS = ("worker_id", "skill", "items", "agreement", "control_accuracy", "controls")
# the pooled control rule's, in a campaign planned with it (postprocess.answers.worker_skill.POOLED_COLUMNS)
POOLED = ("pooled_status", "pooled_p_above", "pooled_accuracy", "pooled_controls_right", "pooled_controls",
          "pooled_labels", "pooled_pages", "pooled_agreement", "pooled_evidence")


def answers_view(out_root: str | Path, campaign: str, threshold: float = THRESHOLD) -> dict[str, Any] | None:
    """The overview's answers section of a campaign, or None without answers.csv; ``threshold``: its threshold."""
    import pandas as pd  # here: `hitflow --help` imports no pandas

    raw = read_output(out_root, campaign, "answers.csv")
    if raw is None:
        return None
    answers = pd.read_csv(io.BytesIO(raw), dtype=str, keep_default_na=False)
    confidence = pd.to_numeric(answers.get("confidence", pd.Series(dtype=str)), errors="coerce")
    least = answers.assign(c=confidence).sort_values(["c", "item_id"], kind="stable").head(LEAST_SURE)
    workers_raw = read_output(out_root, campaign, "workers.csv")
    workers = pd.read_csv(io.BytesIO(workers_raw), dtype=str, keep_default_na=False) if workers_raw else None
    rows, pooled = [], workers is not None and set(POOLED) <= set(workers.columns)
    if workers is not None:
        # least skilled first; with the pooled rule, least likely above its line first
        key = "pooled_p_above" if pooled else "skill"
        order = pd.to_numeric(workers.get(key, pd.Series(dtype=str)), errors="coerce")
        ordered = workers.assign(s=order).sort_values(["s", "worker_id"], kind="stable")
        columns = (*WORKER_COLUMNS, *POOLED) if pooled else WORKER_COLUMNS
        rows = [{**{k: _shown(r.get(k, ""), k) for k in columns},
                 **({"pooled_p_above": _percent(r["pooled_p_above"])} if pooled else {})}
                for r in ordered.to_dict("records")]
    return {"pooled": pooled, "count": len(answers), "fields": sorted(set(answers.get("field", []))),
            "methods": sorted(set(answers.get("method", []))),
            "mean_confidence": f"{confidence.mean():.3f}" if confidence.notna().any() else "",
            "below": int((confidence < threshold).sum()), "threshold": f"{threshold:g}",
            "least_sure": [{k: _shown(r.get(k, ""), k) for k in ("item_id", "field", "label", "confidence",
                                                                 "judgements")}
                           for r in least.to_dict("records")],
            "workers": rows}


# a share to three places, a count whole, anything else as written
SHARES = {"confidence", "skill", "agreement", "control_accuracy", "pooled_accuracy", "pooled_agreement",
          "pooled_evidence"}
COUNTS = {"judgements", "items", "controls", "pooled_controls", "pooled_controls_right", "pooled_labels",
          "pooled_pages"}


def _shown(value: Any, column: str) -> str:
    """``column``'s value as the page shows it (the template escapes it)."""
    if column not in SHARES | COUNTS:
        return str(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if number != number:  # NaN: nothing to show
        return ""
    return f"{number:.3f}" if column in SHARES else f"{number:.0f}"


def _percent(value: str) -> str:
    """workers.csv's probability (to four significant figures) as the report shows it."""
    from postprocess.answers.worker_skill import shown_p  # here: `hitflow --help` imports no pandas

    try:
        return shown_p(float(value))
    except ValueError:
        return value


def campaign_threshold(config_path: str) -> float:
    """The campaign's ``[answers] threshold``, or the default when the config no longer loads."""
    from flows.core.config.config import load_config
    from flows.core.errors import HitflowError

    if not config_path:
        return THRESHOLD
    try:
        return float(load_config(config_path).answers.threshold)
    except (HitflowError, OSError):
        return THRESHOLD
