"""The simulated Prolific account: studies, submissions, groups, bonuses and money."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from flows.platforms.prolific.facts import SIM_TOKEN
from flows.platforms.prolific.fees import cost_of, fee
from flows.sim.prolific import prolific_shapes as shapes

FEE_RATE = 0.3333
PLACEHOLDERS = ("{{%PROLIFIC_PID%}}", "{{%STUDY_ID%}}", "{{%SESSION_ID%}}")
STUDY_MOVES = {("UNPUBLISHED", "PUBLISH"): "ACTIVE", ("ACTIVE", "PAUSE"): "PAUSED", ("PAUSED", "START"): "ACTIVE",
               ("ACTIVE", "STOP"): "AWAITING REVIEW", ("PAUSED", "STOP"): "AWAITING REVIEW"}
# a place is free again after RETURNED, TIMED-OUT or SCREENED OUT
TAKEN = ("RESERVED", "ACTIVE", "AWAITING REVIEW", "APPROVED", "REJECTED")
REQUIRED_STUDY = ("name", "description", "external_study_url", "prolific_id_option", "completion_codes",
                  "total_available_places", "estimated_completion_time", "reward")
DEFAULT_EMPTY = ("completion_codes", "device_compatibility", "peripheral_requirements", "study_labels",
                 "content_warnings")  # BaseStudy's list fields, sent as [] by a generated client when not set
REOPENS = ("ACTIVE", "PAUSED", "AWAITING REVIEW", "COMPLETED")  # "increase places" on a published study


class ProlificError(Exception):
    def __init__(self, status: int, code: int, title: str, detail: Any):
        super().__init__(title)
        self.status, self.code, self.title, self.detail = status, code, title, detail


def new_id(rng: random.Random) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(24))


def check_study(body: dict[str, Any]) -> None:
    """A study's details as Prolific checks them, on creation and every update of a draft."""
    detail = {k: ["This field is required."] for k in REQUIRED_STUDY if body.get(k) in (None, "", [])}
    if body.get("device_compatibility") is None:
        detail["device_compatibility"] = ["This field is required."]
    url = str(body.get("external_study_url", ""))
    if body.get("prolific_id_option") == "url_parameters" and PLACEHOLDERS[0] not in url:
        detail["external_study_url"] = [f"With url_parameters the URL must carry {PLACEHOLDERS[0]}."]
    if not url.startswith(("http://", "https://")):
        detail.setdefault("external_study_url", []).append("Enter a valid URL.")
    for key in ("reward", "total_available_places", "estimated_completion_time"):
        if key in body and (not isinstance(body[key], int) or body[key] < 1):
            detail[key] = ["Must be a positive integer."]
    if detail:
        raise ProlificError(400, 140001, "Request is not valid", detail)


def legacy_codes(body: dict[str, Any]) -> dict[str, Any]:
    """The older single ``completion_code`` as ``completion_codes``, each with ``actor`` and ``actions``."""
    if body.get("completion_codes") or not body.get("completion_code"):
        codes = body.get("completion_codes")
        if not isinstance(codes, list):
            return body
        return {**body, "completion_codes": [{"actor": "participant", "actions": [], **c} if isinstance(c, dict) else c
                                             for c in codes]}
    code = {"code": str(body["completion_code"]), "code_type": "COMPLETED", "actor": "participant",
            "actions": [{"action": "MANUALLY_REVIEW"}]}
    return {**{k: v for k, v in body.items() if k not in ("completion_code", "completion_option")},
            "completion_codes": [code]}


def sent_changes(body: dict[str, Any]) -> dict[str, Any]:
    """A study update as meant: list fields a generated client sends empty (``BaseStudy``'s default) change nothing."""
    return {k: v for k, v in body.items() if not (k in DEFAULT_EMPTY and v == [])}


