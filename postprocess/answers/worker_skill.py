"""One decision per worker from all the evidence on their choices: control items pooled with agreement with others.
Input columns: ``judgements``: ``worker_id, item_id, field, value``; ``controls``: ``item_id, field, answer``. Output of
:func:`skill_scores`: :data:`SCORE_COLUMNS`; of :func:`skill_blocks`: :data:`qc.worker_history.BLOCK_COLUMNS`; of
:func:`pooled_columns`: :data:`POOLED_COLUMNS`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from qc.worker_history import BLOCK_COLUMNS

SCORE_COLUMNS = ["worker_id", "controls", "correct", "items", "pages", "agreement", "evidence", "accuracy", "above"]
POOLED_COLUMNS = ["worker_id", "pooled_accuracy", "pooled_p_above", "pooled_evidence", "pooled_controls",
                  "pooled_controls_right", "pooled_pages", "pooled_labels", "pooled_agreement", "pooled_status"]
AT_RISK = 0.5  # P(accuracy >= block_below) under this: the worker is likelier below the line than above it
RULE = "worker_skill"
EDGES = np.linspace(0.0, 1.0, 1001)
GRID = (EDGES[1:] + EDGES[:-1]) / 2  # accuracy, the midpoints of 1,000 equal cells
# the Jeffreys prior's mass in each cell, exactly (the arcsine law's CDF)
PRIOR = np.log(np.diff(np.arcsin(np.sqrt(EDGES))))
ITERATIONS = 30


@dataclass(frozen=True)
class SkillPolicy:
    """When the pooled evidence blocks (module docstring). ``block_below`` 0: never."""

    block_below: float = 0.5
    alpha: float = 0.05
    min_evidence: float = 2.0
    page_labels: float = 5.0  # what one page's ordinary labels can weigh at most, in labels (0: no cap)
    prior_accuracy: float = 0.7
    prior_weight: float = 2.0


def _labels(judgements: pd.DataFrame, controls: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The labels with task, option and option-count indexes, and the tasks (``gold``: the answer's option)."""
    given = judgements.assign(value=judgements["value"].astype(str).str.strip())
    given = given[given["value"] != ""].drop_duplicates(["worker_id", "item_id", "field"], keep="last")
    key = controls.assign(answer=controls["answer"].astype(str).str.strip()).drop_duplicates(["item_id", "field"])
    given = given.assign(answer=_at(key, ["item_id", "field"], given[["item_id", "field"]], "answer"))
    # a field's options: every label given to it and every known answer
    options = pd.concat([given[["field", "value"]], key.rename(columns={"answer": "value"})[["field", "value"]]])
    options = options.drop_duplicates().sort_values(["field", "value"], ignore_index=True)
    options["option"] = options.groupby("field").cumcount()
    # a field with one option seen has two (an unseen one), so a lone label there is not certain
    k = options.groupby("field").size().clip(lower=2).rename("k")
    given = given.assign(option=_at(options, ["field", "value"], given[["field", "value"]], "option"),
                         k=k.reindex(given["field"]).to_numpy())
    tasks = given[["item_id", "field", "answer", "k"]].drop_duplicates(["item_id", "field"], ignore_index=True)
    gold = _at(options.rename(columns={"value": "answer"}), ["field", "answer"], tasks[["field", "answer"]], "option")
    tasks["gold"] = pd.Series(gold).fillna(-1).astype(int).to_numpy()
    tasks["task"] = np.arange(len(tasks))
    given = given.assign(task=_at(tasks, ["item_id", "field"], given[["item_id", "field"]], "task"))
    return given.reset_index(drop=True), tasks


def _at(table: pd.DataFrame, on: list[str], keys: pd.DataFrame, column: str) -> np.ndarray:
    """``table[column]`` at each row of ``keys`` (columns ``on``), NaN where absent."""
    where = {key: row for row, key in enumerate(zip(*(table[c].to_numpy() for c in on), strict=True))}
    found = np.array([where.get(key, -1) for key in zip(*(keys[c].to_numpy() for c in on), strict=True)],
                     dtype=np.intp)
    values = table[column].to_numpy()
    if (found >= 0).all():
        return values[found]
    return np.where(found >= 0, values[found].astype(object), np.nan) if len(values) else np.full(
        len(found), np.nan, dtype=object)


