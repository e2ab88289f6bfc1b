"""Who is due a block, from the ledger: one reading for the block step, review queue and outputs alike."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import replace
from typing import Any

import pandas as pd

from flows.answers.control_items import stored_controls
from flows.campaigns.same_inputs import decided
from flows.core.ledger.store import Store
from flows.custom.agreement_record import stored_agreement, stored_skill
from flows.platforms.quiz_record import KEPT, stored_quiz
from postprocess.answers.answer_agreement import agreement_blocks, agreement_scores
from postprocess.answers.control_items import (
    KEY,
    QUIZ_RULE,
    TEST_RULE,
    Control,
    ControlPolicy,
    blank_rows,
    blanks_as_wrong,
    control_scores,
    control_verdicts,
    crowd_tallies,
    single_choice,
    trusted_controls,
)
from postprocess.answers.control_items import RULE as CONTROL_RULE
from postprocess.answers.worker_skill import RULE as SKILL_RULE
from postprocess.answers.worker_skill import SkillPolicy, pooled_columns, skill_blocks, skill_scores
from qc.decisions import DecisionPolicy, workers_to_block
from qc.flags import FLAG_COLUMNS
from qc.worker_history import BLOCK_COLUMNS, HISTORY_COLUMNS, blocks_on_rates, worker_history

ON_CONTROLS = (CONTROL_RULE, SKILL_RULE, QUIZ_RULE, TEST_RULE)  # the block rules that read control answers
EVERY_BATCH = 10**9  # "up to batch" for the whole campaign so far, extension rounds included


def batch_flags(store: Store, campaign: str, batch: int) -> pd.DataFrame:
    rows = store.rows("SELECT worker_id, rule, value, threshold, assignment_id, image_id, detail "
                      "FROM qc_flags WHERE campaign = ? AND batch = ?", [campaign, batch])
    return pd.DataFrame(rows, columns=FLAG_COLUMNS)


def campaign_history(store: Store, campaign: str, up_to_batch: int) -> pd.DataFrame:
    """Every worker's captions and flags by rule, per batch, up to a batch; each batch's built once and kept in
    the ledger (``worker_history``) until its flags are rewritten."""
    _build_missing(store, campaign, up_to_batch)
    return store.frame("SELECT worker_id, batch, rule, captions, covered, flags FROM worker_history "
                       "WHERE campaign = ? AND batch > 0 AND batch <= ? AND worker_id != '' "
                       "ORDER BY worker_id, batch, rule", [campaign, up_to_batch], HISTORY_COLUMNS)


def campaign_totals(store: Store, campaign: str, up_to_batch: int) -> pd.DataFrame:
    """:func:`campaign_history` summed over the batches (a row per worker and rule, ``batch`` its last)."""
    _build_missing(store, campaign, up_to_batch)
    return store.frame("SELECT worker_id, MAX(batch) AS batch, rule, SUM(captions) AS captions, "
                       "SUM(covered) AS covered, SUM(flags) AS flags FROM worker_history "
                       "WHERE campaign = ? AND batch > 0 AND batch <= ? AND worker_id != '' "
                       "GROUP BY worker_id, rule ORDER BY worker_id, rule",
                       [campaign, up_to_batch], HISTORY_COLUMNS)


def forget_history(store: Store, campaign: str, batch: int) -> None:
    """A batch's kept evidence is stale once its flags are rewritten (late work re-runs its QC)."""
    store.execute("DELETE FROM worker_history WHERE campaign = ? AND batch = ?", [campaign, batch])


def _build_missing(store: Store, campaign: str, up_to_batch: int) -> None:
    """Build and keep the evidence of the batches (with assignments) not kept yet."""
    missing = [r["batch"] for r in store.rows(
        "SELECT DISTINCT batch FROM assignments WHERE campaign = ? AND batch > 0 AND batch <= ? AND batch NOT IN "
        "(SELECT batch FROM worker_history WHERE campaign = ? AND worker_id = '' AND rule = '') ORDER BY batch",
        [campaign, up_to_batch, campaign])]
    for batch in missing:
        history = _batch_history(store, campaign, batch)
        records = [{"campaign": campaign, "batch": batch, "worker_id": "", "rule": "", "captions": 0,
                    "covered": 0, "flags": 0}]
        records += [{**r, "campaign": campaign, "batch": int(r["batch"]), "captions": int(r["captions"]),
                     "covered": int(r["covered"]), "flags": int(r["flags"])} for r in history.to_dict("records")]
        with store.transaction():
            store.insert_raw("worker_history", records, "REPLACE")


