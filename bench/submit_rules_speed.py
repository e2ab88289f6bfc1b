"""The submit rules over 200,000 captions (``make bench-submit-rules``): each registered caption rule
on its own (the server's QC) and ``violations`` per caption (the simulator's path), least CPU time of a few runs.

The batch is bench/qc_load.py's (real VizWiz captions, 10% canned, a few abusers), with 1% of the
captions blanked or padded with invisible characters so the ``required`` rule has work to do.
"""

from __future__ import annotations

import os
import time
from typing import Any

from bench.qc_load import load_batch
from qc.flags import RULES
from qc.submit_rules import SubmitRules, violations

RULE_NAMES = ("required", "min_words", "one_sentence", "banned_prefix", "max_chars")


def _fastest(fn: Any, repeats: int) -> tuple[float, Any]:
    """The least CPU time of a few runs (the 2-core machine is shared: wall time says more about
    the neighbours than about the rule)."""
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return best, out


def bench_submit_rules(n: int = 200_000, repeats: int = 3) -> dict[str, Any]:
    frame = load_batch(n)
    blanks = frame.index[::100]
    blank_texts = ["", "   ", "\ufeff", "\u200b \u00a0"]
    frame.loc[blanks, "caption"] = [blank_texts[k % 4] for k in range(len(blanks))]
    params = {"submit_rules": SubmitRules(max_chars=100)}
    load_before = os.getloadavg()[0]
    out: dict[str, Any] = {"captions": n, "load_average_1min": round(load_before, 2)}
    for name in RULE_NAMES:
        if name not in RULES:
            continue
        seconds, flags = _fastest(lambda name=name: RULES[name].fn(frame, params), repeats)
        out[f"{name}_s"], out[f"{name}_flags"] = round(seconds, 3), len(flags)
    texts = frame["caption"].tolist()
    seconds, found = _fastest(lambda: [violations(t, params["submit_rules"]) for t in texts], repeats)
    out["violations_s"], out["violations_flagged"] = round(seconds, 3), sum(1 for v in found if v)
    return out


if __name__ == "__main__":
    print(bench_submit_rules())