def _fit(task: np.ndarray, option: np.ndarray, worker: np.ndarray, k: np.ndarray, gold: np.ndarray,
         workers: int, policy: SkillPolicy) -> tuple[np.ndarray, np.ndarray]:
    """MAP-EM of the one-coin model: each worker's accuracy, and each label's weight."""
    width = int(k.max())
    valid = np.arange(width)[None, :] < k[:, None]
    accuracy = np.full(workers, policy.prior_accuracy)
    for _ in range(ITERATIONS):
        a = np.clip(accuracy, 0.01, 0.99)
        vote = np.log(a[worker] * (k[task] - 1) / (1 - a[worker]))
        post = _posterior(task, option, vote, valid, gold)
        right = np.bincount(worker, post[task, option], workers)
        seen = np.bincount(worker, minlength=workers)
        accuracy = (right + policy.prior_accuracy * policy.prior_weight) / (seen + policy.prior_weight)
    a = np.clip(accuracy, 0.01, 0.99)
    return accuracy, np.log(a[worker] * (k[task] - 1) / (1 - a[worker]))


def _posterior(task: np.ndarray, option: np.ndarray, vote: np.ndarray, valid: np.ndarray,
               gold: np.ndarray) -> np.ndarray:
    """Each task's probability of each option from the votes (uniform prior); a control is its answer."""
    score = np.where(valid, _cell_sums(task, option, vote, valid.shape), -np.inf)
    post = np.exp(score - score.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    known = gold >= 0
    post[known] = np.eye(valid.shape[1])[gold[known]]
    return post


def _cell_sums(task: np.ndarray, option: np.ndarray, vote: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Tasks x options: the votes summed in row order from 0 (``np.add.at`` on zeros, by ``np.bincount``)."""
    return np.bincount(task * shape[1] + option, vote, minlength=shape[0] * shape[1]).reshape(shape)


def skill_scores(judgements: pd.DataFrame, controls: pd.DataFrame, policy: SkillPolicy) -> pd.DataFrame:
    """Per worker: controls, labels, agreement, evidence and P(accuracy >= ``policy.block_below``)."""
    given, tasks = _labels(judgements, controls)
    if given.empty:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    ids, worker = np.unique(given["worker_id"].astype(str).to_numpy(), return_inverse=True)
    task, option = given["task"].to_numpy(), given["option"].to_numpy()
    k, gold = tasks["k"].to_numpy(int), tasks["gold"].to_numpy(int)
    _, vote = _fit(task, option, worker, k, gold, len(ids), policy)
    width = int(k.max())
    score = _cell_sums(task, option, vote, (len(tasks), width))
    # leave-one-out: the task's score without this label's own vote
    own = score[task] - np.eye(width)[option] * vote[:, None]
    own = np.where(np.arange(width)[None, :] < k[task][:, None], own, -np.inf)
    loo = np.exp(own - own.max(axis=1, keepdims=True))
    p = loo[np.arange(len(task)), option] / loo.sum(axis=1)
    known = gold[task] >= 0
    p = np.where(known, (option == gold[task]).astype(float), p)
    slip = (1 - p) / (k[task] - 1)
    unit = given["unit"].astype(str).to_numpy() if "unit" in given.columns else np.arange(len(task)).astype(str)
    unit = np.where(known, "", unit)
    size = pd.Series(unit).map(pd.Series(unit[~known]).value_counts()).fillna(1).to_numpy(float)
    # a page's labels weigh at most page_labels labels together; a control is judged against its answer
    weight = np.where(known, 1.0, np.minimum(1.0, policy.page_labels / size) if policy.page_labels > 0 else 1.0)
    return _per_worker(ids, worker, p, slip, known, weight, unit, policy)


def _per_worker(ids: np.ndarray, worker: np.ndarray, p: np.ndarray, slip: np.ndarray, known: np.ndarray,
                weight: np.ndarray, unit: np.ndarray, policy: SkillPolicy) -> pd.DataFrame:
    """The Jeffreys-prior posterior of each worker's accuracy on :data:`GRID`, and its mass at ``level``."""
    # evidence in sources: a control 1, a page's ordinary labels at most 1 together
    told = 1 - np.minimum(p, slip) / np.maximum(p, slip)
    cap = policy.page_labels if policy.page_labels > 0 else 1.0
    rows = []
    for w, name in enumerate(ids):
        mine = worker == w
        like = weight[mine] @ np.log(np.outer(p[mine], GRID) + np.outer(slip[mine], 1 - GRID))
        like += PRIOR
        mass = np.exp(like - like.max())
        ordinary = mine & ~known
        pages = _page_sums(told[ordinary], unit[ordinary])
        evidence = float((mine & known).sum() + np.minimum(1.0, pages / cap).sum())
        rows.append({"worker_id": str(name), "controls": int((mine & known).sum()),
                     "correct": int(p[mine & known].sum()), "items": int(ordinary.sum()), "pages": len(pages),
                     "agreement": float(p[ordinary].mean()) if ordinary.any() else float("nan"),
                     "evidence": evidence, "accuracy": float(mass @ GRID / mass.sum()),
                     "above": float(mass[policy.block_below <= GRID].sum() / mass.sum())})
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


def _page_sums(told: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """One worker's ``told`` summed per page in text order, as pandas' group-by sums them."""
    names, page = np.unique(unit, return_inverse=True)
    if len(page) and (page[1:] >= page[:-1]).all() and not np.isnan(told).any():
        return np.add.reduceat(told, np.flatnonzero(np.r_[True, page[1:] != page[:-1]]))
    total, compensation = [0.0] * len(names), [0.0] * len(names)
    for g, value in zip(page.tolist(), told.tolist(), strict=True):
        if value != value:
            continue
        y = value - compensation[g]
        t = total[g] + y
        compensation[g] = t - total[g] - y
        if compensation[g] != compensation[g]:  # an infinite value: pandas resets the compensation
            compensation[g] = 0.0
        total[g] = t
    return np.array(total, dtype=float)


def skill_blocks(scores: pd.DataFrame, policy: SkillPolicy) -> pd.DataFrame:
    """Workers with ``min_evidence`` reaching ``block_below`` with probability under ``alpha``."""
    due = scores[_due(scores, policy)]
    if due.empty:
        return pd.DataFrame(columns=BLOCK_COLUMNS)
    return pd.DataFrame({"worker_id": due["worker_id"].astype(str),
                         "rules": [f"{RULE} P={shown_p(r.above)} (controls {r.correct}/{r.controls}, items {r.items} "
                                   f"agreeing {r.agreement:.0%})" for r in due.itertuples()],
                         "flags": due["controls"] - due["correct"], "captions": due["controls"] + due["items"]},
                        columns=BLOCK_COLUMNS).reset_index(drop=True)


def _due(scores: pd.DataFrame, policy: SkillPolicy) -> pd.Series:
    """The rule's two conditions (enough evidence, P(accuracy >= block_below) under alpha), the rule on."""
    return (scores["evidence"] >= policy.min_evidence) & (scores["above"] < policy.alpha) & (policy.block_below > 0)


def pooled_columns(scores: pd.DataFrame, policy: SkillPolicy) -> pd.DataFrame:
    """The scores as workers.csv shows them (:data:`POOLED_COLUMNS`), ``pooled_status`` included."""
    status = np.where(_due(scores, policy), "block", np.where(scores["above"] < AT_RISK, "at risk", "ok"))
    return pd.DataFrame({"worker_id": scores["worker_id"].astype(str), "pooled_accuracy": scores["accuracy"],
                         "pooled_p_above": scores["above"], "pooled_evidence": scores["evidence"],
                         "pooled_controls": scores["controls"], "pooled_controls_right": scores["correct"],
                         "pooled_pages": scores["pages"], "pooled_labels": scores["items"],
                         "pooled_agreement": scores["agreement"], "pooled_status": status},
                        columns=POOLED_COLUMNS).reset_index(drop=True)


def shown_p(p: float) -> str:
    """A probability as a percentage, a small one to two significant figures."""
    if p < 1e-6:
        return "<0.0001%"
    return f"{p:.1%}" if p >= 0.001 else f"{p * 100:.2g}%"