def _batch_history(store: Store, campaign: str, batch: int) -> pd.DataFrame:
    """One batch's evidence, counted in captions, or on a page without a caption field in items answered."""
    work = store.frame(
        "SELECT a.assignment_id, a.worker_id, a.batch, COUNT(DISTINCT CASE WHEN x.field = 'caption' THEN x.item_id "
        "END) AS captions, COUNT(DISTINCT x.item_id) AS items FROM assignments a "
        "JOIN answers x ON x.campaign = a.campaign AND x.assignment_id = a.assignment_id WHERE a.campaign = ? AND "
        "a.batch = ? "
        "AND x.item_id != '' GROUP BY a.assignment_id, a.worker_id, a.batch",
        [campaign, batch], ["assignment_id", "worker_id", "batch", "captions", "items"])
    unit = "captions" if work["captions"].astype(int).sum() else "items"
    assignments = work.assign(captions=work[unit]).drop(columns="items")
    return worker_history(assignments, batch_flags(store, campaign, batch).assign(batch=batch))


def blocks_due(store: Store, campaign: str, policy: DecisionPolicy, batch: int) -> pd.DataFrame:
    """Workers to block after a batch (rates, counts, control answers), earlier blocks left out."""
    if policy.block_min_rate:
        due = blocks_on_rates(campaign_totals(store, campaign, batch), policy)
        counted = {r: n for r, n in policy.block_min_flags.items() if r not in policy.block_min_rate}
        if policy.block_counts_beside_rates and counted:
            due = _either(due, workers_to_block(batch_flags(store, campaign, batch),
                                                replace(policy, block_min_flags=counted)))
    else:
        due = workers_to_block(batch_flags(store, campaign, batch), policy)
    due = _with_control_blocks(due, control_blocks_due(store, campaign, batch))
    due = _with_control_blocks(due, agreement_blocks_due(store, campaign, batch))
    earlier = {r["worker_id"] for r in store.rows("SELECT worker_id FROM blocks WHERE campaign = ? AND batch < ?",
                                                  [campaign, batch])}
    return due[~due["worker_id"].isin(earlier)].reset_index(drop=True)


def _either(on_rates: pd.DataFrame, on_counts: pd.DataFrame) -> pd.DataFrame:
    """One row per worker due a block on a rate or a count, the rules of both joined."""
    both = pd.concat([on_rates, on_counts], ignore_index=True)
    if both.empty:
        return on_rates
    both["flags"] = both["flags"].astype(int)
    return both.groupby("worker_id", as_index=False, sort=True).agg(
        rules=("rules", ";".join), flags=("flags", "sum"), **({"captions": ("captions", "max")}
                                                            if "captions" in both.columns else {}))


def control_answers(store: Store, campaign: str, up_to_batch: int, items: Collection[str],
                    workers: list[str] | None = None, tallied: bool = False) -> list[tuple[Any, ...]]:
    """Every answer to ``items`` up to a batch, the pages' then the quiz's kept apart (MTurk's), as ``worker_id,
    item_id, field, value`` rows; ``workers``' alone when named; ``tallied``: ``item_id, field, value, how often``."""
    ids, n = sorted(items), len(KEPT) + 1
    if not ids:
        return []
    who = workers or []
    page, kept = ("!= ''", f"LIKE '{KEPT}%' AND substr(assignment_id, {n}) != ''") if not who else (
        f"IN ({','.join('?' * len(who))})", f"IN ({','.join('?' * len(who))})")
    marks = ",".join("?" * len(ids))
    sql = (f"SELECT a.worker_id, x.item_id, x.field, x.value FROM answers x JOIN assignments a ON a.campaign = "
           f"x.campaign AND a.assignment_id = x.assignment_id WHERE a.campaign = ? AND a.batch > 0 AND a.batch <= ? "
           f"AND a.worker_id {page} AND x.item_id IN ({marks}) UNION ALL SELECT substr(assignment_id, {n}), item_id, "
           f"field, value FROM answers WHERE campaign = ? AND assignment_id {kept} AND item_id IN ({marks})")
    if tallied:  # counted in the database: the crowd's answers to a control, however many, are a few rows
        sql = f"SELECT item_id, field, value, COUNT(*) AS n FROM ({sql}) AS given GROUP BY item_id, field, value"
    params = [campaign, up_to_batch, *who, *ids, campaign, *(KEPT + w for w in who), *ids]
    return [tuple(r.values()) for r in store.rows(sql, params)]


