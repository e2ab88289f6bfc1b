"""kill -9 on adaptive overlap's new steps at bench scale (issue 43): the 1,000-item campaign of
bench/adaptive_campaign.py on MTurk-sim, run in children killed with SIGKILL inside extension rounds,
alternately right after a round's ledger intents (before CreateAdditionalAssignmentsForHIT) and right
after its calls went out and were recorded (before the round's collection), each child resuming what
the last one left, until a run finishes unkilled.

Counted against the simulator's own record (its state file survives the kills): duplicate extensions
(a HIT whose MaxAssignments exceeds min_judgements plus what the ledger extended it by; or a HIT
extended twice in one round), missing extensions (the reverse), lost judgements (work the simulator
holds that the ledger never stored), undecided judgements (stored, never approved or rejected).

``python -m bench.adaptive_chaos [--items 1000] [--kills 8] [--seed 1]`` prints one JSON object and
writes it to ``bench/results-adaptive-chaos.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

import pandas as pd

from bench.adaptive_campaign import write_config
from flows.core.ledger.store import Store
from flows.platforms.targets import sim_state_path
from postprocess.answers import accuracy

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results-adaptive-chaos.json"
RULE = "min_judgements = 2\nmax_judgements = 6\nconfidence = 0.95\nskill_prior = 0.7\nskill_prior_weight = 4.0\n"
# A child dies in the second extension round it enters: its first is the round the last child was killed
# in (resumed: intents or calls already in the ledger), so each child moves the campaign one round on.
CHILD = """
import os, signal, sys
from flows.platforms.mturk import extend
from flows.driver.campaign_run import run_campaign
config, db, out, when, seed = sys.argv[1:6]
entered = [0]
def die_in_second(real=None):
    def hook(*args, **kwargs):
        answer = real(*args, **kwargs) if real else None
        entered[0] += 1
        if entered[0] == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return answer
    return hook
if when == "intents":  # the round's intents written, its calls not sent
    extend.AFTER_INTENTS = die_in_second()
elif when == "sent":  # the round's calls sent and recorded, its work not collected
    extend.send_calls = die_in_second(extend.send_calls)
run_campaign(config, db_path=db, out_root=out, progress=lambda _: None, seed=int(seed))
"""


def child(config: Path, folder: Path, when: str, seed: int) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(config), str(folder / "h.db"), str(folder / "runs"),
                           when, str(seed)], cwd=folder, env=env, capture_output=True, timeout=3600)
    if proc.returncode not in (0, -signal.SIGKILL):
        raise SystemExit(f"child failed ({proc.returncode}): {proc.stderr.decode()[-1500:]}")
    return proc.returncode


def simulator_record(path: Path) -> tuple[dict[str, int], pd.DataFrame]:
    """(MaxAssignments per HIT, every assignment the simulator holds: ``assignment_id, hit_id, status``)."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT kind, value FROM records WHERE kind IN ('hit', 'assignment')").fetchall()
    loaded = [(kind, json.loads(zlib.decompress(v) if isinstance(v, bytes) else v)) for kind, v in rows]
    hits = {r["fields"]["HITId"]: int(r["fields"]["MaxAssignments"]) for kind, r in loaded if kind == "hit"}
    work = pd.DataFrame([{k: r[k] for k in ("assignment_id", "hit_id", "status")} for kind, r in loaded
                         if kind == "assignment"])
    return hits, work


def audit(folder: Path, seed: int) -> dict[str, Any]:
    store = Store(folder / "h.db")
    ext = pd.DataFrame([{**json.loads(r["params"]), "status": r["status"]} for r in store.rows(
        "SELECT params, status FROM ledger WHERE operation = 'CreateAdditionalAssignmentsForHIT'")])
    hits, work = simulator_record(sim_state_path(folder / "h.db", seed, folder / "crowd.toml"))
    extended = ext.groupby("HITId")["NumberOfAdditionalAssignments"].sum()
    asked = pd.Series(hits).sub(2).sub(extended.reindex(list(hits), fill_value=0))
    stored = {r["assignment_id"] for r in store.rows("SELECT assignment_id FROM assignments WHERE batch > 0")}
    submitted = work[work["status"].isin(["Submitted", "Approved", "Rejected"])]
    undecided = store.rows("SELECT count(*) AS n FROM assignments a WHERE a.batch > 0 AND NOT EXISTS "
                           "(SELECT 1 FROM decisions d WHERE d.assignment_id = a.assignment_id)")[0]["n"]
    out = folder / "runs" / "sentiment"
    truth = pd.DataFrame(json.loads((out / "sim_items.json").read_text()), dtype=str)
    answers = pd.read_csv(out / "answers.csv", dtype=str, keep_default_na=False)
    return {"hits": len(hits), "extension_calls": len(ext), "extension_statuses": sorted(set(ext["status"])),
            "duplicate_extensions": int(asked.clip(lower=0).sum()) + int(ext.duplicated(["HITId", "round"]).sum()),
            "missing_extensions": int((-asked).clip(lower=0).sum()),
            "judgements_on_platform": len(submitted), "judgements_stored": len(stored),
            "lost_judgements": len(set(submitted["assignment_id"]) - stored), "undecided_judgements": int(undecided),
            "accuracy": round(accuracy(answers, truth), 4), "assignments": len(stored)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--items", type=int, default=1000)
    p.add_argument("--kills", type=int, default=8, help="kill -9 moments, alternating intents / calls sent")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=RESULTS)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = write_config(folder, a.items, 4, 1, 'method = "auto"\n' + RULE, seed=a.seed)
        kills: list[str] = []
        for i in range(a.kills):
            when = ("intents", "sent")[i % 2]
            if child(config, folder, when, a.seed) == 0:
                break  # finished before this kill: fewer rounds than kills
            kills.append(when)
        finished = child(config, folder, "none", a.seed) == 0
        result = {"items": a.items, "seed": a.seed, "kills": kills, "finished": finished, **audit(folder, a.seed)}
    text = json.dumps(result, indent=1)
    a.out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
