"""``hitflow qc`` and ``hitflow spellcheck``: the pure QC and spelling functions over files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from flows.config import load_config
from flows.errors import InputFormatError
from flows.submission_formats import read_submissions
from postprocess.spellcheck import spellcheck_frame
from qc.flags import FLAG_COLUMNS
from qc.runner import DEFAULT_RULES, prepare, run_rules
from qc.submit_rules import SubmitRules


def offline_qc(submissions: Path, out: Path, config: Path | None = None) -> int:
    frame = read_submissions(submissions)
    if config is not None:
        cfg = load_config(config)
        rules, params, enabled = cfg.submit_rules, dict(cfg.qc_params), cfg.qc_rules
    else:
        rules, params, enabled = SubmitRules(), {}, DEFAULT_RULES
    try:
        prepared = prepare(frame, rules.canned_text)
    except ValueError as exc:
        raise InputFormatError(f"{submissions}: {exc}") from exc
    flags = run_rules(prepared, {**params, "submit_rules": rules}, enabled)
    flags[FLAG_COLUMNS].to_csv(out, index=False)
    return len(flags)


def offline_spellcheck(path: Path, out: Path, min_workers: int = 3) -> int:
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise InputFormatError(f"{path}: cannot read it as CSV ({exc})") from exc
    if "caption" not in frame.columns:
        raise InputFormatError(f"{path}: no caption column; columns are {', '.join(frame.columns)}")
    checked = spellcheck_frame(frame, min_workers)
    checked.to_csv(out, index=False)
    return int((checked["edits"] != "").sum())
