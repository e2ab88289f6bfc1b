"""Chaos: ``make bench-chaos``. kill -9 of ``hitflow run`` at moments spread over every step, and a
run under throttling, server errors and lost replies, each checked against the platform.

The simulator is ``hitflow sim serve --speed 0`` in its own process (in the tests, the same simulator on a
thread of theirs: bench/chaos_runner.py), so its state survives the killed runs and its clock moves only
when a run waits; the same seed gives the same crowd and work, so a finished campaign must equal an
uninterrupted run's dataset exactly. Counted: duplicate HITs, lost answers (submitted on the platform,
absent from the ledger or undecided), duplicated answers, double decisions, dollars overpaid against the
clean run, dataset rows that differ.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import signal
import sqlite3
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import psycopg

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
from bench.throwaway_pg import throwaway_server
from flows.core.db_url import is_postgres_url
from flows.core.ledger.store import Store

CONFIG = ROOT / "config" / "vizwiz_captions.toml"
CAMPAIGN = "vizwiz_captions"
STEPS = ("publish", "collect", "review", "block", "postprocess")
STEP_OF_STATUS = {"planned": "publish", "published": "collect", "collected": "review", "qc_done": "review",
                  "reviewed": "review", "decided": "block"}
DATASET_COLUMNS = ["image_id", "worker_id", "caption", "is_precanned", "is_rejected", "batch"]
BYTE_FOR_BYTE = ("dataset.csv", "flags.csv", "blocked_workers.csv", "answers.csv")  # equal to the clean run's


@dataclass
class Campaign:
    url: str
    folder: Path
    limit: int = 50
    ledger: str = ""  # a postgresql:// URL (make bench-chaos DB=postgres); "" is the SQLite file h.db
    platform: str = "mturk"  # prolific, links: their simulated people on the same simulator
    here: bool = False  # the runs not killed in this process (run_here); those killed are processes
    finished: bool = False  # the last run reached the end (exit 0), none killed since: nothing to resume
    launch: Launch = new_process  # how the runs killed (and, not ``here``, the others) start

    @property
    def db(self) -> str:
        return self.ledger or str(self.folder / "h.db")

    @property
    def args(self) -> list[str]:
        return [*HITFLOW, "run", str(CONFIG), "--no-prefect", "--endpoint-url", self.url, "--db", str(self.db),
                "--out", str(self.folder), "--limit", str(self.limit), "--platform", self.platform]

    def run_to_end(self, attempts: int = 5) -> int:
        """Run (resume) until it succeeds; the number of runs it took."""
        runs = (run_here(self.args, self.folder, attempts) if self.here
                else run_until_clean(self.args, self.folder, attempts, timeout_s=600, launch=self.launch))
        self.finished = True
        return runs

    def kill_during(self, step: str, rng: random.Random) -> str | None:
        """Start a run, kill -9 it once ``step`` is under way (plus a random few ms, if it still is); the step."""
        proc = self.launch(self.args[len(HITFLOW):])
        while proc.poll() is None:
            if current_step(self.db) == step:
                time.sleep(rng.uniform(0, 0.03))
                if current_step(self.db) != step:  # a fast run moved on in the pause: wait for the step's next time
                    continue
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                self.finished = False
                return step
            time.sleep(0.003)
        self.finished = proc.returncode == 0
        return None  # it finished before reaching the step


def _step_rows(db: str) -> tuple[list[int], dict[int, str]]:
    """The planned batches and the batches' statuses, read without waiting on the run's writes."""
    if is_postgres_url(db):
        store = _readers.setdefault(db, Store(db))
        return ([r["batch"] for r in store.rows("SELECT DISTINCT batch FROM items ORDER BY batch")],
                {r["batch"]: r["status"] for r in store.rows("SELECT batch, status FROM batches WHERE batch > 0")})
    conn = ledger_reader(db)
    return ([r[0] for r in conn.execute("SELECT DISTINCT batch FROM items ORDER BY batch")],
            dict(conn.execute("SELECT batch, status FROM batches WHERE batch > 0")))


_readers: dict[str, Store] = {}  # one connection per PostgreSQL ledger for the polling above
_sqlite_reader: dict[str, sqlite3.Connection] = {}


def ledger_reader(db: str) -> sqlite3.Connection:
    """A read-only connection to the SQLite ledger ``db``, kept while that ledger is polled (the one of the
    ledger polled before closed): opening one a poll, every few ms, was most of the polling's CPU (~0.2 ms a
    poll against ~0.01). Each SELECT still reads what the run has committed by then (no transaction held)."""
    if db not in _sqlite_reader:
        for conn in _sqlite_reader.values():
            conn.close()
        _sqlite_reader.clear()
        _sqlite_reader[db] = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.2)
    return _sqlite_reader[db]


def current_step(db: str) -> str:
    """Which step the run in ``db`` is in, from the batches' statuses."""
    try:
        planned, status = _step_rows(db)
    except (sqlite3.Error, psycopg.Error):  # the run has not made the ledger yet, or holds it
        return "start"
    if not planned:
        return "start"
    for batch in planned:
        if status.get(batch, "planned") != "blocked":
            return STEP_OF_STATUS[status.get(batch) or "planned"]
    return "postprocess"


