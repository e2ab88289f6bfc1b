"""``hitflow aggregate LABELS.csv``: answers.csv and workers.csv around postprocess.answers.aggregation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from flows.answers.control_items import pooled_offline
from flows.answers.field_answers import number_like
from flows.answers.label_files import faults_of, only_fields, respelled, tidy_labels, without_excluded
from flows.core.errors import InputFormatError
from flows.core.inputs.csv_files import read_answer_table, read_csv_frame
from flows.core.inputs.csv_writing import write_csv
from postprocess.answers.aggregation import Aggregation, aggregate, aggregate_scored
from postprocess.answers.calibration import scored
from postprocess.answers.judgements import REQUIRED
from postprocess.answers.label_hygiene import HygienePolicy
from postprocess.answers.reliability import noise_floor
from postprocess.answers.skill_prior import SkillPrior
from postprocess.answers.unchecked import UNCHECKED

if TYPE_CHECKING:  # the adaptive replay brings scipy.special: imported by the replay alone
    from postprocess.answers.adaptive import Replay, StoppingRule


def read_labels(path: Path, columns: tuple[str, str, str] | None = None) -> pd.DataFrame:
    """The judgements of ``path`` (``columns``: item, worker, label); unread rows in ``attrs["unread_rows"]``."""
    table, faults = read_answer_table(path, what="the labels file", delimiter="auto")
    frame = without_excluded(table.frame())
    frame.attrs["unread_rows"] = [{"line": f.line, "reason": f.reason} for f in faults]  # the summary's
    if columns:
        absent = [c for c in columns if c not in frame.columns]
        if absent:
            raise InputFormatError(f"{path}: no column(s) {', '.join(absent)}; --columns names the file's own "
                                   f"item, worker and label columns (it has {', '.join(frame.columns[:12])})")
        frame = frame.rename(columns=dict(zip(columns, REQUIRED, strict=True)))
    if missing := [c for c in REQUIRED if c not in frame.columns]:
        raise InputFormatError(f"{path}: missing column(s) {', '.join(missing)}; the labels file needs "
                               f"{', '.join(REQUIRED)} [, field], or name yours with --columns ITEM,WORKER,LABEL")
    if frame["label"].astype(str).str.strip().eq("").all():
        raise InputFormatError(f"{path}: every label is blank; nothing to aggregate")
    _refuse_anonymous_labels(path, frame)
    return frame


def _refuse_anonymous_labels(path: Path, frame: pd.DataFrame) -> None:
    """A label without its item or worker cannot be aggregated, and dropping it quietly would lose data."""
    labelled = frame["label"].astype(str).str.strip().ne("")
    for column in ("item_id", "worker_id"):
        blank = labelled & frame[column].astype(str).str.strip().eq("")
        if blank.any():
            lines = ", ".join(str(i + 2) for i in frame.index[blank][:5])  # +2: the header is line 1
            raise InputFormatError(f"{path}: {int(blank.sum())} labelled row(s) have no {column} (line(s) "
                                   f"{lines}{'...' if blank.sum() > 5 else ''}); fill it in or remove those rows")


def workers_path_for(answers_path: Path) -> Path:
    """The workers file beside the answers at ``answers_path`` (docs/reference/outputs.md)."""
    path = Path(answers_path)
    stem = path.stem
    at = stem.rfind("answers")
    name = f"{stem[:at]}workers{stem[at + len('answers'):]}" if at >= 0 else f"{stem}-workers"
    return path.with_name(name + path.suffix)


def write_answers(result: Aggregation, answers_path: Path) -> tuple[Path, Path]:
    """answers.csv at ``answers_path`` and its workers file beside it (:func:`workers_path_for`)."""
    answers = result.answers.assign(confidence=result.answers["confidence"].astype(float).round(4))
    if "posterior" in answers:
        answers["posterior"] = answers["posterior"].astype(float).round(4)
    if "stop_confidence" in answers:  # an adaptive replay's
        answers["stop_confidence"] = answers["stop_confidence"].astype(float).round(4)
    # the pooled control rule's (a campaign's, postprocess.answers.worker_skill.POOLED_COLUMNS) figures too
    rounded = [c for c in result.workers.columns if c in ("skill", "agreement", "control_accuracy", "pooled_accuracy",
                                                          "pooled_evidence", "pooled_agreement")
               or c.startswith(("bias_", "offset_"))]
    workers = result.workers.assign(**{c: result.workers[c].astype(float).round(4) for c in rounded})
    if "pooled_p_above" in workers:  # a probability near 0 is the point: to 4 significant figures, not places
        workers["pooled_p_above"] = [float(f"{v:.4g}") for v in workers["pooled_p_above"].astype(float)]
    return (write_csv(answers, answers_path),
            write_csv(workers, workers_path_for(answers_path)))


def with_pooled(workers: pd.DataFrame, pooled: pd.DataFrame) -> pd.DataFrame:
    """workers.csv's rows with the pooled rule's columns (a blocked worker it judged gets a row, 0 items)."""
    both = workers.merge(pooled, on="worker_id", how="outer").sort_values("worker_id", kind="stable")
    both["items"] = both["items"].fillna(0).astype(int)
    both["controls"] = both["controls"].fillna(0).astype(int)
    both["pooled_note"] = [_pooled_note(int(c), int(p)) for c, p in zip(both["controls"],
                                                                       both["pooled_controls"].fillna(0), strict=True)]
    return both.reset_index(drop=True)[[*workers.columns, *pooled.columns.drop("worker_id"), "pooled_note"]]


def _pooled_note(controls: int, pooled: int) -> str:
    """Why a row's ``controls`` (its approved control answers) and ``pooled_controls`` differ, on the row."""
    if pooled < controls:
        return (f"{controls - pooled} control answer(s) judged as ordinary items: most workers contradict the "
                "controls file's answer there, so it blocks nobody")
    if pooled > controls:
        return (f"{pooled - controls} more control answer(s) in rejected or blocked work: the pooled rule reads "
                "every label, the answers only approved ones")
    return ""


