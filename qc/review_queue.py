"""The review queue, each worker's history, and people against the rules.
Inputs: ``flags`` (:data:`QUEUE_FLAG_COLUMNS` + ``batch``); ``assignments`` (``assignment_id, worker_id, batch,
auto_approval_time``, NaN if unknown); ``actions`` (oldest first: ``batch, worker_id, assignment_id, action,
reviewer``); ``blocks`` (``worker_id, batch``). :func:`build_queue` gives :data:`QUEUE_COLUMNS` (``why``:
sampled | flagged | would_block | person; ``decided`` "" while open)."""

from __future__ import annotations

import re

import pandas as pd

from qc.decisions import DecisionPolicy, decide, workers_to_block

QUEUE_COLUMNS = ["item", "kind", "batch", "worker_id", "assignment_id", "why", "rules", "auto_action", "decided",
                 "seconds_left"]
QUEUE_FLAG_COLUMNS = ["worker_id", "rule", "assignment_id", "batch"]
ASSIGNMENT_VERDICTS = ("approve", "reject")


def rule_names(rules: str) -> set[str]:
    """Rule names in a queue row's ``rules``: each part's leading name (split outside parentheses)."""
    names = (re.match(r"\s*([A-Za-z_]\w*)", part) for part in re.split(r"[,;](?![^()]*\))", rules))
    return {re.sub(r"x\d+$", "", m.group(1)) for m in names if m}
WORKER_VERDICTS = ("block", "unblock", "keep")


def build_queue(flags: pd.DataFrame, assignments: pd.DataFrame, actions: pd.DataFrame, policy: DecisionPolicy,
                mode: str, now: float, would_block: dict[int, pd.DataFrame] | None = None) -> pd.DataFrame:
    """The queue for ``mode`` "sample" (what a review rule picked) or "flagged" (also every flagged assignment and
    every worker the block step would block: ``would_block`` per batch, else one batch's flag counts), oldest first."""
    rows: list[dict[str, object]] = []
    # a batch without flags still lists the blocks due on evidence outside them (control items, agreement)
    batches = sorted({int(b) for b in flags["batch"]} | set(would_block or {}))
    for batch in batches:
        batch_flags = flags[flags["batch"].astype(int) == batch]
        work = assignments[assignments["batch"].astype(int) == batch]
        # only a flagged assignment can be an item (a review pick is a flag too), not all of a 40,000-image batch's
        named = set(batch_flags["assignment_id"].tolist())  # plain sets: Arrow-backed isin cost more than it saved
        work = work[[a in named for a in work["assignment_id"].tolist()]]
        auto = decide(batch_flags, work, policy).set_index("assignment_id")
        rows += _assignment_rows(work, auto, _rules_fired(batch_flags), mode, batch, now)
        due = would_block.get(int(batch)) if would_block is not None else None
        due = workers_to_block(batch_flags, policy) if due is None else due
        if mode == "flagged":
            for w in due.itertuples():
                rows.append({"item": f"w:{w.worker_id}", "kind": "worker", "batch": int(batch),
                             "worker_id": w.worker_id, "assignment_id": "", "why": "would_block",
                             "rules": w.rules, "auto_action": "block", "seconds_left": float("nan")})
        looked_at = _workers_to_look_at(batch_flags, policy, set(due["worker_id"]), mode, int(batch))
        rows += looked_at
        listed = {str(r["worker_id"]) for r in looked_at} | (set(due["worker_id"]) if mode == "flagged" else set())
        rows += _blocked_by_a_person(actions, int(batch), set(due["worker_id"]), listed)
    queue = pd.DataFrame(rows, columns=[c for c in QUEUE_COLUMNS if c != "decided"])
    # one pass over the actions, not one scan a queue row (8,000 scans took 40 s at 40,000 images)
    on_assignment = _latest(actions, "assignment_id", ASSIGNMENT_VERDICTS)
    on_worker = _latest(actions, "worker_id", WORKER_VERDICTS)
    queue["decided"] = [on_assignment.get(a, "") if k == "assignment" else on_worker.get(w, "")
                        for k, w, a in zip(queue["kind"], queue["worker_id"], queue["assignment_id"], strict=True)]
    return queue[QUEUE_COLUMNS]


def _assignment_rows(work: pd.DataFrame, auto: pd.DataFrame, fired: pd.Series, mode: str, batch: int,
                     now: float) -> list[dict[str, object]]:
    """The batch's assignments a review rule sampled (in "flagged" mode, every flagged one); ``auto``: decide's."""
    unique = work.drop_duplicates("assignment_id")
    # dicts and lists, not Series.map: an Arrow-backed index lookup a column cost ~15 ms per batch at 40,000 images
    decided = auto.index.tolist()
    review = dict(zip(decided, auto["review"].tolist(), strict=True))
    verdict = dict(zip(decided, auto["action"].tolist(), strict=True))
    rules_of = {str(a): str(r) for a, r in fired.items()}
    left = (unique["auto_approval_time"].astype(float) - now).tolist()
    rows: list[dict[str, object]] = []
    for a, w, t in zip(unique["assignment_id"].tolist(), unique["worker_id"].tolist(), left, strict=True):
        sampled, rules = bool(review.get(a, False)), rules_of.get(a, "")
        if sampled or (mode == "flagged" and rules):
            rows.append({"item": f"a:{a}", "kind": "assignment", "batch": int(batch), "worker_id": w,
                         "assignment_id": a, "why": "sampled" if sampled else "flagged", "rules": rules,
                         "auto_action": verdict.get(a, float("nan")), "seconds_left": float(t)})
    return rows