def platform_view(url: str) -> dict[str, Any]:
    """Every HIT and submitted assignment on the platform, and what the account spent."""
    from flows.platforms.mturk import adapter as mturk

    quiet = urllib.request.Request(f"{url}/_sim/faults", method="POST", data=json.dumps(
        {"throttle_rate": 0, "fault_rate": 0, "lose_reply_rate": 0}).encode(),
        headers={"Content-Type": "application/json"})
    urllib.request.urlopen(quiet, timeout=10).read()  # the audit itself must not be disturbed
    client = mturk.make_client(mturk.Target("sim", url))
    hits = mturk.list_hits(client)
    assignments = [a for h in hits for a in mturk.list_submissions(client, h["HITId"])]
    return {"annotations": [h.get("RequesterAnnotation", "") for h in hits], "assignments": assignments,
            "spent": Decimal("10000.00") - mturk.balance(client)}


@dataclass
class Reference:
    """The uninterrupted run: its output folder and what its account spent."""

    folder: Path
    spent: Decimal
    wall_s: float


def audit(c: Campaign, clean: Reference | None = None) -> dict[str, Any]:
    """The counts the issue asks for, comparing the platform, the ledger and the clean run. On
    Prolific and links (no MTurk API to ask) the outputs only, against the clean run's."""
    if c.platform != "mturk":
        return {"spent": "0.00", "dataset_differences": dataset_differences(c.folder, clean.folder) if clean else 0,
                "files_not_byte_identical": files_differing(c.folder, clean.folder) if clean else []}
    seen = platform_view(c.url)
    store = Store(c.db)
    stored = {r["assignment_id"] for r in store.rows(  # an assignment row without its answers is a lost answer too
        "SELECT assignment_id FROM assignments a WHERE EXISTS "
        "(SELECT 1 FROM answers x WHERE x.assignment_id = a.assignment_id)")}
    decided = {r["assignment_id"] for r in store.rows("SELECT assignment_id FROM decisions WHERE applied != ''")}
    keys = [r["idem_key"] for r in store.rows(
        "SELECT idem_key FROM ledger WHERE operation IN ('ApproveAssignment', 'RejectAssignment') "
        "AND status IN ('ok', 'adopted')")]
    store.close()
    ops = Counter(key.rsplit(":", 1)[1] for key in keys)
    on_platform = {a["AssignmentId"] for a in seen["assignments"]}
    dataset = pd.read_csv(c.folder / CAMPAIGN / "dataset.csv", keep_default_na=False)
    annotations = [a for a in seen["annotations"] if a.startswith(f"{CAMPAIGN}:")]
    return {"duplicate_hits": len(annotations) - len(set(annotations)),
            "lost_answers": len(on_platform - (stored & decided)),
            "duplicated_answers": int(dataset.duplicated(["assignment_id", "image_id"]).sum()),
            "double_decisions": sum(n > 1 for n in ops.values()), "spent": str(seen["spent"]),
            "overpaid": str(max(Decimal("0.00"), seen["spent"] - clean.spent)) if clean else "0.00",
            "dataset_differences": dataset_differences(c.folder, clean.folder) if clean else 0,
            "files_not_byte_identical": files_differing(c.folder, clean.folder) if clean else []}


def files_differing(a: Path, b: Path) -> list[str]:
    """The outputs (``BYTE_FOR_BYTE``) whose bytes are not the other run's."""
    return [name for name in BYTE_FOR_BYTE
            if (a / CAMPAIGN / name).read_bytes() != (b / CAMPAIGN / name).read_bytes()]


def dataset_differences(a: Path, b: Path) -> int:
    """Rows in one dataset and not the other (as multisets of the columns that do not depend on ids)."""
    def rows(folder: Path) -> Counter[tuple[Any, ...]]:
        frame = pd.read_csv(folder / CAMPAIGN / "dataset.csv", keep_default_na=False)
        return Counter(map(tuple, frame[DATASET_COLUMNS].astype(str).values.tolist()))

    ra, rb = rows(a), rows(b)
    return sum(((ra - rb) + (rb - ra)).values())


def clean_run(folder: Path, limit: int, ledger: str = "", platform: str = "mturk",
              sim: SimFactory = sim_process, here: bool = False, launch: Launch = new_process) -> Reference:
    """The uninterrupted run (``here``: in this process, ``run_here``; else a process ``launch`` starts)."""
    with sim() as url:
        c = Campaign(url, folder, limit, ledger, platform, here, launch=launch)
        start = time.perf_counter()
        c.run_to_end(1)
        seconds = time.perf_counter() - start
        return Reference(folder, Decimal(audit(c)["spent"]), seconds)