def summary(result: Aggregation, gold: pd.Series | None = None, checked: pd.DataFrame | None = None) -> dict[str, Any]:
    """What a person checks first: counts, methods, confidence; against ``gold`` or the controls ``checked``
    (aggregate_scored's rows, each scored by a calibration that never saw it): accuracy, ECE, reliability."""
    answers = result.answers
    out: dict[str, Any] = {"items": int(answers["item_id"].nunique()), "answers": len(answers),
                           "judgements": int(answers["judgements"].sum()), "workers": len(result.workers),
                           "methods": dict(sorted(answers.groupby("field")["method"].first().items())),
                           **({"method_choice": answers.attrs["method_choice"]} if answers.attrs.get("method_choice")
                              else {}),
                           "mean_confidence": round(float(answers["confidence"].mean()), 4),
                           "confidence_is": confidence_words(answers, checked),
                           **({"controls_to_check": answers.attrs["controls_to_check"]}
                              if "controls_to_check" in answers.attrs else {})}
    if "note" in answers and (answers["note"] == "tie").any():
        out["ties"] = int((answers["note"] == "tie").sum())
    if gold is not None:
        known = answers[answers["item_id"].isin(gold.index)]
        hit = known["label"].to_numpy() == gold.reindex(known["item_id"]).to_numpy()
        out["gold_items"], out["accuracy"] = len(known), round(float(hit.mean()), 4) if len(known) else None
        out["items_without_gold"] = int(answers["item_id"].nunique() - known["item_id"].nunique())
        if len(known):
            out["calibration"] = scored(known["confidence"], hit)
    if checked is not None and len(checked):
        model = scored(checked["model_confidence"], checked["correct"])
        out["calibration_fit"] = answers.attrs.get("calibration_fit", {})
        own = scored(checked["confidence"], checked["correct"])
        # ECE15 on controls is noisy by about its floor, and by one error in n where every confidence is near 1
        noise = noise_floor(checked["confidence"].to_numpy(dtype=float))["ece_15"]["p95"] + 1 / len(checked)
        out["calibration_on_controls"] = {**own, "model_ece": model["ece"], "model_ece_15": model["ece_15"],
                                          "ece_15_at_most": round(float(own["ece_15"]) + noise, 4)}
    return out


