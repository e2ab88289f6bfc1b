"""``make bench-latency``: post, collect and decide N HITs x 5 assignments at a network round trip per call.

The simulator answers every call after ``--latency-ms`` (150 ms, a transatlantic round trip to
MTurk's endpoint) and refuses calls above ``--rate-limit`` per second with ThrottlingException
(a token bucket: ``flows/sim/service/pacing.py``).

Each runs against its own ``hitflow sim serve`` process. The two clients:

- the naive loop: plain boto3, one call at a time: CreateHITType, CreateHITWithHITType per HIT,
  then (told for free when the crowd is done, so it never polls) ListAssignmentsForHIT per HIT
  and ApproveAssignment per assignment;
- hitflow's own steps: publish_batch, collect_batch (which polls), qc_batch and decide_batch,
  every platform write through the ledger (intent before call, settled after).

The naive loop gets the crowd's completion for free and approves without QC, so the ratio is
conservative. MTurk does not publish its request rate limit ("It is highly unlikely that you
will reach this limit with normal activity": Making REST Requests, MTurk API guide 2008-08-02);
the figure is a parameter, and the result says which was used. Writes ``bench/results-latency.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.chaos import sim_process
from bench.scale import CONFIG, CROWD, machine

RESULTS = Path(__file__).resolve().parent / "results-latency.json"
CROWD_DONE_S = 3 * 86400.0  # virtual time after which every HIT of the batch is closed


class Calls:
    """Calls the client made and HTTP attempts it sent (attempts - calls: throttled calls repeated)."""

    def __init__(self, client: Any):
        self._calls, self._sends = itertools.count(), itertools.count()  # next() is atomic: any thread
        client.meta.events.register("before-call.mturk", self._call)
        client.meta.events.register("before-send.mturk", self._send)

    def _call(self, **_: Any) -> None:  # a handler's return value would replace botocore's request
        next(self._calls)

    def _send(self, **_: Any) -> None:
        next(self._sends)

    def counts(self) -> dict[str, int]:
        calls, sends = next(self._calls), next(self._sends)
        return {"platform_calls": calls, "retried_attempts": sends - calls}


@contextmanager
def remote_run(latency_ms: float, rate: float) -> Iterator[tuple[Any, Calls]]:
    """A Run of the full-scale config against ``hitflow sim serve`` in its own process (as MTurk is
    another machine: its CPU is not this process's), answering after ``latency_ms`` and throttling
    above ``rate`` calls per second; its clock moves only when the run waits."""
    from flows.campaigns.campaign_plan import Run
    from flows.campaigns.task_pages import task_page
    from flows.core.config.config import load_config
    from flows.core.ledger.store import Store
    from flows.platforms.mturk import adapter as mturk
    from flows.platforms.targets import advance_sim_clock

    faults = ("--crowd", str(CROWD), "--latency-ms", f"{latency_ms:g}", "--rate-limit", f"{rate:g}")
    with tempfile.TemporaryDirectory() as tmp, sim_process(5, *faults) as url:
        target = mturk.Target("sim", url)
        client = mturk.make_client(target)

        def wait(seconds: float) -> None:  # the simulator's clock moves on; nobody sleeps
            advance_sim_clock(target, seconds)

        run = Run(load_config(CONFIG), Store(Path(tmp) / "ledger.db"), client, target, lambda _m: None, wait,
                  page=task_page)
        yield run, Calls(client)


def naive_loop(n_hits: int, latency_ms: float, rate: float) -> dict[str, Any]:
    """The sequential boto3 loop, timed per phase."""
    from flows.campaigns.campaign_plan import plan_items
    from flows.core.pages.mturk_forms import html_question
    from flows.platforms.mturk.batch_publish import hit_type_params
    from flows.platforms.units import hit_groups, page_html

    with remote_run(latency_ms, rate) as (run, calls):
        plan_items(run, n_hits * run.cfg.images_per_hit * run.cfg.batches)
        questions = [html_question(page_html(run, items)) for _, items in hit_groups(run, 1)]  # untimed: no call
        client, phases = run.client, {}
        start = time.perf_counter()
        params = {k: v for k, v in hit_type_params(run, "").items() if k != "QualificationRequirements"}
        type_id = client.create_hit_type(**params)["HITTypeId"]
        hit_ids = [client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=5, LifetimeInSeconds=86400,
                                                   Question=q, UniqueRequestToken=f"naive-{i}")["HIT"]["HITId"]
                   for i, q in enumerate(questions)]
        phases["post"] = time.perf_counter() - start
        run.wait(CROWD_DONE_S)  # told for free when the crowd is done: no polling (not counted as a call)
        mark = time.perf_counter()
        assignments = [a["AssignmentId"] for h in hit_ids
                       for a in client.list_assignments_for_hit(HITId=h, MaxResults=100)["Assignments"]]
        phases["collect"] = time.perf_counter() - mark
        mark = time.perf_counter()
        for assignment_id in assignments:
            client.approve_assignment(AssignmentId=assignment_id)
        phases["decide"] = time.perf_counter() - mark
        return _result(time.perf_counter() - start, phases, calls, len(assignments))


def hitflow_steps(n_hits: int, latency_ms: float, rate: float) -> dict[str, Any]:
    """hitflow's publish, collect, QC and decide steps on one batch of ``n_hits`` HITs, timed per phase."""
    from flows.campaigns.batch_review import decide_batch, qc_batch
    from flows.campaigns.campaign_plan import plan_items
    from flows.platforms.mturk.batch_collect import collect_batch
    from flows.platforms.mturk.batch_publish import publish_batch

    with remote_run(latency_ms, rate) as (run, calls):
        plan_items(run, n_hits * run.cfg.images_per_hit * run.cfg.batches)
        phases: dict[str, float] = {}
        start = time.perf_counter()
        for phase, step in (("post", publish_batch), ("collect", collect_batch), ("qc", qc_batch),
                            ("decide", decide_batch)):
            mark = time.perf_counter()
            step(run, 1)
            phases[phase] = time.perf_counter() - mark
        total = time.perf_counter() - start
        stored = run.store.rows("SELECT count(*) AS n FROM assignments WHERE campaign = ?", [run.cfg.name])[0]["n"]
        applied = run.store.rows("SELECT count(*) AS n FROM decisions WHERE campaign = ? AND applied != ''",
                                 [run.cfg.name])[0]["n"]
        return {**_result(total, phases, calls, stored), "decisions_applied": applied}


def _result(total: float, phases: dict[str, float], calls: Calls, assignments: int) -> dict[str, Any]:
    return {"seconds": round(total, 1), "phases_s": {k: round(v, 1) for k, v in phases.items()},
            "assignments": assignments, **calls.counts(), "load_avg_1m": round(os.getloadavg()[0], 2)}


def measure(hits: int = 300, latency_ms: float = 150.0, rate_limit: float = 100.0,
            skip_naive: float = 0.0) -> dict[str, Any]:
    """hitflow's steps, then the naive loop (unless ``skip_naive`` gives its seconds), and the ratio."""
    out: dict[str, Any] = {"hits": hits, "assignments_per_hit": 5, "latency_ms": latency_ms,
                           "rate_limit_per_s": rate_limit, "machine": machine()}
    out["hitflow"] = hitflow_steps(hits, latency_ms, rate_limit)
    print(json.dumps(out["hitflow"]), flush=True)
    out["naive_boto3"] = ({"seconds": skip_naive, "reused": True} if skip_naive
                          else naive_loop(hits, latency_ms, rate_limit))
    print(json.dumps(out["naive_boto3"]), flush=True)
    out["ratio"] = round(out["naive_boto3"]["seconds"] / out["hitflow"]["seconds"], 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hits", type=int, default=300)
    ap.add_argument("--latency-ms", type=float, default=150.0)
    ap.add_argument("--rate-limit", type=float, default=100.0, help="calls per second before ThrottlingException")
    ap.add_argument("--skip-naive", type=float, default=0.0,
                    help="reuse this many seconds for the naive loop instead of running it (it takes ~5 min)")
    a = ap.parse_args()
    out = measure(a.hits, a.latency_ms, a.rate_limit, a.skip_naive)
    print(f"end to end, {a.hits} HITs x 5 at {a.latency_ms:g} ms per call, rate limit {a.rate_limit:g}/s: "
          f"naive loop {out['naive_boto3']['seconds']} s, hitflow {out['hitflow']['seconds']} s: "
          f"{out['ratio']}x (target >= 10x)", flush=True)
    if not a.skip_naive:
        RESULTS.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
