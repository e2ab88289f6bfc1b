"""Turn flag tables into assignment decisions and worker blocks (docs/explanation/qc-rules.md).
Input columns: flags as in :mod:`qc.flags`; assignments with ``assignment_id, worker_id``.
Outputs: decisions ``assignment_id, worker_id, action, reasons, review`` and blocks
``worker_id, rules, flags`` (one row per worker to block before the next batch).
Blocks go by rates over the campaign (:mod:`qc.worker_history`, ``block_min_rate``) or by counts in one batch
(``block_min_flags``). With ``reject_grounds`` (rule -> category), a reject rule that is no ground sends the
work to a person. ``REVIEW_ONLY_FLAGS`` only ever ask a person to look."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import pandas as pd

from qc.timing_rules import REVIEW_ONLY_FLAGS, SLOW_RULE

SUBMIT_RULES = ("required", "min_words", "one_sentence", "banned_prefix", "max_chars")


@dataclass(frozen=True)
class DecisionPolicy:
    """Which flags reject work, which block workers, which only ask for a human look."""

    reject_rules: tuple[str, ...] = SUBMIT_RULES
    block_min_flags: dict[str, int] = field(default_factory=lambda: {
        "time_outlier": 1, "caps_lock": 1, "canned_overuse": 1, "duplicate_text": 1,
        "quality_words": 2, "canned_lone_use": 3, "canned_lone_nonuse": 3,
        "required": 1, "min_words": 1, "one_sentence": 1, "banned_prefix": 1, "max_chars": 1,
    })
    # Empty: block on counts per batch (block_min_flags), as configs written before rates did.
    block_min_rate: dict[str, float] = field(default_factory=dict)
    # True (custom pages): rules with a rate are judged on rates, the others in block_min_flags on
    # counts per batch; False: rates replace counts altogether (caption campaigns)
    block_counts_beside_rates: bool = False
    block_min_evidence: int = 5
    # z of the Wilson lower bound the covered share must reach (0: the plain share): a few flags weigh less
    block_rate_confidence: float = 0.0
    # malformed_answer (qc/answer_faults.py): an answer that could not be read may be our defect, so a
    # person looks; it neither rejects nor blocks unless a config says so
    review_rules: tuple[str, ...] = ("random_sample", "malformed_answer")
    # One rule rejecting or blocking more than this share of a batch's workers holds the batch for a
    # person instead (flows/campaigns/batch_hold.py): it points at the page or the rule, not at fraud.
    hold_share: float = 0.5
    # rule -> the route's rejection category; None: any reject rule rejects (flows/campaigns/route_policy.py)
    reject_grounds: dict[str, str] | None = None
    reject_feedback: str = (
        "Your answer broke the task's submit rules ({rules}), which the task page checks "
        "before it lets anyone submit; it was posted around the page."
    )

    def __post_init__(self) -> None:
        misused = review_only_misused({"reject_rules": self.reject_rules, "block_min_flags": self.block_min_flags,
                                       "block_min_rate": self.block_min_rate})
        if misused:
            raise ValueError(f"{misused[0]} names {misused[1]}, {REVIEW_ONLY_WHY}")


REVIEW_ONLY_WHY = ("which only asks a person to look (its evidence alone is too weak: a slow worker may have parked "
                   "the HIT, one improbable run among many workers is chance); take it out, or put it in "
                   "[policy].review_rules")


def review_only_misused(punishing: dict[str, Iterable[str]]) -> tuple[str, str] | None:
    """(the key, the flag) where a flag that only asks a person to look would reject or block; None if nowhere."""
    for key, rules in punishing.items():
        named = [r for r in rules if r in REVIEW_ONLY_FLAGS]
        if named:
            return key, named[0]
    return None


def decide(flags: pd.DataFrame, assignments: pd.DataFrame, policy: DecisionPolicy) -> pd.DataFrame:
    """One decision per assignment: reject when a reject rule fired on it, else approve."""
    named = flags[flags["assignment_id"] != ""]
    by_assignment: dict[str, set[str]] = {}
    # plain lists, not groupby().agg(set): a Python call per group was ~0.06 s per batch of 8,000 images
    for assignment_id, rule in zip(named["assignment_id"].tolist(), named["rule"].tolist(), strict=True):
        by_assignment.setdefault(assignment_id, set()).add(rule)
    reject_rules, review_rules = set(policy.reject_rules), set(policy.review_rules)
    unique = assignments.drop_duplicates("assignment_id")
    ids = unique["assignment_id"].tolist()
    columns = ["assignment_id", "worker_id", "action", "reasons", "review"]
    if not ids:
        return pd.DataFrame(columns=columns)
    # plain lists, not iterrows(): a Series per row was ~1/6 of the decide step's own time
    rejecting = [sorted(by_assignment.get(a, set()) & reject_rules) for a in ids]
    review = [bool(by_assignment.get(a, set()) & review_rules) for a in ids]
    if policy.reject_grounds is not None:  # the rest of the reject rules' flags go to a person
        grounds = policy.reject_grounds
        kept = [[r for r in rules if r in grounds] for rules in rejecting]
        # work a ground rejects needs no person for its other findings; work no ground rejects does
        review = [seen or (bool(rules) and not ground) for seen, rules, ground in zip(review, rejecting, kept,
                                                                                       strict=True)]
        rejecting = kept
    return pd.DataFrame({"assignment_id": ids, "worker_id": unique["worker_id"].tolist(),
                         "action": ["reject" if r else "approve" for r in rejecting],
                         "reasons": [",".join(r) for r in rejecting],
                         "review": review}, columns=columns)


# Shares of a worker's captions (the text rules' used when they are enabled).
CAPTION_BLOCK_RATES: dict[str, float] = {
    "time_outlier": 0.5, "caps_lock": 0.5, "canned_overuse": 0.7, "duplicate_text": 0.2,
    "quality_words": 0.3, "canned_lone_use": 0.3, "canned_lone_nonuse": 0.4,
    "required": 0.2, "min_words": 0.2, "one_sentence": 0.2, "banned_prefix": 0.2, "max_chars": 0.2,
    "consensus": 0.4, "consensus_rate": 0.5, "shared_template": 0.3, "near_template": 0.3,
    "instruction_echo": 0.3, "quality_words_rate": 0.3,
    # how the text arrived (qc/telemetry_rules.py): pasting now and then is honest, nearly always is not
    "paste_external": 0.9, "untyped_text": 0.9, "switch_then_paste": 0.5, "typing_cadence": 0.3,
}


def caption_policy() -> DecisionPolicy:
    """The caption campaigns' default: block on rates over the campaign so far."""
    return DecisionPolicy(block_min_rate=dict(CAPTION_BLOCK_RATES),
                          review_rules=("random_sample", "malformed_answer", SLOW_RULE))


def workers_to_block(flags: pd.DataFrame, policy: DecisionPolicy) -> pd.DataFrame:
    """Workers with at least the policy's count of flags for any blocking rule (one batch's flags)."""
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
