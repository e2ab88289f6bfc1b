"""``hitflow analyze KIND INPUT``: a CSV (or a published human-evaluation file) in, JSON-ready results out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from flows.answers.label_files import without_excluded
from flows.core.errors import InputFormatError
from flows.core.inputs.csv_files import read_csv_frame
from flows.core.inputs.text_files import read_text
from postprocess.agreement import agreement
from postprocess.error_stats import error_summary
from postprocess.pairwise_stats import pairwise_summary, undo_order
from postprocess.rating_stats import rating_summary
from postprocess.screening import session_exclusions
from postprocess.severity_stats import severity

KINDS = ("agreement", "severity", "errors", "pairwise", "ratings", "screening")


def analyze(kind: str, path: Path, reader: str = "", level: str = "nominal",
            min_minutes: float = 18.0) -> dict[str, Any]:
    """The analysis of ``kind`` over ``path``; column problems become InputFormatError."""
    if kind not in KINDS:
        raise InputFormatError(f"unknown analysis {kind!r}; use one of {', '.join(KINDS)}")
    frame = without_excluded(read_evaluation(reader, path) if reader
                             else read_csv_frame(path, what="the analysis input"))
    try:
        if kind == "agreement":
            return agreement(frame, level)
        if kind == "severity":
            return severity(frame)
        if kind == "errors":
            return error_summary(frame)
        if kind == "pairwise":
            return pairwise_summary(undo_order(frame) if "flipped" in frame.columns else frame)
        if kind == "ratings":
            return rating_summary(frame, level if level != "nominal" else "ordinal")
        return session_exclusions(frame, min_minutes)
    except (KeyError, ValueError, TypeError) as exc:  # TypeError: text where a column holds numbers
        raise InputFormatError(f"{path}: {exc}; see `hitflow analyze --help` for each kind's columns") from exc


# Readers for published human-evaluation files (docs/explanation/module-notes.md names each)
def _tsv(path: Path, names: list[str]) -> pd.DataFrame:
    """A headerless tab-separated file whose every line has the ``names`` fields."""
    return read_csv_frame(path, what=f"a file of {len(names)} tab-separated fields ({', '.join(names)})",
                          delimiter="\t", names=names)


def flickr8k_expert(path: Path) -> pd.DataFrame:
    """Long form ``item_id, worker_id, label``: one row per expert score (experts e1-e3)."""
    wide = _tsv(path, ["image", "caption", "e1", "e2", "e3"])
    wide["item_id"] = wide["image"] + "|" + wide["caption"]
    long = wide.melt(id_vars=["item_id"], value_vars=["e1", "e2", "e3"], var_name="worker_id", value_name="label")
    return long.sort_values(["item_id", "worker_id"]).reset_index(drop=True)


def flickr8k_crowd(path: Path) -> pd.DataFrame:
    """Long form ``item_id, worker_id, label`` (1 yes, 0 no), positional worker ids within each pair."""
    wide = _tsv(path, ["image", "caption", "share", "yes", "no"])
    rows = []
    for r in wide.itertuples(index=False):
        labels = ["1"] * int(r.yes) + ["0"] * int(r.no)
        rows += [(f"{r.image}|{r.caption}", f"j{k + 1}", lab) for k, lab in enumerate(labels)]
    return pd.DataFrame(rows, columns=["item_id", "worker_id", "label"])


def _load_json(path: Path) -> dict[str, object]:
    text = read_text(path, "the published JSON file")  # size-limited, UTF-8 checked
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputFormatError(f"{path}: cannot read JSON ({str(exc)[:120] or 'nested too deeply'})") from exc
    if not isinstance(data, dict):
        raise InputFormatError(f"{path}: expected an object keyed by item index")
    return data


def errors_2017(folder: Path) -> pd.DataFrame:
    """``item_id, worker_id, congruent, categories`` from every ``annotations_<name>`` folder."""
    rows = []
    for sub in sorted(folder.glob("annotations_*")):
        cong_file = next(iter(sorted(sub.glob("congruency*.json"))), None)
        cat_file = next(iter(sorted(sub.glob("incongruent*.json"))), None)
        if cong_file is None:
            continue
        congruency, categories = _load_json(cong_file), _load_json(cat_file) if cat_file else {}
        for idx, verdict in congruency.items():
            labels = categories.get(idx, []) if verdict == "incongruent" else []
            ticked = [str(c) for c in labels] if isinstance(labels, list) else []
            rows.append((idx, sub.name.removeprefix("annotations_"), verdict, "|".join(ticked)))
    if not rows:
        raise InputFormatError(f"{folder}: no annotations_<name>/congruency*.json found; pass the folder of the "
                               "2017 error-analysis release")
    return pd.DataFrame(rows, columns=["item_id", "worker_id", "congruent", "categories"])


def kreiss_2022(path: Path) -> pd.DataFrame:
    """One row per participant of the sighted study's trial log (``participant_id, trials, minutes, ...``)."""
    trials = read_csv_frame(path, what="the sighted study's data.csv")
    needed = {"anon_worker_id", "timeSpent", "botresponse", "continue", "q5_sliderval"}
    if not needed <= set(trials.columns):
        raise InputFormatError(f"{path}: missing column(s) {', '.join(sorted(needed - set(trials.columns)))}; "
                               "expected the sighted study's raw data.csv")
    # q5 holds "pre|post" ratings; a "0" means the slider was never moved.
    trials["zero"] = trials["q5_sliderval"].map(lambda v: isinstance(v, str) and "0" in v.split("|"))
    grouped = trials.groupby("anon_worker_id", sort=False)
    return pd.DataFrame({
        "participant_id": list(grouped.groups),
        "trials": grouped.size().to_numpy(),
        "minutes": grouped["timeSpent"].first().astype(float).to_numpy(),
        "passed_qualification": grouped["botresponse"].first().astype(str).str.startswith("correct").to_numpy(),
        "continued": grouped["continue"].first().astype(str).str.lower().eq("true").to_numpy(),
        "slider_zero": grouped["zero"].any().to_numpy(),
    })


READERS = {"flickr8k-expert": flickr8k_expert, "flickr8k-crowd": flickr8k_crowd, "errors-2017": errors_2017,
           "kreiss-2022": kreiss_2022}


def read_evaluation(reader: str, path: Path) -> pd.DataFrame:
    if not path.exists():
        raise InputFormatError(f"{path} does not exist")
    if reader not in READERS:
        raise InputFormatError(f"unknown reader {reader!r}; use one of {', '.join(READERS)}")
    return READERS[reader](path)
