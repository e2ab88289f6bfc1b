"""``hitflow qc`` and ``hitflow spellcheck``: the pure QC and spelling functions over files."""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from flows.core.errors import InputFormatError
from flows.core.inputs.answer_key import DEFAULT_KEY, load_key
from flows.core.inputs.csv_files import read_csv_frame
from flows.core.inputs.csv_writing import write_csv
from flows.platforms.submission_formats import TRUE_TEXT, read_submissions
from qc.answer_faults import split_malformed
from qc.flags import FLAG_COLUMNS
from qc.runner import DEFAULT_RULES, TELEMETRY_RULES, prepare, run_rules
from qc.submit_candidates import OFF_FOR_PASSAGES, rules_for_kind, text_kind
from qc.submit_rules import SubmitRules

if TYPE_CHECKING:
    from flows.core.config.config import CampaignConfig

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Without a config no page text, so no instruction_echo; telemetry rules flag only rows that carry telemetry.
OFFLINE_RULES = (*DEFAULT_RULES, "consensus", "consensus_rate", "shared_template", "near_template", "quality_talk",
                 *TELEMETRY_RULES)


def offline_qc(submissions: Path, out: Path, config: Path | None = None, text_fields: tuple[str, ...] = (),
               time_outlier_method: str | None = None) -> int:
    """QC over a submissions file, the rules from ``config`` or the kind of text; unreadable rows flagged."""
    cfg = None
    if config is not None:
        from flows.core.config.config import load_config  # the config's modules: a quarter second, only with one

        cfg = load_config(config)
    if config is not None and cfg is not None and cfg.task == "custom":
        header = _header(submissions)
        if any(c.startswith("Answer.") for c in header):  # a platform's results file, not the QC's own columns
            return _own_page_qc(cfg, config, submissions, out, text_fields, header)
    frame = read_submissions(submissions, text_fields)
    read, unread = split_malformed(frame)
    if cfg is not None:
        from flows.campaigns.page_text import qc_params

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


def _own_page_qc(cfg: CampaignConfig, config: Path, submissions: Path, out: Path, named: tuple[str, ...],
                 header: set[str]) -> int:
    """An own page's free-text answers, each field by its own rules as the run checks them (choices: in the run)."""
    from flows.custom.custom_task import field_base, first_page_rows, masked_page
    from flows.custom.custom_text_qc import page_reading, text_flags

    first = first_page_rows(cfg)
    reading = page_reading(masked_page(cfg, first))
    columns = named or _page_text_fields(cfg, config, submissions, first, header)
    full = {field_base(n): n for n in reading["field_questions"]}  # the file may name ``why`` for ``why_0``
    frame = read_submissions(submissions, columns)
    unread = split_malformed(frame)[1]
    try:
        prepared = prepare(frame, cfg.submit_rules.canned_text)
    except ValueError as exc:
        raise InputFormatError(f"{submissions}: {exc}") from exc
    fields = [full.get(c, c) for c in prepared["telemetry_field"].astype(str)] if len(prepared) else []
    texts = prepared.assign(field=fields, answer=prepared["caption"], kind="text")
    params = {**cfg.qc_params, "seed": cfg.seed, **reading}
    found = [f for f in text_flags(texts, params, cfg.qc_rules) if not f.empty]
    flags = pd.concat(found, ignore_index=True) if found else pd.DataFrame(columns=FLAG_COLUMNS)
    write_csv(flags[FLAG_COLUMNS], out)
    _say_unread(submissions, unread, out)
    return len(flags)


def _header(submissions: Path) -> set[str]:
    """The file's column names (none when it cannot be read: read_submissions says why)."""
    try:
        with submissions.open(encoding="utf-8-sig", errors="replace") as f:
            return set(next(csv.reader(f), []))
    except OSError:
        return set()


def _page_text_fields(cfg: CampaignConfig, config: Path, submissions: Path, first: list[dict[str, Any]],
                      header: set[str]) -> tuple[str, ...]:
    """An own page's free-text fields the file answers (``why_0`` or ``why``), read when ``--text-field`` names none."""
    from flows.core.pages.templates import page_items
    from flows.custom.custom_task import custom_spec, field_base, field_kind

    names = [f["name"] for f in custom_spec(cfg, page_items(first))["fields"] if field_kind(f) == "text"]
    if not names:
        raise InputFormatError(f"{config}: its page asks for no free text, and offline qc checks free text; its "
                               "choices are checked as the campaign runs (hitflow run, hitflow review)")
    for candidates in (names, list(dict.fromkeys(field_base(n) for n in names))):
        if found := tuple(n for n in candidates if f"Answer.{n}" in header):
            return found
    raise InputFormatError(f"{submissions}: no answer column for the page's free text (Answer.{names[0]} or "
                           f"Answer.{field_base(names[0])}); name the column with --text-field NAME")


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