def killed_campaign(folder: Path, clean: Reference, kills: list[str], rng: random.Random,
                    limit: int, ledger: str = "", platform: str = "mturk",
                    sim: SimFactory = sim_process, here: bool = False, launch: Launch = new_process) -> dict[str, Any]:
    """One campaign killed during each of ``kills`` (steps) in turn, resumed to the end (``here``: that resume
    in this process), then audited; ``launch`` starts the runs killed."""
    with sim() as url:
        c = Campaign(url, folder, limit, ledger, platform, here, launch=launch)
        hit = [s for s in (c.kill_during(step, rng) for step in kills) if s]
        if not c.finished:  # a run that got past the last kill moment to the end has resumed it already
            c.run_to_end()
        return {"kills": Counter(hit), **audit(c, clean)}


def faulty_campaign(folder: Path, clean: Reference, limit: int, lose_rate: str = "0.03",
                    ledger: str = "", sim: SimFactory = sim_process, here: bool = False) -> dict[str, Any]:
    """30% throttling, 5% server errors and lost replies on every operation (``here``: the runs in this process)."""
    faults = ("--throttle-rate", "0.30", "--fault-rate", "0.05", "--lose-reply-rate", lose_rate)
    with sim(1, *faults) as url:
        c = Campaign(url, folder, limit, ledger, here=here)
        start = time.perf_counter()
        runs = c.run_to_end()
        seconds = time.perf_counter() - start
        return {"runs_needed": runs, "wall_s": round(seconds, 1), **audit(c, clean)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--kills", type=int, default=50, help="kill -9 moments in all (spread over the steps)")
    p.add_argument("--per-campaign", type=int, default=5, help="kills before a campaign is resumed to the end")
    p.add_argument("--limit", type=int, default=50, help="items per campaign")
    p.add_argument("--out", default=str(ROOT / "runs" / "bench-chaos"))
    p.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite",
                   help="the ledgers: SQLite files, or databases on a throwaway PostgreSQL server")
    a = p.parse_args()
    with contextlib.ExitStack() as stack:
        if a.db == "postgres":
            server = stack.enter_context(throwaway_server())
            run_bench(a, server.new_database, "results-chaos-postgres.json")
        else:
            run_bench(a, lambda: "", "results-chaos.json")


def run_bench(a: argparse.Namespace, new_ledger: Callable[[], str], results_file: str) -> None:
    """The kills, then the faulty run; each campaign in a ledger of its own from ``new_ledger``."""
    folder, rng = Path(a.out) / a.db, random.Random(13)
    clean = clean_run(folder / "clean", a.limit, new_ledger())
    plan = [STEPS[i % len(STEPS)] for i in range(a.kills)]
    rng.shuffle(plan)
    totals: Counter[str] = Counter()
    results = []
    for n in range(0, a.kills, a.per_campaign):
        steps = sorted(plan[n:n + a.per_campaign], key=STEPS.index)  # a run moves forward: kill in step order
        result = killed_campaign(folder / f"killed-{n // a.per_campaign}", clean, steps, rng, a.limit, new_ledger())
        totals.update(result.pop("kills"))
        results.append(result)
        print(json.dumps(result), flush=True)
    lost_block = lost_block_schedule(folder, new_ledger)
    print(json.dumps(lost_block), flush=True)
    # Wall times side by side (this machine's load drifts over minutes): a clean run, then the faulty one.
    beside = clean_run(folder / "clean-beside", a.limit, new_ledger())
    faulty = faulty_campaign(folder / "faulty", clean, a.limit, ledger=new_ledger())
    summary = {"ledger": a.db, **summarize(results, totals, faulty, beside.wall_s), "lost_block_schedule": lost_block}
    print(json.dumps(summary, indent=1))
    (ROOT / "bench" / results_file).write_text(json.dumps(summary, indent=1) + "\n")


def lost_block_schedule(folder: Path, new_ledger: Callable[[], str], seed: int = 107,
                        limit: int = 50) -> dict[str, Any]:
    """bench/chaos_schedule.py's fixed schedule (a late block killed, its grant's reply lost) on the campaign
    it was found on, whatever ``--limit`` says, against that campaign's uninterrupted run."""
    from functools import partial

    from bench.chaos_runner import sim_thread
    from bench.chaos_schedule import lost_block_campaign

    clean = clean_run(folder / f"clean-seed{seed}", limit, new_ledger(), sim=partial(sim_thread, seed))
    return lost_block_campaign(folder / "lost-block", clean, seed, limit, ledger=new_ledger())


def summarize(results: list[dict[str, Any]], kills: Counter[str], faulty: dict[str, Any],
              clean_s: float) -> dict[str, Any]:
    keys = ("duplicate_hits", "lost_answers", "duplicated_answers", "double_decisions", "dataset_differences")
    return {"kills": sum(kills.values()), "kills_by_step": dict(kills), "campaigns": len(results),
            **{k: sum(int(r[k]) for r in results) for k in keys},
            "campaigns_not_byte_identical": sum(bool(r["files_not_byte_identical"]) for r in results),
            "overpaid_usd": str(sum(Decimal(r["overpaid"]) for r in results)),
            "faulty_run": faulty, "clean_wall_s": round(clean_s, 1),
            "faulty_vs_clean_wall": round(faulty["wall_s"] / clean_s, 2) if clean_s else None}


if __name__ == "__main__":
    main()