def control_scores_so_far(store: Store, campaign: str, up_to_batch: int) -> pd.DataFrame | None:
    """Each worker's control answers so far (postprocess.answers.control_items.SCORE_COLUMNS); None without controls."""
    stored = stored_controls(store, campaign)
    if stored is None:
        return None
    key = single_choice(stored[0])
    given = blanks_as_wrong(pd.DataFrame(control_answers(store, campaign, up_to_batch, set(key["item_id"])),
                                         columns=["worker_id", "item_id", "field", "value"]), stored[1].required)
    return control_scores(given, trusted_controls(given, key))


def failed_controls(store: Store, campaign: str, batch: int, workers: list[str] | None = None,
                    accuracy: bool = False) -> dict[str, str]:
    """Of ``workers`` (None: all), those not settled yet whom their control answers so far stop, with the rule's
    words: the sequential test, and with ``accuracy`` the controls-alone rule and the quiz's pass mark."""
    recorded = _recorded_controls(store, campaign)
    if recorded is None or workers == []:
        return {}
    controls, policy, quiz = recorded
    mine = blank_rows(control_answers(store, campaign, batch, {c[0] for c in controls}, workers), policy.required)
    if workers is None:
        tallies = crowd_tallies((i, f, v, 1) for _, i, f, v in mine)
    else:  # per page: what they met, no more
        met = {item for _, item, _, _ in mine}
        controls = [c for c in controls if c[0] in met]
        tallies = crowd_tallies(control_answers(store, campaign, batch, met, tallied=True), policy.required)
    failed = control_verdicts(mine, controls, tallies, policy, quiz if accuracy else None)
    spared = settled_workers(store, campaign) if failed else set()  # asked only when a page stops someone
    return {w: r for w, r in failed.items() if w not in spared}


def _recorded_controls(store: Store, campaign: str) -> tuple[list[Control], ControlPolicy, dict[str, Any]] | None:
    """The single-choice controls as rows, their policy and the quiz's record; parsed once a recorded config."""
    def parsed() -> tuple[list[Control], ControlPolicy, dict[str, Any]] | None:
        stored = stored_controls(store, campaign)
        if stored is None:
            return None
        key = single_choice(stored[0])
        return list(zip(*(key[c] for c in KEY), strict=True)), stored[1], stored_quiz(store, campaign)
    recorded = store.rows("SELECT config_json FROM campaigns WHERE name = ?", [campaign])
    return decided((campaign, recorded[0]["config_json"] if recorded else None), parsed)


def kept_workers(store: Store, campaign: str) -> set[str]:
    """Workers whose latest word from a person is unblock or keep: the automatic block spares them."""
    rows = store.rows("SELECT worker_id, action FROM review_actions WHERE campaign = ? AND action IN "
                      "('block', 'unblock', 'keep') ORDER BY id", [campaign])
    latest = {r["worker_id"]: r["action"] for r in rows}
    return {w for w, a in latest.items() if a in ("unblock", "keep")}


def settled_workers(store: Store, campaign: str) -> set[str]:
    """Blocked already, or kept by a person: no rule stops them (again)."""
    rows = store.rows("SELECT worker_id FROM blocks WHERE campaign = ?", [campaign])
    return {r["worker_id"] for r in rows} | kept_workers(store, campaign)


def control_blocks_due(store: Store, campaign: str, batch: int) -> pd.DataFrame:
    """Blocks on control answers: pooled with agreement where the plan recorded that rule, else on controls alone;
    the sequential test; and workers stopped while the batch came in, on what was known then."""
    pooled = skill_scores_so_far(store, campaign, batch)
    due = skill_blocks(*pooled) if pooled is not None else pd.DataFrame(columns=BLOCK_COLUMNS)
    known = {**failed_controls(store, campaign, batch, accuracy=pooled is None),
             **{r["worker_id"]: r["rules"] for r in store.rows("SELECT worker_id, rules FROM blocks WHERE campaign = ? "
                                                               "AND batch = ?", [campaign, batch])
                if r["rules"].startswith(ON_CONTROLS)}}
    more = [{"worker_id": w, "rules": r, "flags": _wrong(r), "captions": 0} for w, r in known.items()
            if w not in set(due["worker_id"])]
    return pd.concat([due, pd.DataFrame(more, columns=BLOCK_COLUMNS)], ignore_index=True) if more else due


def _wrong(rules: str) -> int:
    """The wrong control answers a block's words name (``control_accuracy 0% (0/3)``: 3)."""
    m = re.search(r"(\d+)/(\d+)", rules)
    return int(m[2]) - int(m[1]) if m else 1


