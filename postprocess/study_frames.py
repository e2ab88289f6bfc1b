"""Stored answers of an evaluation study into each analysis's column contract.
Input ``answers`` columns: ``assignment_id, worker_id, item_id, field, value`` (one row per item
and answered field; page-level fields such as demographics have an empty ``item_id``), and
``payloads``: item id -> what its page showed (``flows.studies.study_plan``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from postprocess.pairwise_stats import undo_order

PAIRWISE_DIMENSIONS = ("mistakes", "missing", "overall")


def _field(answers: pd.DataFrame, name: str) -> pd.DataFrame:
    return answers[(answers["field"] == name) & (answers["item_id"] != "")]


def expert_labels(answers: pd.DataFrame) -> pd.DataFrame:
    """``item_id, worker_id, label`` (the 1-4 score)."""
    rows = _field(answers, "score")
    return rows[rows["value"] != ""].rename(columns={"value": "label"})[["item_id", "worker_id", "label"]]


def selection_labels(answers: pd.DataFrame, payloads: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """One row per (image, sentence, judge): ``item_id`` ``image#sentence``, ``label`` 1 ticked else 0."""
    rows = []
    for r in _field(answers, "selected").itertuples():
        ticked = set(str(r.value).split("|")) - {""}
        for s in payloads.get(r.item_id, {}).get("sentences", []):
            rows.append((f"{r.item_id}#{s['id']}", r.worker_id, "1" if s["id"] in ticked else "0"))
    return pd.DataFrame(rows, columns=["item_id", "worker_id", "label"])


def error_judgements(answers: pd.DataFrame) -> pd.DataFrame:
    """``item_id, worker_id, congruent, categories``."""
    verdicts = _field(answers, "congruent")[["assignment_id", "item_id", "worker_id", "value"]]
    cats = _field(answers, "categories")[["assignment_id", "item_id", "value"]].rename(columns={"value": "categories"})
    out = verdicts.merge(cats, on=["assignment_id", "item_id"], how="left").rename(columns={"value": "congruent"})
    out["categories"] = out["categories"].fillna("")
    return out[out["congruent"] != ""][["item_id", "worker_id", "congruent", "categories"]]


def pairwise_judgements(answers: pd.DataFrame, payloads: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """``item_id, worker_id, dimension, system_a, system_b, answer`` in system A's view."""
    rows = []
    for dim in PAIRWISE_DIMENSIONS:
        for r in _field(answers, dim).itertuples():
            p = payloads.get(r.item_id, {})
            if r.value != "" and p:
                rows.append((r.item_id, r.worker_id, dim, p["system_a"], p["system_b"], r.value, p["flipped"]))
    frame = pd.DataFrame(rows, columns=["item_id", "worker_id", "dimension", "system_a", "system_b", "answer",
                                        "flipped"])
    return undo_order(frame).drop(columns=["flipped"])


def severity_ratings(answers: pd.DataFrame, payloads: dict[str, dict[str, Any]],
                     include_calibration: bool = False) -> pd.DataFrame:
    """``participant_id, item_id, condition, role, score, position``; the trial phase only when asked."""
    scores = _field(answers, "score")
    positions = _field(answers, "position")[["assignment_id", "item_id", "value"]].rename(columns={"value": "position"})
    out = scores.merge(positions, on=["assignment_id", "item_id"], how="left")
    out["condition"] = out["item_id"].map(lambda i: payloads.get(i, {}).get("condition", ""))
    out["role"] = out["item_id"].map(lambda i: payloads.get(i, {}).get("role", "stimulus"))
    out = out.rename(columns={"worker_id": "participant_id", "value": "score"})
    out = out[out["score"] != ""]
    if not include_calibration:
        out = out[out["role"] != "calibration"]
    return out[["participant_id", "item_id", "condition", "role", "score", "position"]].reset_index(drop=True)


def demographics(answers: pd.DataFrame, fields: tuple[str, ...]) -> pd.DataFrame:
    """One row per participant with their page-level answers."""
    page = answers[(answers["item_id"] == "") & answers["field"].isin(fields)]
    wide = page.pivot_table(index="worker_id", columns="field", values="value", aggfunc="first").reset_index()
    wide = wide.rename(columns={"worker_id": "participant_id"})
    for f in fields:
        if f not in wide.columns:
            wide[f] = ""
    return wide[["participant_id", *fields]].fillna("")
