"""The review queue over many assignments and many people's actions equals the queue worked out row by
row (each assignment's sample and flags looked up one at a time, each row's verdict by scanning every
action), the way the queue was built before it had to serve a 40,000-image ledger."""

from __future__ import annotations

import random

import pandas as pd

from qc.decisions import DecisionPolicy, decide
from qc.review_queue import ASSIGNMENT_VERDICTS, WORKER_VERDICTS, build_queue

FLAG_COLS = ["worker_id", "rule", "value", "threshold", "assignment_id", "image_id", "detail", "batch"]
RULES = ["random_sample", "min_words", "caps_lock", "quality_words", "banned_prefix"]


def _crowd(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = random.Random(seed)
    work = pd.DataFrame([[f"A{k}", f"W{rng.randrange(40)}", 1 + k % 3, 1000.0 + k] for k in range(600)],
                        columns=["assignment_id", "worker_id", "batch", "auto_approval_time"])
    flags = pd.DataFrame([[w, rng.choice(RULES), "1", "2", a, f"i{k}", "", b]
                          for k, (a, w, b) in enumerate(zip(work["assignment_id"], work["worker_id"], work["batch"],
                                                            strict=True)) if rng.random() < 0.3],
                         columns=FLAG_COLS)
    picked = work.sample(400, replace=True, random_state=seed)
    actions = pd.DataFrame([[int(b), w, a, rng.choice([*ASSIGNMENT_VERDICTS, *WORKER_VERDICTS, "bonus"]), "ann"]
                            for a, w, b in zip(picked["assignment_id"], picked["worker_id"], picked["batch"],
                                               strict=True)],
                           columns=["batch", "worker_id", "assignment_id", "action", "reviewer"])
    return flags, work, actions


def _row_by_row(flags: pd.DataFrame, work: pd.DataFrame, actions: pd.DataFrame, mode: str, now: float
                ) -> dict[str, tuple[object, ...]]:
    """Assignment rows only: (why, rules, auto_action, seconds_left, decided) by item."""
    out = {}
    for batch in sorted({int(b) for b in flags["batch"]}):
        mine = flags[flags["batch"] == batch]
        part = work[work["batch"] == batch]
        auto = decide(mine, part, DecisionPolicy()).set_index("assignment_id")
        for a in part.itertuples():
            rules = ",".join(sorted(set(mine.loc[mine["assignment_id"] == a.assignment_id, "rule"])))
            sampled = bool(auto.loc[a.assignment_id, "review"])
            if not (sampled or (mode == "flagged" and rules)):
                continue
            said = actions[(actions["assignment_id"] == a.assignment_id)
                           & actions["action"].isin(ASSIGNMENT_VERDICTS)]["action"]
            out[f"a:{a.assignment_id}"] = ("sampled" if sampled else "flagged", rules,
                                           auto.loc[a.assignment_id, "action"], a.auto_approval_time - now,
                                           said.iloc[-1] if len(said) else "")
    return out


def test_the_queue_equals_the_row_by_row_queue_on_a_busy_ledger() -> None:
    for seed, mode, least in ((1, "flagged", 100), (2, "sample", 20)):
        flags, work, actions = _crowd(seed)
        queue = build_queue(flags, work, actions, DecisionPolicy(), mode, now=900.0)
        rows = queue[queue["kind"] == "assignment"].set_index("item")
        got = {i: (r.why, r.rules, r.auto_action, r.seconds_left, r.decided) for i, r in rows.iterrows()}
        expected = _row_by_row(flags, work, actions, mode, 900.0)
        assert len(expected) > least and got == expected
        assert {"approve", "reject"} <= {v[-1] for v in got.values()}  # verdicts were found, both kinds
        workers = queue[queue["kind"] == "worker"]
        for w, decided in zip(workers["worker_id"], workers["decided"], strict=True):
            said = actions[(actions["worker_id"] == w) & actions["action"].isin(WORKER_VERDICTS)]["action"]
            assert decided == (said.iloc[-1] if len(said) else "")
