"""A campaign report's data, made up: as many blocked workers as a test needs."""

from __future__ import annotations

from typing import Any

import pandas as pd

from postprocess.report_data import time_bands


def sample_report_data(blocked_rows: int = 3, text: str = "a person is holding a white mug") -> dict[str, Any]:
    """``text``: each blocked worker's sample captions and history line (a hostile string, say)."""
    times = pd.DataFrame({"batch": [1, 1, 1], "work_time_s": [10.0, 20.0, 30.0]})
    return {
        "name": "sample", "target": "sim",
        "summary": {"captions": 3, "kept": 3, "workers": 1, "blocked": blocked_rows, "spent": "1.00",
                    "budget": "2.00", "share_of_budget": "50%", "created": "2026-11-24 05:00 UTC",
                    "first_work": "2026-11-24 05:01 UTC", "last_work": "2026-11-24 05:02 UTC",
                    "needs": [{"what": text, "by": "2026-11-25 05:00 UTC", "urgent": True}],
                    "about": "", "lines": [], "figures": [("captions kept", "3 of 3"), ("workers", "1"),
                                                          ("blocked", str(blocked_rows)),
                                                          ("cost with fees", "$1.00 of $2.00 (50%)")],
                    "provenance": [("config", "sample.toml (sha256 0f1e2d3c)"), ("seed", "1")]},
        "counts": pd.DataFrame([{"batch": 1, "assignments": 3, "approved": 3, "rejected": 0, "flags": 1,
                                 "blocked": blocked_rows}]),
        "times": times, "bands": time_bands(times),
        "flags": pd.DataFrame({"rule": ["caps_lock"]}),
        "blocked": pd.DataFrame([{"worker_id": f"AW{i:05d}", "batch": 1, "rules": "caps_lock 80%",
                                  "samples": [text] * 3, "history": [f"batch 1: 5 captions, {text}"]}
                                 for i in range(blocked_rows)]),
        "canned": pd.DataFrame([{"workers_using_canned": 0, "images": 1, "share": 1.0}]),
        "spelling": {"captions": 1, "captions_changed": 0, "share_changed": 0.0, "tokens_changed": 0},
        "cost": {"spent": "1.00", "budget": "2.00", "approved": 1, "unit": "1.00"}, "truth": None}
