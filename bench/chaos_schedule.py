"""A fixed kill -9 schedule, run by ``make bench-chaos`` each time and by tests/test_chaos.py: a caption
top-up's late review killed as it blocks a worker, before MTurk grants the block; the resume's grant carried
out and its reply lost (the run killed as MTurk acts); the next resume killed while the next batch is
collected; then run to the end, which must equal the uninterrupted run with the same seed, blocks and dataset.
It was the one trial in eight that did not (seed 107, 50 items: 15 annotations and 2 blocks differed, 40.26
against 40.92 USD spent): the decided late work no longer counted as late, so its blocks were never sent.

The kills come from the simulator, at the call named, so the schedule is the same on every machine: the
simulator runs on a thread of this process (bench.chaos_runner.sim_thread), its operations wrapped here.
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.chaos import Campaign, Reference, audit
from bench.chaos_runner import HITFLOW, Launch, new_process, sim_thread

GRANT = "AssociateQualificationWithWorker"
Rule = Callable[[str, dict[str, Any]], bool]


class CallKills:
    """While in use, the simulator's MTurk operations in this process kill -9 the run under way at the call
    ``rule`` picks: ``before`` MTurk carries it out (never made) or ``after`` (made, its reply lost)."""

    def __init__(self) -> None:
        self.pid, self.when, self.rule = 0, "", None
        self.grants: Counter[str] = Counter()  # grants MTurk carried out, by worker
        self.batch_of: dict[str, int] = {}  # HIT id -> batch, from the annotations it was created with
        self.extending = 0  # the batch a top-up round extended, until the next batch is posted
        self.killed: list[str] = []

    def __enter__(self) -> CallKills:
        from flows.sim.mturk.mturk_api import OPERATIONS
        from flows.sim.service.server import SimServer  # noqa: F401  (every operation registered)

        self.kept = dict(OPERATIONS)
        for name, fn in self.kept.items():
            OPERATIONS[name] = self._wrap(name, fn)
        return self

    def __exit__(self, *exc: object) -> None:
        from flows.sim.mturk.mturk_api import OPERATIONS

        OPERATIONS.update(self.kept)

    def _wrap(self, name: str, fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        def call(market: Any, params: dict[str, Any]) -> dict[str, Any]:
            if self.when == "before" and self.rule and self.rule(name, params):
                self._kill(f"before {name}")
                raise ConnectionAbortedError("the run was killed before this call")  # never carried out
            result = fn(market, params)
            self._saw(name, params, result)
            if self.when == "after" and self.rule and self.rule(name, params):
                self._kill(f"after {name}")  # carried out; the reply goes to a dead run
            return result
        return call

    def _saw(self, name: str, params: dict[str, Any], result: dict[str, Any]) -> None:
        if name.startswith("CreateHIT") and ":b" in params.get("RequesterAnnotation", ""):
            self.batch_of[result["HIT"]["HITId"]] = int(params["RequesterAnnotation"].split(":b")[1].split(":")[0])
            self.extending = 0
        elif name == "CreateAdditionalAssignmentsForHIT":
            self.extending = self.batch_of.get(params["HITId"], 0)
        elif name == GRANT:
            self.grants[params["WorkerId"]] += 1

    def _kill(self, at: str) -> None:
        pid, self.rule = self.pid, None  # the next run, started once this one is reaped, sets self.pid
        self.killed.append(at)
        os.kill(pid, signal.SIGKILL)
        while _alive(pid):  # gone before the call returns: the run never hears of it
            time.sleep(0.005)

    def run_killed(self, c: Campaign, when: str, rule: Rule) -> None:
        """One run of ``c``, killed at the call ``rule`` picks (a run that finishes first is not)."""
        proc = c.launch(c.args[len(HITFLOW):])
        self.pid, self.when, self.rule = proc.pid, when, rule
        proc.wait()
        self.rule = None
        c.finished = proc.returncode == 0

    def late_grant(self, name: str, params: dict[str, Any]) -> bool:
        """A block of a top-up round's late review (after its extension, before the next batch is posted)."""
        return name == GRANT and self.extending > 0

    def next_batch_collected(self, late_batch: int) -> Rule:
        return lambda name, params: (name == "ListAssignmentsForHIT"
                                     and self.batch_of.get(params.get("HITId", "")) == late_batch + 1)


def lost_block_campaign(folder: Path, clean: Reference, seed: int, limit: int, launch: Launch = new_process,
                        ledger: str = "") -> dict[str, Any]:
    """The schedule above on a campaign of ``limit`` items and the simulator's ``seed``, audited against
    ``clean`` (the same seed's uninterrupted run); ``grants_repeated``: blocks MTurk granted more than once."""
    with CallKills() as kills, sim_thread(seed) as url:
        c = Campaign(url, folder, limit, ledger, here=True, launch=launch)
        kills.run_killed(c, "before", kills.late_grant)
        late_batch = kills.extending
        kills.run_killed(c, "after", lambda name, params: name == GRANT)
        kills.run_killed(c, "after", kills.next_batch_collected(late_batch))
        if not c.finished:
            c.run_to_end(1)
        return {"killed_at": kills.killed, "late_batch": late_batch,
                "grants_repeated": sum(n > 1 for n in kills.grants.values()), **audit(c, clean)}


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie does not), from Linux's /proc (elsewhere: not known, taken as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False
