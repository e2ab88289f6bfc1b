"""Qualification-test scoring (Flickr8k's spelling, grammar and judging test).
Inputs: answers ``worker_id, item_id, answer``; key ``item_id, section, answer``.
Outputs: scores ``worker_id, answered, correct, score, <section>_score..., passed`` (percent of the key's
items; unanswered is wrong), and problems ``worker_id, item_id, answer, problem`` (unknown items, malformed
and repeated answers: reported, never dropped)."""

from __future__ import annotations

import pandas as pd

ALLOWED = {"spelling": {"correct", "incorrect"}, "grammar": {"correct", "incorrect"}, "judging": {"1", "2"}}
PROBLEM_COLUMNS = ["worker_id", "item_id", "answer", "problem"]


def _norm(value: object) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value).strip().lower()


def check_answers(answers: pd.DataFrame, key: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split answers into usable rows (first answer per worker and item) and problems."""
    sections = dict(zip(key["item_id"], key["section"], strict=True))
    rows, problems, seen = [], [], set()
    for worker, item, raw in zip(answers["worker_id"], answers["item_id"], answers["answer"], strict=True):
        answer, item = _norm(raw), str(item).strip()
        if item not in sections:
            problems.append((worker, item, raw, "unknown item id"))
        elif answer not in ALLOWED.get(sections[item], set()):
            problems.append((worker, item, raw, f"malformed answer; expected one of "
                                                f"{', '.join(sorted(ALLOWED.get(sections[item], set())))}"))
        elif (worker, item) in seen:
            problems.append((worker, item, raw, "answered twice; the first answer counts"))
        else:
            seen.add((worker, item))
            rows.append((worker, item, answer))
    usable = pd.DataFrame(rows, columns=["worker_id", "item_id", "answer"])
    return usable, pd.DataFrame(problems, columns=PROBLEM_COLUMNS)


def score_answers(answers: pd.DataFrame, key: pd.DataFrame, threshold: float = 80.0) -> tuple[pd.DataFrame,
                                                                                            pd.DataFrame]:
    """Per worker: items answered, answered correctly, percent score overall and per section."""
    usable, problems = check_answers(answers, key)
    key = key.assign(expected=key["answer"].map(_norm), item_id=key["item_id"].astype(str))
    merged = usable.merge(key[["item_id", "section", "expected"]], on="item_id")
    merged["right"] = merged["answer"] == merged["expected"]
    workers = sorted(set(answers["worker_id"]))
    per_section = key["section"].value_counts()
    out = pd.DataFrame({"worker_id": workers})
    grouped = merged.groupby("worker_id")
    out["answered"] = out["worker_id"].map(grouped.size()).fillna(0).astype(int)
    out["correct"] = out["worker_id"].map(grouped["right"].sum()).fillna(0).astype(int)
    out["score"] = (100.0 * out["correct"] / len(key)).round(2)
    for section in ALLOWED:
        if section not in per_section:
            continue
        right = merged[merged["section"] == section].groupby("worker_id")["right"].sum()
        out[f"{section}_score"] = (100.0 * out["worker_id"].map(right).fillna(0) / per_section[section]).round(2)
    out["passed"] = out["score"] >= threshold
    return out, problems
