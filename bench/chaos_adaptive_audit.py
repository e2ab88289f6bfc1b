"""The counts of ``bench.chaos_adaptive``: what the simulator holds (its state file, its API) against
the ledger and the outputs of one finished adaptive campaign.

MTurk: the simulator records each CreateAdditionalAssignmentsForHIT it carried out under its
UniqueRequestToken (derived from the ledger key), and each HIT's MaxAssignments. Prolific: a study's
places are a total the run sets (so a repeated call cannot add twice, but a re-planned round could),
and its submissions are the participants who finished. A duplicate extension is one the platform made
that the ledger did not ask for; a lost judgement is work the platform holds that the ledger lacks,
or has without a decision, or that dataset.csv lacks without a rejection.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from bench.answers_accuracy import OPTIONS
from bench.chaos import platform_view
from flows.core.ledger.store import Store
from flows.platforms.mturk.extend import EXTEND_OP, extension_token
from flows.platforms.prolific.statuses import FINISHED
from flows.platforms.unit_extensions import EXTEND_UNIT_OP
from flows.sim.people.latent_choices import latent_truth
from postprocess.answers.reliability import accuracy

CAMPAIGN = "sentiment"
COMPARED = ("answers.csv", "dataset.csv", "responses.csv")


def ledger_extensions(store: Store, operation: str) -> pd.DataFrame:
    rows = store.rows("SELECT idem_key, status, params, batch FROM ledger WHERE operation = ?", [operation])
    frame = pd.DataFrame([{**json.loads(r["params"]), "key": r["idem_key"], "status": r["status"], "batch": r["batch"]}
                          for r in rows]).rename(columns={"unit": "HITId"})
    return frame.reindex(columns=["HITId", "NumberOfAdditionalAssignments", "round", "key", "status", "batch"])


def judgements(store: Store, folder: Path, on_platform: set[str]) -> dict[str, int]:
    """Work the platform holds against the ledger (stored with answers, decided) and dataset.csv."""
    stored = {r["assignment_id"] for r in store.rows(
        "SELECT assignment_id FROM assignments a WHERE EXISTS "
        "(SELECT 1 FROM answers x WHERE x.assignment_id = a.assignment_id)")}
    decided = {r["assignment_id"] for r in store.rows("SELECT assignment_id FROM decisions WHERE applied != ''")}
    # a rejected invalid answer has no value for dataset.csv: absent on purpose, not lost
    rejected = {r["assignment_id"] for r in store.rows("SELECT assignment_id FROM decisions WHERE action = 'reject'")}
    dataset = pd.read_csv(folder / "runs" / CAMPAIGN / "dataset.csv", dtype=str, keep_default_na=False)
    return {"platform_assignments": len(on_platform), "rejected": len(rejected & on_platform),
            "lost_judgements": len(on_platform - (stored & decided)),
            "missing_from_dataset": len(on_platform - rejected - set(dataset["assignment_id"]))}


def settled(ledger: pd.DataFrame) -> pd.DataFrame:
    return ledger[ledger["status"].isin(["ok", "adopted"])]


def mturk_audit(url: str, folder: Path, min_judgements: int) -> dict[str, Any]:
    seen = platform_view(url)
    store = Store(folder / "h.db")
    ledger = ledger_extensions(store, EXTEND_OP)
    done = settled(ledger)
    with sqlite3.connect(f"file:{folder / 'sim.db'}?mode=ro", uri=True) as conn:
        made = {key.split(":", 1)[1] for (key,) in conn.execute(
            "SELECT key FROM records WHERE kind = 'token' AND key LIKE 'extend:%'")}
    asked_tokens = {extension_token(k) for k in done["key"]}
    asked = (min_judgements + done.groupby("HITId")["NumberOfAdditionalAssignments"].sum()).to_dict()
    over = [int(h["MaxAssignments"]) - int(asked.get(h["HITId"], min_judgements)) for h in mturk_hits(url)
            if h.get("RequesterAnnotation", "").startswith(f"{CAMPAIGN}:")]
    result = {"extensions_in_ledger": len(done), "extensions_on_platform": len(made),
              "extensions_adopted": int((ledger["status"] == "adopted").sum()),  # made; the kill came before the reply
              "ledger_rows_not_settled": len(ledger) - len(done),
              "duplicate_extensions": len(made - asked_tokens) + int(ledger.duplicated(["HITId", "round"]).sum()),
              "hits_beyond_ledger": sum(n > 0 for n in over), "assignments_beyond_ledger": sum(max(n, 0) for n in over),
              "ledger_extensions_not_made": len(asked_tokens - made), "hits_below_ledger": sum(n < 0 for n in over),
              **judgements(store, folder, {a["AssignmentId"] for a in seen["assignments"]}),
              "spent": str(seen["spent"])}
    store.close()
    return result


def mturk_hits(url: str) -> list[dict[str, Any]]:
    from flows.platforms.mturk import adapter as mturk

    return mturk.list_hits(mturk.make_client(mturk.Target("sim", url)))


def prolific_audit(folder: Path, min_judgements: int) -> dict[str, Any]:
    """Each study's places on the simulator against the units' min plus the ledger's extensions."""
    with sqlite3.connect(f"file:{folder / 'sim.db'}?mode=ro", uri=True) as conn:
        snap = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'prolific'").fetchone()[0])
    store = Store(folder / "h.db")
    ledger = ledger_extensions(store, EXTEND_UNIT_OP)
    done = settled(ledger)
    places = pd.DataFrame([{**json.loads(r["params"]), "batch": r["batch"]} for r in store.rows(
        "SELECT batch, params FROM ledger WHERE operation = 'IncreasePlaces'")]).reindex(columns=["batch", "round"])
    units = {int(r["batch"]): int(r["n"]) for r in store.rows(
        "SELECT batch, count(DISTINCT hit_index) AS n FROM items WHERE campaign = ? AND batch > 0 GROUP BY batch",
        [CAMPAIGN])}
    study_batch = {r["study_id"]: int(r["batch"]) for r in store.rows("SELECT study_id, batch FROM studies")}
    extra = done.groupby("batch")["NumberOfAdditionalAssignments"].sum().to_dict()
    over = [int(s["total_available_places"]) - (units[b] * min_judgements + int(extra.get(b, 0)))
            for sid, s in snap["studies"].items() if (b := study_batch.get(sid)) is not None]
    finished = {sid for sid, s in snap["submissions"].items()
                if s["status"] in FINISHED and s["study_id"] in study_batch}
    result = {"extensions_in_ledger": len(done), "places_calls": len(places),
              "ledger_rows_not_settled": len(ledger) - len(done),
              "duplicate_extensions": int(ledger.duplicated(["batch", "HITId", "round"]).sum())
              + int(places.duplicated(["batch", "round"]).sum()),
              "studies_beyond_ledger": sum(n > 0 for n in over), "places_beyond_ledger": sum(max(n, 0) for n in over),
              "studies_below_ledger": sum(n < 0 for n in over),
              "submissions_by_status": dict(Counter(s["status"] for s in snap["submissions"].values())),
              **judgements(store, folder, finished)}
    store.close()
    return result


