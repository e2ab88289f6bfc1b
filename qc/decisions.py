"""Turn a batch's flag table into assignment decisions and worker blocks.

Input columns: flags as in :mod:`qc.flags`; assignments with ``assignment_id, worker_id``.
Outputs: decisions ``assignment_id, worker_id, action, reasons, review`` and blocks
``worker_id, rules, flags`` (one row per worker to block before the next batch).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

SUBMIT_RULES = ("required", "min_words", "one_sentence", "banned_prefix", "max_chars")


@dataclass(frozen=True)
class DecisionPolicy:
    """Which flags reject work, which block workers, which only ask for a human look."""

    reject_rules: tuple[str, ...] = SUBMIT_RULES
    block_min_flags: dict[str, int] = field(default_factory=lambda: {
        "time_outlier": 1, "caps_lock": 1, "canned_overuse": 1, "duplicate_text": 1,
        "quality_words": 2, "canned_lone_use": 3, "canned_lone_nonuse": 3,
        "min_words": 1, "one_sentence": 1, "banned_prefix": 1, "max_chars": 1,
    })
    review_rules: tuple[str, ...] = ("random_sample",)
    reject_feedback: str = (
        "Your answer broke the task's submit rules ({rules}), which the task page checks "
        "before it lets anyone submit; it was posted around the page."
    )


def decide(flags: pd.DataFrame, assignments: pd.DataFrame, policy: DecisionPolicy) -> pd.DataFrame:
    """One decision per assignment: reject when a reject rule fired on it, else approve."""
    by_assignment = flags[flags["assignment_id"] != ""].groupby("assignment_id")["rule"].agg(set)
    rows = []
    for _, a in assignments.drop_duplicates("assignment_id").iterrows():
        fired = by_assignment.get(a["assignment_id"], set())
        rejecting = sorted(fired & set(policy.reject_rules))
        rows.append({
            "assignment_id": a["assignment_id"], "worker_id": a["worker_id"],
            "action": "reject" if rejecting else "approve",
            "reasons": ",".join(rejecting),
            "review": bool(fired & set(policy.review_rules)),
        })
    return pd.DataFrame(rows, columns=["assignment_id", "worker_id", "action", "reasons", "review"])


def workers_to_block(flags: pd.DataFrame, policy: DecisionPolicy) -> pd.DataFrame:
    """Workers with at least the policy's count of flags for any blocking rule."""
    counts = flags[flags["worker_id"] != ""].groupby(["worker_id", "rule"]).size()
    blocked: dict[str, dict[str, int]] = {}
    for (worker, rule), n in counts.items():
        need = policy.block_min_flags.get(str(rule))
        if need is not None and n >= need:
            blocked.setdefault(str(worker), {})[str(rule)] = int(n)
    rows = [{"worker_id": w, "rules": ";".join(f"{rule}x{n}" for rule, n in sorted(r.items())),
             "flags": sum(r.values())}
            for w, r in sorted(blocked.items())]
    return pd.DataFrame(rows, columns=["worker_id", "rules", "flags"])
