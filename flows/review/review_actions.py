"""A person's decisions from the review page, through the same ledger as the automatic ones."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from flows.core.decisions import Decision
from flows.core.errors import InputFormatError
from flows.core.run.run_context import Run
from flows.platforms.interface import Platform
from flows.platforms.registry import platform_for
from flows.platforms.targets import held_briefly

ACTIONS = ("approve", "reject", "strike_caption", "block", "unblock", "keep", "bonus")
# "keep": a person's word on a worker the rules would block, sent as an unblock (lifting any block made)
SENT_AS = {"keep": "unblock"}
MAX_BONUS = Decimal("20.00")


def check(d: Decision, platform: Platform) -> None:
    """Refuse an incomplete decision with a line that says what is missing."""
    if d.action not in ACTIONS:
        raise InputFormatError(f"unknown action {d.action!r}; one of {', '.join(ACTIONS)}")
    if not d.idem_key or not d.worker_id:
        raise InputFormatError("a decision needs its idempotency key and worker; reload the page")
    if d.action in ("approve", "reject", "strike_caption", "bonus") and not d.assignment_id:
        raise InputFormatError(f"{d.action} needs an assignment")
    if d.action == "reject":
        if not d.reason.strip():
            raise InputFormatError("a rejection needs a reason the worker will read")
        bad_category = bool(platform.REVIEW_CATEGORIES) and d.category not in platform.REVIEW_CATEGORIES
        if bad_category or len(d.reason.strip()) < platform.MIN_REASON_CHARS:
            raise InputFormatError(f"{platform.LABEL} needs a rejection category and a message of at least "
                                   f"{platform.MIN_REASON_CHARS} characters (this one has {len(d.reason.strip())})")
    if d.action == "strike_caption" and not d.image_id:
        raise InputFormatError("strike_caption needs the image whose caption is struck")
    if d.action == "bonus":
        bonus_amount(d.amount)


MONEY = re.compile(r"([0-9]{1,6})(?:\.([0-9]{1,2}))?")  # dollars and cents as a person types them: 2, 0.5, 1.25


def bonus_amount(typed: str) -> str:
    """A bonus as the platform gets it, two decimal places ("0.50"); anything but plain money is refused."""
    found = MONEY.fullmatch(typed.strip())
    if not found:
        raise InputFormatError(f"bonus amount {typed[:20]!r} is not dollars and cents such as 0.50")
    amount = Decimal(f"{found[1]}.{(found[2] or '').ljust(2, '0')}")
    if not Decimal("0.01") <= amount <= MAX_BONUS:
        raise InputFormatError(f"bonus must be between 0.01 and {MAX_BONUS} (got {amount})")
    return str(amount)


def apply_decision(run: Run, d: Decision) -> dict[str, Any]:
    """Record and send once; returns the recorded row (``repeat`` true when the key was seen before)."""
    store, name = run.store, run.cfg.name
    seen = store.rows("SELECT * FROM review_actions WHERE idem_key = ?", [d.idem_key])
    if seen:
        return {**seen[0], "repeat": True}
    platform = platform_for(run.platform)
    check(d, platform)
    if d.action == "bonus":
        d = replace(d, amount=bonus_amount(d.amount))  # what is sent and recorded: "10.00", not "1E+1"
    if d.action in ("approve", "reject"):
        sent = store.rows("SELECT action, applied FROM decisions WHERE campaign = ? AND assignment_id = ? "
                          "AND applied != ''", [name, d.assignment_id])
        if sent:  # the platform already has a verdict; a second one is never sent
            return {"action": d.action, "outcome": f"already {sent[0]['action']}d ({sent[0]['applied']})",
                    "repeat": True}
    ledger_key, outcome = platform.REVIEW_SENDERS[SENT_AS.get(d.action, d.action)](run, d)
    row = {"campaign": name, "batch": d.batch, "worker_id": d.worker_id, "assignment_id": d.assignment_id,
           "image_id": d.image_id, "action": d.action, "reason": d.reason, "category": d.category,
           "amount": d.amount, "reviewer": d.reviewer, "decided_at": time.time(), "idem_key": d.idem_key,
           "ledger_key": ledger_key, "outcome": outcome}
    with store.transaction():  # the person's decision and its effect on the dataset, together
        store.table("review_actions").insert(row)
        _record_effect(run, d, outcome)
    return {**row, "repeat": False}


def _record_effect(run: Run, d: Decision, outcome: str) -> None:
    name, store = run.cfg.name, run.store
    if d.action in ("approve", "reject"):
        store.table("decisions").upsert({
            "assignment_id": d.assignment_id, "campaign": name, "batch": d.batch, "worker_id": d.worker_id,
            "action": d.action, "reasons": f"reviewer {d.reviewer}: {d.reason}".strip(": "), "review": 1,
            "decided_at": time.time(), "applied": outcome}, pk=("campaign", "assignment_id"))
    elif d.action == "strike_caption":
        store.table("struck_captions").upsert({
            "campaign": name, "assignment_id": d.assignment_id, "image_id": d.image_id, "reviewer": d.reviewer,
            "reason": d.reason, "struck_at": time.time()}, pk=("campaign", "assignment_id", "image_id"))
    elif d.action == "block":
        store.table("blocks").upsert({"campaign": name, "worker_id": d.worker_id, "batch": d.batch,
                                      "rules": f"reviewer {d.reviewer}: {d.reason}".strip(": "),
                                      "mode": outcome, "applied": "yes"}, pk=("campaign", "worker_id"))
    elif d.action in ("unblock", "keep"):
        store.execute("DELETE FROM blocks WHERE campaign = ? AND worker_id = ?", [name, d.worker_id])


# ---- the review page's hold on its campaign's platform, let go once idle ----
IDLE_S = 5.0  # a person deciding card after card keeps the platform open; a pause lets others have it


@dataclass
class PlatformLease:
    """``connect`` opens the campaign's platform (a Run with a client); :meth:`using` lends it for one use."""

    connect: Callable[[], AbstractContextManager[Run]]
    idle_s: float = IDLE_S
    _open: ExitStack | None = None
    _run: Run | None = None
    _users: int = 0
    _timer: threading.Timer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self) -> Run:
        """The open platform, opened now if it is not (the caller must :meth:`give_back` it)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()  # a cancelled timer may stay: cancelling it again does nothing
            if self._run is None:
                stack = ExitStack()
                with held_briefly():  # a run of another campaign waits for this hold, not fails
                    self._run = stack.enter_context(self.connect())
                self._open = stack
            self._users += 1
            return self._run

    def give_back(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._run is not None:
                self._timer = threading.Timer(self.idle_s, self._let_go_if_idle)
                self._timer.daemon = True
                self._timer.start()

    @contextmanager
    def using(self) -> Iterator[Run]:
        run = self.take()
        try:
            yield run
        finally:
            self.give_back()

    def _let_go_if_idle(self) -> None:
        with self._lock:
            if self._users == 0:
                self._close()

    def close(self) -> None:
        """Let go now (the page is stopping)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._close()

    def _close(self) -> None:
        stack, self._open, self._run = self._open, None, None
        if stack is not None:
            stack.close()