def confidence_words(answers: pd.DataFrame, checked: pd.DataFrame | None = None) -> str:
    """How the confidence was obtained, in words (answers.csv's ``confidence_source`` per row)."""
    if checked is not None and len(checked):
        items = f"{len(checked)} control item{'' if len(checked) == 1 else 's'}"
        if not answers.attrs.get("calibration_fit", {}).get("moved", True):
            return (f"model, kept: calibrating it on {items} scored no better than the model's own confidence in "
                    "the controls' cross-validation (calibration_fit); the skill posterior's probability of each "
                    "answer, never above what its judgements could show")
        return (f"calibrated on {items}: the skill posterior's probability of each answer, "
                "beta-calibrated on the controls (held at the model's own until they outweigh it; kept because the "
                "controls' cross-validation scores it better: calibration_fit; each control scored by a "
                "calibration fitted without it)")
    tempered = {f: t for f, t in answers.attrs.get("temperature", {}).items() if t > 1}
    temper = ("" if not tempered else ", its labels' evidence divided by " + ", ".join(
        f"{t:.2f} ({f})" for f, t in sorted(tempered.items())) + " at the median item (1 + (n - 1) x the labels' "
        "correlation within an item that best predicts held-out labels, for an item of n: items split more than "
        "independent workers would)")
    needed = answers.attrs.get("controls_to_check")
    pulled = (", moved down toward the field's mean share of an item's labels that agree with its answer (errors most "
              "workers share, which no label model sees without known answers)"
              if (answers.get("confidence_source", pd.Series(dtype=str)) == UNCHECKED).any() else "")
    about = f" (about {needed} would tell a calibration error of 0.05 from chance here: controls_to_check)"
    return (f"model, unchecked: no control items checked it{about if needed else ''}; the probability of each "
            "answer under Dawid-Skene with a prior on each worker's skill, each item left "
            f"out of its workers' records{temper}{pulled}, never above what its judgements could show (one label: at "
            "most 0.95); a tie's is the skill posterior's, which broke it; where that posterior prefers another label "
            "than the method's, the two share their probability (0.5 on two labels), so no answer reads as the less "
            "likely one")


def aggregate_file(path: Path, out: Path, method: str = "auto", min_per_worker: float = 3.0,
                   columns: tuple[str, str, str] | None = None, gold_column: str = "",
                   controls_path: Path | None = None, prior: SkillPrior | None = None,
                   hygiene: HygienePolicy | None = None, keep_blocked: bool = False,
                   progress: Callable[[str], None] | None = None, fields: tuple[str, ...] = ()) -> dict[str, Any]:
    """``hitflow aggregate``: read, tidy, aggregate, write; returns the summary."""
    stage = progress or (lambda text: None)
    stage(f"reading and tidying {path}")
    labels = only_fields(path, read_labels(path, columns), fields)  # --field
    frame, tidied = tidy_labels(path, labels, hygiene or HygienePolicy(), keep_blocked)
    controls = read_csv_frame(controls_path, ("item_id", "answer"), "the control items file",
                              delimiter="auto") if controls_path else None
    _check_gold(path, frame, gold_column)
    fold = (hygiene or HygienePolicy()).fold_case  # known answers in the labels' spelling ("good" gold, "Good" labels)
    frame, controls = respelled(frame, gold_column, None, fold), respelled(controls, "answer", frame["label"], fold)
    stage(f"aggregating {len(frame):,} labels ({method})")
    with faults_of(path):
        result, checked = aggregate_scored(frame, method, min_per_worker, controls=controls, prior=prior)
    if controls is not None:
        result = Aggregation(result.answers, with_pooled(result.workers, pooled_offline(frame, controls)))
    stage(f"writing {out}")
    answers_path, workers_path = write_answers(result, out)
    gold = _gold(frame, gold_column) if gold_column else None
    notes = number_like(frame if "field" in frame.columns else frame.assign(field="label"), set())
    return {"answers_file": str(answers_path), "workers_file": str(workers_path), **summary(result, gold, checked),
            **({"notes": notes} if notes else {}), "hygiene": tidied, "unread_rows": labels.attrs["unread_rows"]}