class ProlificState:
    def __init__(self, clock: Callable[[], float], seed: int = 1, balance: int = 1_000_000, currency: str = "GBP",
                 nonce: str = "", token: str = SIM_TOKEN):
        self.lock = threading.RLock()
        self.token = token  # the only API token answered; any other gets 401
        self.clock = clock
        # Ids only; the simulator instance's nonce keeps them apart from another instance's.
        self.rng = random.Random(f"{seed + 11}:{nonce}" if nonce else seed + 11)
        self.currency = currency
        self.balance = balance
        self.user = {"id": new_id(self.rng), "name": "hitflow simulator", "email": "researcher@sim.invalid",
                     "user_type": "researcher", "currency_code": currency}
        workspace = {"id": new_id(self.rng), "title": "My workspace", "owner": self.user["id"],
                     "wallet": new_id(self.rng)}
        self.workspaces = {workspace["id"]: workspace}
        project = {"id": new_id(self.rng), "title": "Default project", "workspace": workspace["id"],
                   "owner": self.user["id"]}
        self.projects = {project["id"]: project}
        self.studies: dict[str, dict[str, Any]] = {}
        self.submissions: dict[str, dict[str, Any]] = {}
        self.groups: dict[str, dict[str, Any]] = {}
        self.bonuses: dict[str, dict[str, Any]] = {}
        self.messages: list[dict[str, Any]] = []
        self.pumps: list[Callable[[ProlificState], None]] = []  # simulated participants

    @property
    def now(self) -> float:
        return self.clock()

    def iso(self, t: float | None) -> str | None:
        return None if t is None else datetime.fromtimestamp(t, UTC).isoformat().replace("+00:00", "Z")

    def pump(self) -> None:
        for fn in self.pumps:
            fn(self)

    # lookups ---------------------------------------------------------------------------
    def _get(self, table: dict[str, dict[str, Any]], key: str, what: str) -> dict[str, Any]:
        if key not in table:
            raise ProlificError(404, 140400, f"{what} not found.", {"id": [key]})
        return table[key]

    def workspace(self, key: str) -> dict[str, Any]:
        return self._get(self.workspaces, key, "Workspace")

    def study(self, key: str) -> dict[str, Any]:
        return self._get(self.studies, key, "Study")

    def submission(self, key: str) -> dict[str, Any]:
        return self._get(self.submissions, key, "Submission")

    def group(self, key: str) -> dict[str, Any]:
        return self._get(self.groups, key, "Participant group")

    # studies ---------------------------------------------------------------------------
    def create_study(self, body: dict[str, Any]) -> dict[str, Any]:
        body = legacy_codes(body)
        check_study(body)
        study = {**body, "id": new_id(self.rng), "status": "UNPUBLISHED", "date_created": self.iso(self.now),
                 "published_at": None, "project": body.get("project") or next(iter(self.projects)),
                 "maximum_allowed_time": int(body.get("maximum_allowed_time") or
                                             max(2 * int(body["estimated_completion_time"]), 10)),
                 "filters": list(body.get("filters") or []), "_reserved": 0, "_spent": 0}
        self.studies[study["id"]] = study
        return self.study_view(study)

    def study_view(self, study: dict[str, Any]) -> dict[str, Any]:
        subs = [s for s in self.submissions.values() if s["study_id"] == study["id"]]
        return shapes.study_full(study, subs, TAKEN)

    def update_study(self, key: str, changes: dict[str, Any]) -> dict[str, Any]:
        """A draft's details change (checked); a published study only takes more places (reopening a finished one)."""
        study = self.study(key)
        changes = sent_changes(changes)
        if study["status"] != "UNPUBLISHED":
            return self.increase_places(study, changes)
        changes = legacy_codes(changes)
        check_study({k: v for k, v in {**study, **changes}.items() if not k.startswith("_")})
        study.update({k: v for k, v in changes.items() if k not in ("id", "status")})
        self.studies[key] = study  # written back, so a state file keeps the change
        return study

    def increase_places(self, study: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
        places = changes.get("total_available_places")
        changes = {k: v for k, v in changes.items() if k == "total_available_places" or study.get(k) != v}
        if set(changes) != {"total_available_places"} or study["status"] not in REOPENS or \
                not isinstance(places, int) or places <= study["total_available_places"]:
            raise ProlificError(400, 140002, "Invalid study update",
                                {"total_available_places": [f"A {study['status']} study only takes more places "
                                                            f"than its {study['total_available_places']}."]})
        extra = sum(cost_of(study["reward"], places - study["total_available_places"]))
        if extra > self.available():
            raise ProlificError(402, 140003, "Insufficient funds", {"balance": ["Top up your workspace."]})
        study["_reserved"] = max(study["_reserved"], study["_spent"]) + extra
        study["total_available_places"] = places
        if study["status"] in ("AWAITING REVIEW", "COMPLETED"):
            study["status"] = "ACTIVE"
        self.studies[study["id"]] = study
        return study

    def delete_study(self, key: str) -> None:
        """Only a draft can go (a published study is stopped instead)."""
        study = self.study(key)
        if study["status"] != "UNPUBLISHED":
            raise ProlificError(400, 140002, "Invalid study deletion",
                                {"status": ["Only an UNPUBLISHED study can be deleted; "
                                            f"this one is {study['status']}."]})
        del self.studies[key]

    def transition_study(self, key: str, action: str) -> dict[str, Any]:
        study = self.study(key)
        target = STUDY_MOVES.get((study["status"], action))
        if target is None:
            raise ProlificError(400, 140002, "Invalid study transition",
                                {"action": [f"Cannot {action} a study that is {study['status']}."]})
        if action == "PUBLISH":
            reserve = sum(cost_of(study["reward"], study["total_available_places"]))
            if reserve > self.available():
                raise ProlificError(402, 140003, "Insufficient funds",
                                    {"balance": [f"Publishing needs {reserve} {self.currency} minor units; "
                                                 f"{self.available()} are available."]})
            study["_reserved"], study["published_at"] = reserve, self.iso(self.now)
        study["status"] = target
        self.settle(study)
        return study

    def panel_truth(self) -> list[dict[str, Any]]:
        """Every simulated participant's profile, under their Prolific id (the pumps that have people)."""
        return [row for pump in self.pumps for row in getattr(pump, "truth", list)()]

    def settle(self, study: dict[str, Any]) -> None:
        """A stopped (or full) study whose every submission is decided is COMPLETED; its reserve is freed."""
        subs = [s for s in self.submissions.values() if s["study_id"] == study["id"]]
        decided = all(s["status"] not in ("RESERVED", "ACTIVE", "AWAITING REVIEW") for s in subs)
        full = sum(s["status"] in TAKEN for s in subs) >= study["total_available_places"]
        if decided and (study["status"] == "AWAITING REVIEW" or (study["status"] == "ACTIVE" and full)):
            study["status"], study["_reserved"] = "COMPLETED", study["_spent"]

    # money -------------------------------------------------------------------------------
    def available(self) -> int:
        outstanding = sum(max(s["_reserved"] - s["_spent"], 0) for s in self.studies.values())
        return self.balance - outstanding

    def balance_view(self) -> dict[str, Any]:
        return {"currency_code": self.currency, "total_balance": self.balance, "available_balance": self.available(),
                "balance_breakdown": {"rewards": sum(s["_spent"] for s in self.studies.values())}}

    def pay(self, study: dict[str, Any], amount: int) -> None:
        cost = amount + fee(amount)
        if cost > self.balance:
            raise ProlificError(402, 140003, "Insufficient funds", {"balance": ["Top up your workspace."]})
        self.balance -= cost
        study["_spent"] += cost

    # submissions ----------------------------------------------------------------------------
    def review(self, key: str, action: str, body: dict[str, Any]) -> dict[str, Any]:
        sub = self.submission(key)
        if action not in ("APPROVE", "REJECT"):
            raise ProlificError(400, 140001, "Request is not valid", {"action": ["Must be APPROVE or REJECT."]})
        if sub["status"] != "AWAITING REVIEW":
            raise ProlificError(400, 140002, "Invalid submission transition",
                                {"action": [f"Cannot {action} a submission that is {sub['status']}."]})
        study = self.study(sub["study_id"])
        if action == "APPROVE":
            self.pay(study, int(study["reward"]))
            sub["status"] = "APPROVED"
        else:
            sub["status"] = "REJECTED"
            sub["rejection"] = {"category": body["rejection_category"], "message": body["message"]}
        self.settle(study)
        return sub

    def set_up_bonus(self, study_id: str, csv_bonuses: str) -> dict[str, Any]:
        self.study(study_id)
        rows, problems = [], []
        for line in csv_bonuses.strip().splitlines():
            pid, _, text = line.partition(",")
            try:
                pence = int((Decimal(text.strip()) * 100).quantize(Decimal(1)))
            except ArithmeticError:
                pence = 0
            if pence <= 0 or not any(s["participant_id"] == pid.strip() and s["study_id"] == study_id
                                     for s in self.submissions.values()):
                problems.append(line)
            rows.append((pid.strip(), pence))
        if problems:
            raise ProlificError(400, 140001, "Request is not valid",
                                {"csv_bonuses": [f"Rows need a participant of this study and a positive amount: "
                                                 f"{problems}"]})
        total = sum(p for _, p in rows)
        bonus: dict[str, Any] = {"id": new_id(self.rng), "study": study_id, "amount": total, "fees": fee(total),
                                 "total_amount": total + fee(total), "rows": rows, "paid": False}
        self.bonuses[bonus["id"]] = bonus
        return {k: v for k, v in bonus.items() if k != "rows"}

    def pay_bonus(self, key: str) -> dict[str, Any]:
        bonus = self._get(self.bonuses, key, "Bonus payment")
        if bonus["paid"]:
            raise ProlificError(400, 140002, "Already paid", {"id": [key]})
        self.pay(self.study(bonus["study"]), int(bonus["amount"]))
        bonus["paid"] = True
        return {"detail": "The bonus payment is being processed."}
