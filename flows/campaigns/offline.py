"""``hitflow qc`` and ``hitflow spellcheck``: the pure QC and spelling functions over files."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

from flows.core.errors import InputFormatError
from flows.core.inputs.answer_key import DEFAULT_KEY, load_key
from flows.core.inputs.csv_files import read_csv_frame
from flows.core.inputs.csv_writing import write_csv
from flows.platforms.submission_formats import TRUE_TEXT, read_submissions
from qc.answer_faults import split_malformed
from qc.flags import FLAG_COLUMNS
from qc.runner import DEFAULT_RULES, TELEMETRY_RULES, prepare, run_rules
from qc.submit_rules import SubmitRules
from qc.text_kind import OFF_FOR_PASSAGES, rules_for_kind, text_kind

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Without a config no page text, so no instruction_echo; telemetry rules flag only rows that carry telemetry.
OFFLINE_RULES = (*DEFAULT_RULES, "consensus", "consensus_rate", "shared_template", "near_template", "quality_talk",
                 *TELEMETRY_RULES)


def offline_qc(submissions: Path, out: Path, config: Path | None = None, text_fields: tuple[str, ...] = (),
               time_outlier_method: str | None = None) -> int:
    """QC over a submissions file, the rules from ``config`` or the kind of text; unreadable rows flagged."""
    frame = read_submissions(submissions, text_fields)
    read, unread = split_malformed(frame)
    if config is not None:
        from flows.campaigns.page_text import qc_params  # the config's modules: a quarter second, only with one
        from flows.core.config.config import load_config

        cfg = load_config(config)
        rules, params, enabled = cfg.submit_rules, qc_params(cfg, cfg.seed), cfg.qc_rules
    else:
        kind = text_kind(read["caption"]) if len(read) else "caption"
        rules, params = rules_for_kind(SubmitRules(), kind), {}
        enabled = tuple(r for r in OFFLINE_RULES if kind == "caption" or r not in OFF_FOR_PASSAGES)
        if kind == "passage":
            print(f"note: {submissions}: most answers run past one sentence, so they are checked as passages: "
                  f"{' and '.join(OFF_FOR_PASSAGES)} are off (give --config to choose the rules)", file=sys.stderr)
    if time_outlier_method:
        params = {**params, "time_outlier_method": time_outlier_method}
    if params.get("page_text"):  # the config's rendered page: a logged paste of its text is from the page
        shown = frame["page_text"].fillna("") if "page_text" in frame.columns else ""
        frame["page_text"] = shown + "\n" + str(params["page_text"])
    try:
        prepared = prepare(frame, rules.canned_text)
    except ValueError as exc:
        raise InputFormatError(f"{submissions}: {exc}") from exc
    del frame, read  # prepare copied the columns: the file's own (~10 MB at 200,000 rows) go before the rules run
    flags = run_rules(prepared, {**params, "submit_rules": rules}, enabled)
    write_csv(flags[FLAG_COLUMNS], out)
    _warn_unreadable_telemetry(submissions, prepared)
    _say_unread(submissions, unread, out)
    return len(flags)


def _say_unread(path: Path, unread: pd.DataFrame, out: Path) -> None:
    """One ``file:line: reason`` line per row that could not be read, and a count (stderr)."""
    if unread.empty:
        return
    for line, reason in zip(unread["line"].astype(int), unread["malformed"].astype(str), strict=True):
        print(f"{path}:{line}: {_CONTROL.sub(' ', reason)}", file=sys.stderr)  # one line, no terminal escapes
    print(f"hitflow: {len(unread)} row(s) could not be read; each is a malformed_answer flag in {out}, the other "
          "rows were checked", file=sys.stderr)


def _warn_unreadable_telemetry(path: Path, prepared: pd.DataFrame) -> None:
    """Rows whose telemetry could not be read stay in QC with no telemetry; say so once, on stderr."""
    if "tm_error" not in prepared.columns:
        return
    bad = prepared[prepared["tm_error"] != ""]
    if not bad.empty:
        first = bad.iloc[0]
        print(f"warning: {path}: {len(bad)} caption(s) carry telemetry that cannot be read (first, assignment "
              f"{first['assignment_id']}: {first['tm_error']}); they are checked as if none was recorded",
              file=sys.stderr)


def offline_spellcheck(path: Path, out: Path, min_workers: int = 3) -> int:
    from flows.core.outputs.spelling_cache import spelling_index  # not loaded for ``hitflow qc``
    from postprocess.spellcheck import spellcheck_frame

    frame = read_csv_frame(path, ("caption",))
    typed = frame.copy()
    if "is_precanned" in frame.columns:  # read as text: "0" and "false" are not canned
        typed["is_precanned"] = frame["is_precanned"].str.strip().str.lower().isin(TRUE_TEXT)
    checked = spellcheck_frame(typed, min_workers, index=spelling_index())
    checked[frame.columns] = frame  # the input's columns as written
    write_csv(checked, out, for_spreadsheet=False)  # corrected captions are data
    return int((checked["edits"] != "").sum())


def offline_qualify(answers_path: Path, out: Path, key_path: Path = DEFAULT_KEY,
                    threshold: float = 80.0) -> tuple[int, int, Path]:
    """Score a qualification answers CSV; problems go beside the scores, never dropped."""
    from qc.qualification import score_answers

    key = load_key(key_path)
    answers = read_csv_frame(answers_path, ("worker_id", "item_id", "answer"))
    scores, problems = score_answers(answers, key, threshold)
    write_csv(scores, out)
    problems_path = write_csv(problems, out.with_name(out.stem + ".problems.csv"))
    return len(scores), len(problems), problems_path