def _rules_fired(flags: pd.DataFrame) -> pd.Series:
    """Each flagged assignment's rules, sorted and comma-separated."""
    named = flags[flags["assignment_id"] != ""]
    fired: dict[str, set[str]] = {}
    # plain lists, not groupby().agg(",".join): a Python call per group (the overview asks for each batch)
    for assignment_id, rule in zip(named["assignment_id"].tolist(), named["rule"].tolist(), strict=True):
        fired.setdefault(assignment_id, set()).add(rule)
    return pd.Series({a: ",".join(sorted(rules)) for a, rules in sorted(fired.items())}, dtype=object, name="rule")


def _latest(actions: pd.DataFrame, column: str, verdicts: tuple[str, ...]) -> dict[str, str]:
    """Each ``column`` value's latest action among ``verdicts`` (the actions are oldest first)."""
    mine = actions[actions["action"].isin(verdicts)]
    return dict(zip(mine[column], mine["action"], strict=True))


def _workers_to_look_at(flags: pd.DataFrame, policy: DecisionPolicy, proposed: set[str], mode: str,
                        batch: int) -> list[dict[str, object]]:
    """Workers a review rule flagged as a whole (``time_outlier_slow``), once each, unless listed already as blocks."""
    mine = flags[(flags["assignment_id"] == "") & (flags["worker_id"] != "") & flags["rule"].isin(policy.review_rules)]
    fired: dict[str, set[str]] = {}
    for worker, rule in zip(mine["worker_id"].tolist(), mine["rule"].tolist(), strict=True):
        fired.setdefault(str(worker), set()).add(str(rule))
    return [{"item": f"w:{w}", "kind": "worker", "batch": batch, "worker_id": w, "assignment_id": "",
             "why": "flagged", "rules": ",".join(sorted(rules)), "auto_action": "block" if w in proposed else "keep",
             "seconds_left": float("nan")}
            for w, rules in sorted(fired.items()) if not (mode == "flagged" and w in proposed)]


def _blocked_by_a_person(actions: pd.DataFrame, batch: int, proposed: set[str], listed: set[str]
                         ) -> list[dict[str, object]]:
    """Workers a person blocked in the batch who are not queue items yet (``listed``)."""
    mine = actions[(actions["batch"].astype(int) == batch) & (actions["action"] == "block")]
    return [{"item": f"w:{w}", "kind": "worker", "batch": batch, "worker_id": w, "assignment_id": "",
             "why": "person", "rules": "", "auto_action": "block" if w in proposed else "keep",
             "seconds_left": float("nan")}
            for w in dict.fromkeys(mine["worker_id"]) if w not in listed]


def worker_history(flags: pd.DataFrame, assignments: pd.DataFrame, decisions: pd.DataFrame,
                   blocks: pd.DataFrame) -> pd.DataFrame:
    """Per worker and batch: ``worker_id, batch, assignments, flags, rejected, blocked`` (0/1), by ``decisions``."""
    work = assignments.groupby(["worker_id", "batch"])["assignment_id"].nunique().rename("assignments")
    flagged = flags[flags["worker_id"] != ""].groupby(["worker_id", "batch"]).size().rename("flags")
    rejected_ids = set(decisions.loc[decisions["action"] == "reject", "assignment_id"])
    rejected = (assignments[assignments["assignment_id"].isin(rejected_ids)]
                .groupby(["worker_id", "batch"])["assignment_id"].nunique().rename("rejected"))
    out = pd.concat([work, flagged, rejected], axis=1).fillna(0).astype(int).reset_index()
    out.columns = ["worker_id", "batch", "assignments", "flags", "rejected"]
    blocked = set(zip(blocks["worker_id"], blocks["batch"].astype(int), strict=True))
    out["blocked"] = [int((w, int(b)) in blocked) for w, b in zip(out["worker_id"], out["batch"], strict=True)]
    return out.sort_values(["worker_id", "batch"]).reset_index(drop=True)


def people_vs_rules(queue: pd.DataFrame) -> pd.DataFrame:
    """Per batch: ``batch, reviewed, open, agreed, overturned, changes`` ("reject->approve x2") of a built queue."""
    rows = []
    for batch, part in queue.groupby("batch", sort=True):
        done = part[part["decided"] != ""]
        person = done["decided"].replace({"unblock": "keep"})
        agreed = person == done["auto_action"]
        changes = (done.loc[~agreed, "auto_action"] + "->" + person[~agreed]).value_counts()
        rows.append({"batch": int(batch), "reviewed": len(done), "open": int((part["decided"] == "").sum()),
                     "agreed": int(agreed.sum()), "overturned": int((~agreed).sum()),
                     "changes": ", ".join(f"{k} x{v}" for k, v in sorted(changes.items()))})
    return pd.DataFrame(rows, columns=["batch", "reviewed", "open", "agreed", "overturned", "changes"])
