"""answers.csv and workers.csv: the files around postprocess.answers (which stays pure).

``hitflow aggregate LABELS.csv --out answers.csv`` reads the long format ``hitflow analyze
agreement`` reads (``item_id, worker_id, label`` [, ``field``]; comma or tab separated, rows a
study marked ``excluded`` left out) and writes ``answers.csv`` and ``workers.csv`` beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from flows.core.errors import InputFormatError
from flows.core.inputs.csv_files import read_csv_frame, write_csv
from postprocess.adaptive import Replay, StoppingRule, replay, saving
from postprocess.answers import DEFAULT_FIELD, REQUIRED, Aggregation, aggregate
from postprocess.label_hygiene import HygienePolicy, leave_out_workers, respell, tidy
from postprocess.skill_prior import SkillPrior
from qc.control_items import trusted_controls
from qc.worker_skill import SkillPolicy, pooled_columns, skill_scores

WORKERS_FILE = "workers.csv"
BLOCKED_FILE = "blocked_workers.csv"  # a campaign's, beside its dataset.csv (flows/campaigns/outputs.py)


def read_labels(path: Path, columns: tuple[str, str, str] | None = None) -> pd.DataFrame:
    """The judgements of ``path``; ``columns`` names the file's own item, worker and label columns."""
    # imported here: flows.studies.analysis brings the statistics libraries, which a campaign's outputs do not need
    from flows.studies.analysis import without_excluded

    frame = without_excluded(read_csv_frame(path, what="the labels file", delimiter="auto"))
    if columns:
        absent = [c for c in columns if c not in frame.columns]
        if absent:
            raise InputFormatError(f"{path}: no column(s) {', '.join(absent)}; --columns names the file's own "
                                   f"item, worker and label columns (it has {', '.join(frame.columns[:12])})")
        frame = frame.rename(columns=dict(zip(columns, REQUIRED, strict=True)))
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise InputFormatError(f"{path}: missing column(s) {', '.join(missing)}; the labels file needs "
                               f"{', '.join(REQUIRED)} [, field], or name yours with --columns ITEM,WORKER,LABEL")
    if frame["label"].astype(str).str.strip().eq("").all():
        raise InputFormatError(f"{path}: every label is blank; nothing to aggregate")
    _refuse_anonymous_labels(path, frame)
    return frame


def _refuse_anonymous_labels(path: Path, frame: pd.DataFrame) -> None:
    """A label without its item or worker cannot be aggregated; dropping it quietly would lose data
    (a blank label is the format's "no judgement", so those rows are not counted)."""
    labelled = frame["label"].astype(str).str.strip().ne("")
    for column in ("item_id", "worker_id"):
        blank = labelled & frame[column].astype(str).str.strip().eq("")
        if blank.any():
            lines = ", ".join(str(i + 2) for i in frame.index[blank][:5])  # +2: the header is line 1
            raise InputFormatError(f"{path}: {int(blank.sum())} labelled row(s) have no {column} (line(s) "
                                   f"{lines}{'...' if blank.sum() > 5 else ''}); fill it in or remove those rows")


def write_answers(result: Aggregation, answers_path: Path) -> tuple[Path, Path]:
    """answers.csv at ``answers_path`` and workers.csv beside it (formula cells neutralised)."""
    answers = result.answers.assign(confidence=result.answers["confidence"].round(4))
    if "stop_confidence" in answers:  # an adaptive replay's
        answers["stop_confidence"] = answers["stop_confidence"].astype(float).round(4)
    # the pooled control rule's (a campaign's, qc.worker_skill.POOLED_COLUMNS) figures too
    rounded = [c for c in ("skill", "agreement", "control_accuracy", "pooled_accuracy", "pooled_evidence",
                           "pooled_agreement") if c in result.workers.columns]
    workers = result.workers.assign(**{c: result.workers[c].astype(float).round(4) for c in rounded})
    if "pooled_p_above" in workers:  # a probability near 0 is the point: to 4 significant figures, not places
        workers["pooled_p_above"] = [float(f"{v:.4g}") for v in workers["pooled_p_above"].astype(float)]
    return (write_csv(answers, answers_path),
            write_csv(workers, Path(answers_path).parent / WORKERS_FILE))


