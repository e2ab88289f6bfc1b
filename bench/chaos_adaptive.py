"""Chaos on adaptive overlap: kill -9 of ``hitflow run`` on the adaptive campaign of
``bench.adaptive_campaign`` (one three-way choice an item, min 2 / max 6 judgements, more only where the
skill-aware posterior is unsure), biased toward the extension steps, then resumed to the end.

The simulator is ``hitflow sim serve --speed 0 --state FILE`` in its own process, so its marketplace
outlives every killed run and its state file is its own record of each extension it made (on MTurk the
UniqueRequestToken of every CreateAdditionalAssignmentsForHIT it carried out, on Prolific each study's
places). Counted against the ledger (bench/chaos_adaptive_audit.py): duplicate extensions (made and never
asked for; a HIT or study given more than min plus the ledger's extensions; a unit extended twice in one
round), extensions the ledger settled that the platform never made, lost judgements (submitted on the
platform, absent from the ledger, undecided, or missing from dataset.csv), and the outputs against an
uninterrupted run of the same seed. Links has no platform beside hitflow: its units' stored work is counted
against the ledger's extensions.

``python -m bench.chaos_adaptive [--items 300] [--kills 12] [--seed 1] [--route mturk|prolific|links]``
(``make bench-chaos-adaptive``) writes the route's entry of ``bench/results-chaos-adaptive.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from bench.adaptive_campaign import PROLIFIC, REWARD, UNIT
from bench.answers_accuracy import project
from bench.chaos import current_step, ledger_reader
from bench.chaos_adaptive_audit import compare, links_audit, mturk_audit, prolific_audit
from bench.chaos_runner import (
    HITFLOW,
    ROOT,
    Launch,
    SimFactory,
    new_process,
    run_here,
    run_until_clean,
    sim_process,
)
from bench.results_file import keep_result
from flows.platforms.mturk.extend import EXTEND_OP
from flows.platforms.unit_extensions import EXTEND_UNIT_OP, ROUND_NOTE

RESULTS = ROOT / "bench" / "results-chaos-adaptive.json"
# bench.adaptive_campaign's defaults (its main's flags): the rule whose saving results-adaptive-campaign.json shows
RULE = {"min_judgements": 2, "max_judgements": 6, "confidence": 0.95, "skill_prior": 0.7, "skill_prior_weight": 4.0,
        "crowd_prior_weight": 20.0, "fast_share": 0.5}  # stop_when_settled: on, the config's default
# the ledger row of one more judgement of a unit, by route
EXTENSION = {"mturk": EXTEND_OP, "prolific": EXTEND_UNIT_OP, "links": EXTEND_UNIT_OP}


def adaptive_config(folder: Path, items: int, seed: int, route: str = "mturk", adversaries: int = 4,
                    per_hit: int = 1) -> Path:
    """bench.adaptive_campaign's campaign: the answers bench's project, one item a HIT (a Prolific unit) priced
    as there, the rule."""
    folder.mkdir(parents=True, exist_ok=True)
    config = project(folder, items, adversaries, share=0.0)
    text = re.sub(r"(?m)^seed = \d+$", f"seed = {seed}", config.read_text())
    text = text.replace(UNIT[0], UNIT[1].format(per_hit=per_hit))
    text = text.replace(REWARD[0], REWARD[1].format(reward=f"{0.02 * per_hit:.2f}"))
    if route == "prolific":
        text = text.replace('budget = "100000.00 USD"', 'budget = "100000.00 GBP"').replace(
            "[target]", PROLIFIC.format(reward=f"{0.10 * per_hit:.2f}") + "[target]")
    rule = 'method = "auto"\n' + "".join(f"{k} = {v}\n" for k, v in RULE.items())
    config.write_text(text.replace("[answers]\n", "[answers]\n" + rule, 1), encoding="utf-8")
    return config


def last_round(db: str, operation: str) -> str:
    """``b<batch>r<round>`` of the last extension round the ledger holds ("" before any)."""
    with ledger_reader(db) as conn:
        row = conn.execute("SELECT batch, json_extract(params, '$.round') FROM ledger WHERE operation = ? "
                           "ORDER BY id DESC LIMIT 1", [operation]).fetchone()
    return f"b{row[0]}r{row[1]}" if row else ""


def open_extension_moment(db: str, since: float, operation: str = EXTEND_OP) -> str:
    """Where an adaptive run started at ``since`` (epoch s) stands: ``extension intents`` (it wrote a round's
    extension rows, not all settled: the calls are under way), ``extension collect`` (it settled the last
    round's calls, whose work is not collected yet), the same two left open by a killed run and not yet
    taken up (``... of a killed run``), else the step (bench.chaos.current_step)."""
    try:
        with ledger_reader(db) as conn:
            fresh, stale, settled_now = conn.execute(
                "SELECT coalesce(sum(status = 'intended' AND created_at >= ?), 0), "
                "coalesce(sum(status = 'intended' AND created_at < ?), 0), "
                "coalesce(sum(status != 'intended' AND updated_at >= ?), 0) FROM ledger WHERE operation = ?",
                [since, since, since, operation]).fetchone()
            rounds = conn.execute("SELECT count(DISTINCT batch || ':' || json_extract(params, '$.round')) "
                                  "FROM ledger WHERE operation = ?", [operation]).fetchone()[0]
            notes = conn.execute("SELECT count(*) FROM ledger WHERE operation = ?", [ROUND_NOTE]).fetchone()[0]
    except sqlite3.Error:
        return "start"
    if fresh or stale:
        return "extension intents" if fresh else "extension intents of a killed run"
    if rounds > notes:
        return "extension collect" if settled_now else "extension collect of a killed run"
    return current_step(db)


# Links: a round's ExtendUnit rows are settled the moment they are written (the row is the extension), so
# no poll lands between the two; there the run kills itself with SIGKILL the n-th time a round's intents are
# written (its extend module's intend_calls wrapped, as tests/test_adaptive_campaign.py does), the kill -9 of a
# resumed run coming back to that round
AT_INTENTS = """
import importlib, os, signal
calls = []
extend = importlib.import_module("flows.platforms.{route}.extend")
intend = extend.intend_calls
def die(*args):
    written = intend(*args)
    calls.append(1)
    if len(calls) >= {n}:
        os.kill(os.getpid(), signal.SIGKILL)
    return written
extend.intend_calls = die
"""
HOOKED = "extension intents (in-run hook)"


@dataclass
class AdaptiveCampaign:
    url: str
    folder: Path
    config: Path
    route: str = "mturk"
    span: float = 30.0  # seconds an uninterrupted run takes: an ``anywhere`` kill lands within it
    here: bool = False  # the runs not killed in this process (bench.chaos_runner.run_here); those killed are processes
    finished: bool = False  # a run meant to be killed reached the end (exit 0): it resumed the campaign
    launch: Launch = new_process  # how the runs killed (and, not ``here``, the others) start

    @property
    def db(self) -> str:
        return str(self.folder / "h.db")

    @property
    def args(self) -> list[str]:
        return [*HITFLOW, "run", str(self.config), "--no-prefect", "--endpoint-url", self.url, "--db", self.db,
                "--out", str(self.folder / "runs"), "--platform", self.route]

    def run_to_end(self, attempts: int = 3) -> int:
        if self.here:
            return run_here(self.args, self.folder, attempts)
        return run_until_clean(self.args, self.folder, attempts, timeout_s=3600, launch=self.launch)

    def kill_at(self, wanted: str, rng: random.Random) -> tuple[str, str] | None:
        """Start (resume) a run and kill -9 it once it is at ``wanted`` (an ``open_extension_moment``, or
        ``anywhere``: a random moment early in ``span``; ``HOOKED``: see AT_INTENTS), on MTurk a random few ms
        later; where it was when killed, and the extension round it was in or past."""
        if wanted == HOOKED:
            return self.killed_by_hook(rng.randint(1, 3))
        since = time.time()
        proc = self.launch(self.args[len(HITFLOW):])
        # within a quarter of a whole run's time: a resumed run has less left, and one that finishes first
        # ends the campaign's kills
        deadline = time.monotonic() + rng.uniform(0.3, max(self.span / 4, 1.0))
        while proc.poll() is None:
            now = open_extension_moment(self.db, since, EXTENSION[self.route])
            if now == wanted or (wanted == "anywhere" and time.monotonic() > deadline):
                # MTurk's round is seconds of calls (a random few ms lands among them); Prolific's is one
                # call and links' none, over before a few ms: killed at once there
                time.sleep(rng.uniform(0, 0.02) if self.route == "mturk" else 0)
                landed = open_extension_moment(self.db, since, EXTENSION[self.route])
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return landed, last_round(self.db, EXTENSION[self.route])
            time.sleep(0.002)
        self.finished = proc.returncode == 0
        return None  # it finished first

    def killed_by_hook(self, n: int) -> tuple[str, str] | None:
        done = self.launch(self.args[len(HITFLOW):], preamble=AT_INTENTS.format(n=n, route=self.route)).wait(3600)
        self.finished = done == 0
        return (HOOKED, last_round(self.db, EXTENSION[self.route])) if done == -signal.SIGKILL else None


def sim_args(folder: Path) -> tuple[str, ...]:
    return ("--state", str(folder / "sim.db"), "--crowd", str(folder / "crowd.toml"))


def audit(c: AdaptiveCampaign) -> dict[str, Any]:
    minimum = int(RULE["min_judgements"])
    if c.route == "mturk":
        return mturk_audit(c.url, c.folder, minimum)
    return prolific_audit(c.folder, minimum) if c.route == "prolific" else links_audit(c.folder, minimum)


def clean_run(folder: Path, items: int, seed: int, route: str = "mturk",
              sim: SimFactory = sim_process, here: bool = False, launch: Launch = new_process) -> dict[str, Any]:
    """The uninterrupted run (``here``: in this process, bench.chaos_runner.run_here; else as ``launch`` starts it)."""
    config = adaptive_config(folder, items, seed, route)
    with sim(seed, *sim_args(folder)) as url:
        c = AdaptiveCampaign(url, folder, config, route, here=here, launch=launch)
        start = time.perf_counter()
        c.run_to_end(1)
        wall = time.perf_counter() - start
        return {"wall_s": round(wall, 1), **audit(c)}


def killed_run(folder: Path, items: int, seed: int, plan: list[str], rng: random.Random,
               route: str = "mturk", span: float = 30.0, sim: SimFactory = sim_process,
               here: bool = False, launch: Launch = new_process) -> dict[str, Any]:
    """Kill at each moment of ``plan`` in turn (a moment already past is skipped by the run finishing), then
    resume to the end (``resumes_to_finish``: 0 where a run meant to be killed got to the end first; ``here``:
    that resume in this process; ``launch``: how the runs killed start)."""
    config = adaptive_config(folder, items, seed, route)
    landed: Counter[str] = Counter()
    rounds: list[str] = []
    with sim(seed, *sim_args(folder)) as url:
        c = AdaptiveCampaign(url, folder, config, route, span, here, launch=launch)
        start = time.perf_counter()
        for wanted in plan:
            hit = c.kill_at(wanted, rng)
            if hit is None:
                break
            landed[hit[0]] += 1
            rounds.append(f"{hit[0]} @ {hit[1] or 'before any round'}")
        runs = 0 if c.finished else c.run_to_end()
        wall = time.perf_counter() - start
        return {"kills": sum(landed.values()), "kills_landed": dict(landed), "kills_in_order": rounds,
                "resumes_to_finish": runs, "wall_s": round(wall, 1), **audit(c)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--items", type=int, default=300)
    p.add_argument("--kills", type=int, default=12, help="kill -9 moments, most at the extension steps")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--route", choices=sorted(EXTENSION), default="mturk")
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "bench-chaos-adaptive")
    a = p.parse_args()
    rng = random.Random(43)
    # half between a round's intents and their settling, a quarter in its collection, a quarter anywhere
    # (links: half at the intents by the hook, half anywhere)
    cycle = ("extension intents", "extension intents", "extension collect", "anywhere") if a.route != "links" \
        else (HOOKED, "anywhere")
    plan = [cycle[i % len(cycle)] for i in range(a.kills)]
    out = a.out / a.route
    clean = clean_run(out / "clean", a.items, a.seed, a.route)
    killed = killed_run(out / "killed", a.items, a.seed, plan, rng, a.route, span=max(float(clean["wall_s"]), 1.0))
    result = {"items": a.items, "seed": a.seed, "rule": RULE, "clean": clean, "killed": killed,
              **compare(out / "clean" / "runs", out / "killed" / "runs"),
              "load_average": [round(x, 2) for x in os.getloadavg()]}
    if a.route == "mturk":
        result["overpaid_usd"] = str(max(Decimal("0"), Decimal(killed["spent"]) - Decimal(clean["spent"])))
    # one entry a route: a run of one route keeps the other's
    keep_result(RESULTS, a.route, result, sort_keys=False)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