def links_audit(folder: Path, min_judgements: int) -> dict[str, Any]:
    """Invite links have no platform beside hitflow (the simulated invitees live in the run and die with
    it): each unit's stored work against min plus the ledger's extensions, the task server's own record."""
    store = Store(folder / "h.db")
    ledger = ledger_extensions(store, EXTEND_UNIT_OP)
    done = settled(ledger)
    # a links unit is named by its index (invite:u3) in every batch
    asked = (min_judgements + done.groupby(["batch", "HITId"])["NumberOfAdditionalAssignments"].sum()).to_dict()
    got = {(int(r["batch"]), r["hit_id"]): int(r["n"]) for r in store.rows(
        "SELECT batch, hit_id, count(*) AS n FROM assignments WHERE campaign = ? AND batch > 0 GROUP BY batch, hit_id",
        [CAMPAIGN])}
    over = [n - int(asked.get(unit, min_judgements)) for unit, n in got.items()]
    undecided = store.rows("SELECT count(*) AS n FROM assignments a WHERE batch > 0 AND NOT EXISTS "
                           "(SELECT 1 FROM decisions d WHERE d.assignment_id = a.assignment_id)")[0]["n"]
    result = {"extensions_in_ledger": len(done), "ledger_rows_not_settled": len(ledger) - len(done),
              "duplicate_extensions": int(ledger.duplicated(["batch", "HITId", "round"]).sum()),
              "units_beyond_ledger": sum(n > 0 for n in over), "judgements_beyond_ledger": sum(max(n, 0) for n in over),
              "units_short": sum(n < 0 for n in over), "undecided": int(undecided),  # in lost_judgements too
              # the ledger's own submissions stand for the platform's: stored without answers, undecided, or
              # missing from dataset.csv count as lost
              **judgements(store, folder, {r["assignment_id"] for r in store.rows(
                  "SELECT assignment_id FROM assignments WHERE campaign = ? AND batch > 0", [CAMPAIGN])})}
    store.close()
    return result


def compare(a: Path, b: Path) -> dict[str, Any]:
    """Which outputs differ in bytes, by how many answers.csv rows, and both runs' accuracy."""
    files = [n for n in COMPARED if (a / CAMPAIGN / n).read_bytes() != (b / CAMPAIGN / n).read_bytes()]
    ra = Counter(map(tuple, pd.read_csv(a / CAMPAIGN / "answers.csv", dtype=str).values.tolist()))
    rb = Counter(map(tuple, pd.read_csv(b / CAMPAIGN / "answers.csv", dtype=str).values.tolist()))
    return {"files_not_byte_identical": files, "answers_rows_differing": sum(((ra - rb) + (rb - ra)).values()),
            "accuracy": {"clean": accuracy_of(a), "killed": accuracy_of(b)}}


def accuracy_of(runs: Path) -> float:
    """answers.csv against the items' latent answers (what sim_items.json lists on MTurk; links' invitees,
    simulated in the run, leave that file empty, so the same function gives them here)."""
    answers = pd.read_csv(runs / CAMPAIGN / "answers.csv", dtype=str, keep_default_na=False)
    truth = answers[["item_id", "field"]].assign(
        answer=[latent_truth(i, f, OPTIONS) for i, f in zip(answers["item_id"], answers["field"], strict=True)])
    return round(accuracy(answers, truth), 4)