def with_pooled(workers: pd.DataFrame, pooled: pd.DataFrame) -> pd.DataFrame:
    """workers.csv's rows with the pooled rule's columns; a worker it judged whose labels the answers
    left out (blocked) gets a row of their own, 0 items and no skill."""
    both = workers.merge(pooled, on="worker_id", how="outer").sort_values("worker_id", kind="stable")
    both["items"] = both["items"].fillna(0).astype(int)
    both["controls"] = both["controls"].fillna(0).astype(int)
    return both.reset_index(drop=True)[[*workers.columns, *pooled.columns.drop("worker_id")]]


def summary(result: Aggregation, gold: pd.Series | None = None) -> dict[str, Any]:
    """What a person checks first: counts, methods, confidence; accuracy when gold answers are given."""
    answers = result.answers
    out: dict[str, Any] = {"items": int(answers["item_id"].nunique()), "answers": len(answers),
                           "judgements": int(answers["judgements"].sum()), "workers": len(result.workers),
                           "methods": dict(sorted(answers.groupby("field")["method"].first().items())),
                           "mean_confidence": round(float(answers["confidence"].mean()), 4)}
    if gold is not None:
        known = answers[answers["item_id"].isin(gold.index)]
        hit = known["label"].to_numpy() == gold.reindex(known["item_id"]).to_numpy()
        out["gold_items"], out["accuracy"] = len(known), round(float(hit.mean()), 4) if len(known) else None
    return out