def replay_file(path: Path, out: Path, rule: StoppingRule, columns: tuple[str, str, str] | None = None,
                gold_column: str = "", seconds_column: str = "", sweep: tuple[float, ...] = (),
                hygiene: HygienePolicy | None = None, keep_blocked: bool = False,
                controls_path: Path | None = None) -> dict[str, Any]:
    """``hitflow aggregate --adaptive``: the judgements of ``path`` an adaptive campaign would have used;
    ``sweep``: the replay at each of these confidences too."""
    from postprocess.answers.adaptive import replay, saving

    labels = read_labels(path, columns)
    frame, tidied = tidy_labels(path, labels, hygiene or HygienePolicy(), keep_blocked)
    frame = _with_seconds(path, frame, seconds_column)
    controls = read_csv_frame(controls_path, ("item_id", "answer"), "the control items file",
                              delimiter="auto") if controls_path else None
    _check_gold(path, frame, gold_column)
    fold = (hygiene or HygienePolicy()).fold_case  # known answers in the labels' spelling ("good" gold, "Good" labels)
    frame, controls = respelled(frame, gold_column, None, fold), respelled(controls, "answer", frame["label"], fold)
    gold = _gold(frame, gold_column) if gold_column else None
    with faults_of(path):
        replayed = replay(frame, rule, controls=controls)
        final, checked = aggregate_scored(replayed.used, rule.method, controls=controls, prior=rule.skill_prior)
        swept = sweep_confidences(frame, rule, sweep, gold, replayed, controls) if sweep else None
    replayed.answers.attrs["calibration_fit"] = final.answers.attrs.get("calibration_fit", {})  # the last round's
    result = Aggregation(replayed.answers, final.workers)
    answers_path, workers_path = write_answers(result, out)
    return {"answers_file": str(answers_path), "workers_file": str(workers_path),
            **summary(result, gold, checked), **saving(replayed, frame), **({"sweep": swept} if swept else {}),
            "hygiene": tidied, "unread_rows": labels.attrs["unread_rows"]}


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


def _check_gold(path: Path, frame: pd.DataFrame, column: str) -> None:
    """``--gold``'s column is there and is not the item, worker or label column itself."""
    if not column:
        return
    if column not in frame.columns:
        raise InputFormatError(f"{path}: no column {column!r} for --gold")
    if column in ("item_id", "worker_id", "label"):
        raise InputFormatError(f"{path}: --gold {column} names the labels' own {column} column; name the "
                               "column that holds each item's known answer")


def _gold(frame: pd.DataFrame, column: str) -> pd.Series:
    """Each item's known answer (its first filled ``column``), by item_id; an item with none is not scored."""
    answer = frame[column].where(frame[column].notna(), "").astype(str).str.strip()
    filled = (answer != "") & (answer.str.lower() != "nan")
    gold = pd.DataFrame({"item_id": frame["item_id"].astype(str).str.strip()[filled], "answer": answer[filled]})
    return gold.drop_duplicates("item_id").set_index("item_id")["answer"]


def sweep_confidences(frame: pd.DataFrame, rule: StoppingRule, confidences: tuple[float, ...],
                      gold: pd.Series | None, at_rule: Replay | None = None,
                      controls: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """``--sweep``: how a requester picks adaptive overlap's confidence from an old batch before spending. One row
    per confidence (first every label's, ``confidence`` None): the share of the file's judgements it uses, its
    answers against every label's and against gold; ``at_rule``: the replay at ``rule.confidence`` if made."""
    from postprocess.answers.adaptive import replay, saving

    full = aggregate(frame, rule.method, controls=controls).answers.set_index(["item_id", "field"])["label"]
    rows = []
    for confidence in (None, *confidences):
        if confidence is None:
            answers, share = full.reset_index(), 1.0
        else:
            replayed = (at_rule if at_rule is not None and confidence == rule.confidence
                        else replay(frame, replace(rule, confidence=confidence), controls=controls))
            answers, share = replayed.answers, float(saving(replayed, frame)["share_used"])
        keyed = answers.set_index(["item_id", "field"])["label"]
        row: dict[str, Any] = {"confidence": confidence, "share_used": round(share, 4),
                               "same_as_all_labels": round(float((keyed == full.reindex(keyed.index)).mean()), 4)}
        if gold is not None:  # over the items with gold
            scored_items = keyed[keyed.index.get_level_values("item_id").isin(gold.index)]
            row["accuracy"] = round(float((scored_items.to_numpy() == gold.reindex(
                scored_items.index.get_level_values("item_id")).to_numpy()).mean()), 4) if len(scored_items) else None
        rows.append(row)
    return rows
