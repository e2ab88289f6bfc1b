"""Benchmark: what keeping the simulator's marketplace in a SQLite file costs (``make bench-sim-state``).

The same sequence through boto3 and the adapter, with the marketplace in memory and in a state
file: post N HITs x 5 assignments, let the virtual clock run, list every HIT's assignments,
approve every assignment. Then the state file is reopened (what `status`/`reconcile`/a resumed
run pay at start). Figures go to stdout and bench/sim_state.json; nothing here is a test.

    python -m bench.sim_state [N_HITS]   (default 2,000 HITs = 10,000 assignments)
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from flows.core.pages.mturk_forms import html_question
from flows.core.pages.templates import render, sample_context
from flows.platforms.mturk import adapter as mturk
from flows.platforms.targets import advance_sim_clock
from flows.sim.service.server import SimServer

ROOT = Path(__file__).resolve().parents[1]


def campaign_calls(sim: SimServer, n_hits: int) -> dict[str, float]:
    """Wall seconds per phase, and calls made, for one simulated campaign's worth of traffic."""
    page = html_question(render("caption.html.j2", sample_context("caption")))
    target = mturk.Target("sim", sim.url)
    client = mturk.make_client(target)
    type_id = mturk.create_hit_type(client, {"Title": "t", "Description": "d", "Reward": "0.55",
                                             "AssignmentDurationInSeconds": 3600,
                                             "AutoApprovalDelayInSeconds": 259200})
    times: dict[str, float] = {}
    start = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        hit_ids = list(pool.map(lambda i: mturk.create_hit(
            client, type_id, {"MaxAssignments": 5, "LifetimeInSeconds": 604800, "Question": page,
                              "RequesterAnnotation": f"bench:b1:h{i}"}, f"bench-{i}")[0], range(n_hits)))
    times["post_s"] = time.perf_counter() - start
    advance_sim_clock(target, 2 * 86400)
    start = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        found = [a["AssignmentId"] for subs in pool.map(lambda h: mturk.list_submissions(client, h), hit_ids)
                 for a in subs]
    times["collect_s"] = time.perf_counter() - start
    start = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda a: mturk.approve(client, a), found))
    times["approve_s"] = time.perf_counter() - start
    calls = sim.market.calls
    total = sum(times.values())
    return {**{k: round(v, 2) for k, v in times.items()}, "assignments": len(found),
            "approved": outcomes.count("approved"), "calls": calls, "ms_per_call": round(1000 * total / calls, 3)}


def bench(n_hits: int) -> dict[str, Any]:
    money = {"balance": "10000000.00"}  # enough for any N
    with SimServer(seed=5, **money) as sim:
        memory = campaign_calls(sim, n_hits)
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "market.db"
        with SimServer(seed=5, state=state, **money) as sim:
            stored = campaign_calls(sim, n_hits)
        size_mb = state.stat().st_size / 1e6 + sum(p.stat().st_size for p in Path(tmp).glob("*-wal")) / 1e6
        start = time.perf_counter()
        with SimServer(seed=None, state=state) as again:
            loaded = len(again.market.assignments)
        reopen_s = time.perf_counter() - start
    return {"hits": n_hits, "in_memory": memory, "state_file": stored,
            "overhead_ms_per_call": round(stored["ms_per_call"] - memory["ms_per_call"], 3),
            "state_mb": round(size_mb, 1), "reopen_s": round(reopen_s, 2), "reopened_assignments": loaded}


def main() -> None:
    n_hits = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    result = bench(n_hits)
    print(json.dumps(result, indent=1))
    (ROOT / "bench" / "sim_state.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
