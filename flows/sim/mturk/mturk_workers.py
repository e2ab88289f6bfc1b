"""MTurk operations about workers and money on the simulator: bonuses, notices, blocks, balance."""

from __future__ import annotations

import re
from typing import Any

from flows.sim.mturk.market import Marketplace, MTurkError, money
from flows.sim.mturk.mturk_api import _assignment, _worker, op
from flows.sim.mturk.validation import bad, check_money, listed, need

WORKER_ID = re.compile(r"A[A-Z0-9]+")


@op("SendBonus")
def send_bonus(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    need(p, "WorkerId", "BonusAmount", "AssignmentId", "Reason")
    a = _assignment(m, p["AssignmentId"])
    if a.worker_id != p["WorkerId"]:
        raise bad(f"Assignment {a.assignment_id} was not done by worker {p['WorkerId']}.")
    amount = money(check_money(p["BonusAmount"], "BonusAmount"))
    token = p.get("UniqueRequestToken")
    if token and any(b.get("_token") == token for b in m.bonuses):
        raise MTurkError("AWS.MechanicalTurk.BonusAlreadyPaid",
                         "A bonus with this UniqueRequestToken was already paid.")
    total = amount + max(money("0.01"), money(amount * money("0.20")))
    if total > m.balance:
        raise MTurkError("AWS.MechanicalTurk.InsufficientFunds", f"Balance {m.balance} does not cover {total}.")
    m.balance -= total
    m.bonuses.append({"WorkerId": a.worker_id, "BonusAmount": str(amount), "AssignmentId": a.assignment_id,
                      "Reason": p["Reason"], "GrantTime": m.now, "_token": token, "_hit": a.hit_id})
    return {}


@op("ListBonusPayments")
def list_bonuses(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    if not p.get("HITId") and not p.get("AssignmentId"):
        raise bad("ListBonusPayments needs a HITId or an AssignmentId.")
    rows = [{k: v for k, v in b.items() if not k.startswith("_")} for b in m.bonuses
            if b["_hit"] == p.get("HITId") or b["AssignmentId"] == p.get("AssignmentId")]
    return listed(rows, p, "BonusPayments")


@op("NotifyWorkers")
def notify(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    need(p, "Subject", "MessageText", "WorkerIds")
    if len(p["WorkerIds"]) > 100:
        raise bad("NotifyWorkers takes at most 100 WorkerIds.")
    for worker_id in p["WorkerIds"]:
        if not WORKER_ID.fullmatch(worker_id):
            raise bad(f"WorkerId {worker_id!r} does not match the pattern A[A-Z0-9]+ (the model's CustomerId).")
    failures = [{"NotifyWorkersFailureCode": "HardFailure", "WorkerId": w,
                 "NotifyWorkersFailureMessage": "Worker has not worked for you."}
                for w in p["WorkerIds"] if w not in m.workers]
    return {"NotifyWorkersFailureStatuses": failures}


@op("GetAccountBalance")
def balance(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    return {"AvailableBalance": str(m.balance), "OnHoldBalance": "0.00"}


# blocks -----------------------------------------------------------------------
@op("CreateWorkerBlock")
def create_block(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    need(p, "WorkerId", "Reason")
    m.blocks[_worker(m, p["WorkerId"])] = str(p["Reason"])
    return {}


@op("DeleteWorkerBlock")
def delete_block(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    need(p, "WorkerId")
    m.blocks.pop(_worker(m, p["WorkerId"]), None)
    return {}


@op("ListWorkerBlocks")
def list_blocks(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    rows = [{"WorkerId": w, "Reason": r} for w, r in m.blocks.items()]
    return listed(rows, p, "WorkerBlocks")
