"""Attention checks scored on every kind's batch (qc/attention_checks.py), joined to its flags."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pandas as pd

from flows.core.config.config import CampaignConfig
from flows.core.pages.mturk_forms import answer_fields
from flows.core.run.run_context import Run
from qc.attention_checks import AttentionCheck, attention_failed, failures_to_reject, field_name


def study_minutes(cfg: CampaignConfig) -> int:
    """The study's length that sets how many failed checks may reject (``[attention] study_minutes`` or an estimate)."""
    return cfg.attention.study_minutes or cfg.prolific.estimated_minutes


def attention_params(cfg: CampaignConfig) -> dict[str, object]:
    return {"attention_checks": list(cfg.attention.checks),
            "attention_reject_at": failures_to_reject(study_minutes(cfg))}


def check_answers(fields: dict[str, str], i: int, check: AttentionCheck) -> str | tuple[str, ...]:
    """A response's answer to check ``i``; to a page's own check, its answer on each item the page showed."""
    if not check.field:
        return fields.get(field_name(i), "")
    shown = {int(m[1]) for n in fields if (m := re.fullmatch(rf"(?:image_id|{re.escape(check.field)})_(\d+)", n))}
    return tuple(fields.get(f"{check.field}_{n}", "") for n in sorted(shown))


def attention_frame(run: Run, batch: int) -> pd.DataFrame:
    """One row per readable response of the batch: ``assignment_id, worker_id``, its ``minutes`` and each check's
    answer."""
    checks = run.cfg.attention.checks
    names = [field_name(i) for i in range(len(checks))]
    rows = []
    for a in run.store.rows("SELECT assignment_id, worker_id, answer_xml, (submit_time - accept_time) / 60.0 AS "
                            "minutes FROM assignments WHERE campaign = ? AND "
                            "batch = ? AND status != 'NOT ON PROLIFIC'", [run.cfg.name, batch]):
        try:
            fields = answer_fields(a["answer_xml"] or "")
        except ET.ParseError:  # flagged malformed_answer by the kind's QC: what it says is not known
            continue
        rows.append({"assignment_id": a["assignment_id"], "worker_id": a["worker_id"], "minutes": a["minutes"] or 0,
                     **{n: check_answers(fields, i, c) for i, (n, c) in enumerate(zip(names, checks, strict=True))}})
    return pd.DataFrame(rows, columns=["assignment_id", "worker_id", "minutes", *names])


def attention_flags(run: Run, batch: int) -> pd.DataFrame | None:
    """The batch's attention flags; None when the campaign's pages carry no checks."""
    attention = getattr(run.cfg, "attention", None)  # a stand-in config of a test or a tool may carry none
    if attention is None or not attention.checks:
        return None
    return attention_failed(attention_frame(run, batch), attention_params(run.cfg))