def skill_scores_so_far(store: Store, campaign: str, up_to_batch: int) -> tuple[pd.DataFrame, SkillPolicy] | None:
    """The pooled rule's scores of every worker up to a batch, and its policy; None where the plan has no such rule."""
    stored, pooled = stored_controls(store, campaign), stored_skill(store, campaign)
    if stored is None or pooled is None:
        return None
    # MTurk's quiz answers are kept apart from any page: they are controls the pooled rule weighs too
    labels = pd.concat([passed_quiz_answers(store, campaign, pooled[0]),
                        choice_labels(store, campaign, up_to_batch, pooled[0])], ignore_index=True)
    given = labels[labels["item_id"].isin(set(stored[0]["item_id"]))]
    return decided((labels, stored[0], pooled[1]), lambda: skill_scores(labels, trusted_controls(given, stored[0]),
                                                                          pooled[1])), pooled[1]


def pooled_evidence_so_far(store: Store, campaign: str, up_to_batch: int) -> tuple[pd.DataFrame, SkillPolicy] | None:
    """:func:`skill_scores_so_far` as workers.csv and the review page show it (POOLED_COLUMNS), and its policy."""
    scored = skill_scores_so_far(store, campaign, up_to_batch)
    return None if scored is None else (pooled_columns(*scored), scored[1])


def choice_labels(store: Store, campaign: str, up_to_batch: int, fields: list[str],
                  blocked_before: bool = False) -> pd.DataFrame:
    """Each choice label up to a batch, controls' too, with its page (``unit``); ``blocked_before``: less blocked."""
    marks = ",".join("?" * len(fields))
    unblocked = ("AND a.worker_id NOT IN (SELECT worker_id FROM blocks WHERE campaign = ? AND batch < ?) "
                 if blocked_before else "")
    return store.frame(f"SELECT a.worker_id, x.item_id, x.field, x.value, a.assignment_id AS unit FROM answers x "
                       f"JOIN assignments a ON a.campaign = x.campaign AND a.assignment_id = x.assignment_id WHERE "
                       f"a.campaign = ? AND a.batch > 0 "
                       f"AND a.batch <= ? AND a.status != 'NOT ON PROLIFIC' AND x.item_id != '' AND x.field IN "
                       f"({marks}) {unblocked}ORDER BY a.rowid, x.rowid",
                       [campaign, up_to_batch, *fields, *([campaign, up_to_batch] if blocked_before else [])],
                       ["worker_id", "item_id", "field", "value", "unit"])


def passed_quiz_answers(store: Store, campaign: str, fields: list[str]) -> pd.DataFrame:
    """The quiz answers of those who passed it where a route keeps them apart from any page (MTurk's requests),
    as :func:`choice_labels` gives labels; a control's ``unit`` is never read."""
    marks = ",".join("?" * len(fields))
    return store.frame(f"SELECT substr(assignment_id, {len(KEPT) + 1}) AS worker_id, item_id, field, value, '' AS unit "
                       f"FROM answers WHERE campaign = ? AND assignment_id LIKE '{KEPT}%' AND field IN ({marks}) "
                       f"ORDER BY rowid", [campaign, *fields], ["worker_id", "item_id", "field", "value", "unit"])


def agreement_labels(store: Store, campaign: str, up_to_batch: int, fields: list[str]) -> pd.DataFrame:
    """The choice labels up to a batch that judge one another: neither earlier-blocked workers' nor controls'."""
    given = choice_labels(store, campaign, up_to_batch, fields, blocked_before=True).drop(columns="unit")
    controls = stored_controls(store, campaign)
    return given if controls is None else given[~given["item_id"].isin(set(controls[0]["item_id"]))]


def agreement_scores_so_far(store: Store, campaign: str, up_to_batch: int) -> pd.DataFrame | None:
    """Each worker's agreement with the others' answer so far; None when the campaign does not block on it."""
    stored = stored_agreement(store, campaign)
    return None if stored is None else agreement_scores(agreement_labels(store, campaign, up_to_batch, stored[0]),
                                                        stored[1].min_others)


def agreement_blocks_due(store: Store, campaign: str, batch: int) -> pd.DataFrame:
    stored, scores = stored_agreement(store, campaign), agreement_scores_so_far(store, campaign, batch)
    return pd.DataFrame(columns=BLOCK_COLUMNS) if stored is None or scores is None else agreement_blocks(scores,
                                                                                                      stored[1])


def _with_control_blocks(due: pd.DataFrame, controls: pd.DataFrame) -> pd.DataFrame:
    """One row per worker: a worker due on flags and on controls has both in ``rules``."""
    if controls.empty:
        return due
    both = pd.concat([due, controls], ignore_index=True)
    return (both.groupby("worker_id", as_index=False, sort=True)
            .agg({**{c: "first" for c in both.columns if c not in ("worker_id", "rules", "flags")},
                  "rules": ";".join, "flags": "sum"})[list(due.columns)])