def tidy_labels(path: Path, frame: pd.DataFrame, hygiene: HygienePolicy, keep_blocked: bool = False
                ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``frame`` under ``hygiene`` (postprocess.label_hygiene), less the labels of the workers a campaign
    blocked (its ``blocked_workers.csv`` beside ``path``) unless ``keep_blocked``; what was done, counted."""
    blocked_path = Path(path).parent / BLOCKED_FILE
    counts: dict[str, Any] = {}
    if blocked_path.is_file():
        blocked = read_csv_frame(blocked_path, ("worker_id",), "the campaign's blocked workers", delimiter="auto")
        workers = set(blocked["worker_id"].str.strip()) - {""}
        if keep_blocked:
            counts = {"blocked_workers_kept": len(workers), "blocked_file": str(blocked_path)}
        else:
            frame, left_out = leave_out_workers(frame, workers)
            counts = {**left_out, "blocked_file": str(blocked_path)}
    try:
        tidied = tidy(frame, hygiene)
    except ValueError as exc:
        raise InputFormatError(f"{path}: {exc}") from exc
    if tidied.frame.empty:  # every label was a blocked worker's (read_labels refused an all-blank file)
        raise InputFormatError(f"{path}: no labels left once the {counts.get('blocked_workers_left_out', 0)} "
                               f"blocked worker(s) of {blocked_path} are left out; --keep-blocked keeps them")
    return tidied.frame, {**tidied.counts, **counts}


def _respelled(frame: pd.DataFrame | None, column: str, labels: pd.Series | None = None) -> Any:
    """``frame`` with ``column`` written as the folded labels spell it (``frame``'s own labels by default)."""
    if frame is None or not column:
        return frame
    return frame.assign(**{column: respell(frame[column], frame["label"] if labels is None else labels)})


def aggregate_file(path: Path, out: Path, method: str = "auto", min_per_worker: float = 3.0,
                   columns: tuple[str, str, str] | None = None, gold_column: str = "",
                   controls_path: Path | None = None, prior: SkillPrior | None = None,
                   hygiene: HygienePolicy | None = None, keep_blocked: bool = False,
                   progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """``hitflow aggregate``: read, tidy (``hygiene``, blocked workers), aggregate, write; the summary (with
    accuracy against ``gold_column`` and the tidying counted); ``prior``: method ``skill``'s; ``progress``
    is told each stage."""
    stage = progress or (lambda text: None)
    stage(f"reading and tidying {path}")
    frame, tidied = tidy_labels(path, read_labels(path, columns), hygiene or HygienePolicy(), keep_blocked)
    controls = read_csv_frame(controls_path, ("item_id", "answer"), "the control items file",
                              delimiter="auto") if controls_path else None
    if gold_column and gold_column not in frame.columns:
        raise InputFormatError(f"{path}: no column {gold_column!r} for --gold")
    if (hygiene or HygienePolicy()).fold_case:  # known answers in the labels' spelling ("good" gold, "Good" labels)
        frame, controls = _respelled(frame, gold_column), _respelled(controls, "answer", frame["label"])
    stage(f"aggregating {len(frame):,} labels ({method})")
    try:
        result = aggregate(frame, method, min_per_worker, controls=controls, prior=prior)
    except ValueError as exc:
        raise InputFormatError(f"{path}: {exc}") from exc
    if controls is not None:
        result = Aggregation(result.answers, with_pooled(result.workers, pooled_offline(frame, controls)))
    stage(f"writing {out}")
    answers_path, workers_path = write_answers(result, out)
    gold = _gold(frame, gold_column) if gold_column else None
    return {"answers_file": str(answers_path), "workers_file": str(workers_path), **summary(result, gold),
            "hygiene": tidied}


def replay_file(path: Path, out: Path, rule: StoppingRule, columns: tuple[str, str, str] | None = None,
                gold_column: str = "", seconds_column: str = "", sweep: tuple[float, ...] = (),
                hygiene: HygienePolicy | None = None, keep_blocked: bool = False) -> dict[str, Any]:
    """``hitflow aggregate --adaptive``: the judgements an adaptive campaign would have used of ``path``;
    answers.csv gets ``judgements_used`` and ``available`` per item. ``seconds_column``: each label's work
    time (the rule's ``fast_share``); ``sweep``: the same replay at each of these confidences too, beside
    the answers from every label (``sweep`` in the summary); ``hygiene``, ``keep_blocked``: as aggregate_file's."""
    frame, tidied = tidy_labels(path, read_labels(path, columns), hygiene or HygienePolicy(), keep_blocked)
    frame = _with_seconds(path, frame, seconds_column)
    if gold_column and gold_column not in frame.columns:
        raise InputFormatError(f"{path}: no column {gold_column!r} for --gold")
    if (hygiene or HygienePolicy()).fold_case:
        frame = _respelled(frame, gold_column)
    gold = _gold(frame, gold_column) if gold_column else None
    try:
        replayed = replay(frame, rule)
        workers = aggregate(replayed.used, rule.method).workers
        swept = sweep_confidences(frame, rule, sweep, gold, replayed) if sweep else None
    except ValueError as exc:
        raise InputFormatError(f"{path}: {exc}") from exc
    result = Aggregation(replayed.answers, workers)
    answers_path, workers_path = write_answers(result, out)
    return {"answers_file": str(answers_path), "workers_file": str(workers_path),
            **summary(result, gold), **saving(replayed, frame), **({"sweep": swept} if swept else {}),
            "hygiene": tidied}


def sweep_confidences(frame: pd.DataFrame, rule: StoppingRule, confidences: tuple[float, ...],
                      gold: pd.Series | None, at_rule: Replay | None = None) -> list[dict[str, Any]]:
    """One row per confidence (and first one for every label, ``confidence`` None): the share of the
    file's judgements the rule uses, how often its answer is the one every label gives, and its accuracy
    against ``gold``. How a requester picks a confidence from an old batch before spending. ``at_rule``:
    the replay at ``rule.confidence`` if already made (it is not made again)."""
    full = aggregate(frame, rule.method).answers.set_index(["item_id", "field"])["label"]
    rows = []
    for confidence in (None, *confidences):
        if confidence is None:
            answers, share = full.reset_index(), 1.0
        else:
            replayed = (at_rule if at_rule is not None and confidence == rule.confidence
                        else replay(frame, replace(rule, confidence=confidence)))
            answers, share = replayed.answers, float(saving(replayed, frame)["share_used"])
        keyed = answers.set_index(["item_id", "field"])["label"]
        row: dict[str, Any] = {"confidence": confidence, "share_used": round(share, 4),
                               "same_as_all_labels": round(float((keyed == full.reindex(keyed.index)).mean()), 4)}
        if gold is not None:
            row["accuracy"] = round(float((keyed.to_numpy() == gold.reindex(
                keyed.index.get_level_values("item_id")).to_numpy()).mean()), 4)
        rows.append(row)
    return rows


def _with_seconds(path: Path, frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """``frame`` with ``column`` as its ``seconds`` (each label's work time), or as it is."""
    if not column:
        return frame
    if column not in frame.columns:
        raise InputFormatError(f"{path}: no column {column!r} for --seconds (it has {', '.join(frame.columns[:12])})")
    seconds = pd.to_numeric(frame[column], errors="coerce")
    if seconds.notna().sum() == 0:
        raise InputFormatError(f"{path}: column {column!r} holds no number of seconds; --seconds names each "
                               f"label's work time (MTurk's WorkTimeInSeconds)")
    impossible = seconds.lt(0) | seconds.isin([float("inf"), float("-inf")])
    if impossible.any():  # a -1 "unknown" taken as a time would make its worker one of the fast ones
        lines = ", ".join(str(i + 2) for i in frame.index[impossible][:5])  # +2: the header is line 1
        raise InputFormatError(f"{path}: column {column!r} has {int(impossible.sum())} work time(s) below zero or "
                               f"without end (line(s) {lines}{'...' if impossible.sum() > 5 else ''}); leave an "
                               "unknown time blank")
    return frame.drop(columns=[c for c in ("seconds",) if c != column and c in frame.columns]).assign(seconds=seconds)


def _gold(frame: pd.DataFrame, column: str) -> pd.Series:
    """Each item's known answer (its first row's ``column``), by item_id."""
    gold = frame.assign(item_id=frame["item_id"].astype(str).str.strip()).drop_duplicates("item_id")
    return gold.set_index("item_id")[column].astype(str).str.strip()


def pooled_offline(frame: pd.DataFrame, controls: pd.DataFrame) -> pd.DataFrame:
    """The pooled control rule (qc/worker_skill.py, its campaign defaults) over a labels file and its
    controls: each worker's ``pooled_*`` columns. A ``page`` column groups a page's labels (its cap);
    without one, each label is a page of its own."""
    given = pd.DataFrame({"worker_id": _stripped(frame, "worker_id"), "item_id": _stripped(frame, "item_id"),
                          "field": _stripped(frame, "field", DEFAULT_FIELD), "value": _stripped(frame, "label")})
    if "page" in frame.columns:
        given["unit"] = _stripped(frame, "page")
    given = given[(given["worker_id"] != "") & (given["item_id"] != "")]
    key = pd.DataFrame({"item_id": _stripped(controls, "item_id"), "field": _stripped(controls, "field", DEFAULT_FIELD),
                        "answer": _stripped(controls, "answer")})
    policy = SkillPolicy()
    trusted = trusted_controls(given[given["item_id"].isin(set(key["item_id"]))], key)
    return pooled_columns(skill_scores(given, trusted, policy), policy)


def _stripped(source: pd.DataFrame, column: str, default: str = "") -> pd.Series:
    if column not in source.columns:
        return pd.Series(default, index=source.index, dtype=str)
    return source[column].astype(str).str.strip()
