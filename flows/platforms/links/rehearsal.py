"""Invite links rehearsed on the simulator, on its virtual clock and the run's seed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flows.core.run.run_context import Run
from flows.platforms.batch_window import open_window
from flows.platforms.targets import sim_clock, sim_wait, simulate_invitees


class InviteeClock:
    """The rehearsal task server's clock: the invitees' virtual request time while they work, else the run's."""

    def __init__(self, run_clock: Callable[[], float]):
        self.run_clock = run_clock
        self.now: float | None = None

    def __call__(self) -> float:
        return self.run_clock() if self.now is None else self.now

    def at(self, when: float) -> None:
        self.now = when

    def release(self) -> None:
        self.now = None


def rehearsal_site(run: Run) -> dict[str, Any]:
    """The in-process task server's options when only the simulator's crowd opens its links (virtual clock)."""
    run.clock, run.wait = sim_clock(run.target), sim_wait(run.target)
    clock = InviteeClock(run.clock)
    run.notes["invitee_clock"] = clock
    return {"now": clock, "session_seed": int(run.notes.get("seed", 1))}


def simulated_round(run: Run, batch: int, links: dict[str, str],
                    crowd: tuple[list[Any], dict[str, Any]]) -> tuple[int, int]:
    """The simulated invitees' round for ``batch``, then the clock moves to its last submission; (submitted, came)."""
    done = frozenset(r["participant_id"].removeprefix("invite:") for r in run.store.rows(
        "SELECT participant_id FROM task_sessions WHERE campaign = ? AND batch = ? AND submitted_at IS NOT NULL",
        [run.cfg.name, batch]))
    outcome = invitees_on_clock(run, batch, links, crowd, batch, open_window(run, batch), done)
    return sum(s in (200, 303) for s in outcome.values()), len(outcome)


def invitees_on_clock(run: Run, batch: int, links: dict[str, str], crowd: tuple[list[Any], dict[str, Any]],
                      round_no: int, start: float, done: frozenset[str]) -> dict[str, int]:
    """The simulated invitees among ``links`` work round ``round_no`` from ``start``; the HTTP status each got."""
    clock = run.notes.get("invitee_clock")
    try:
        outcome = simulate_invitees(links, crowd, int(run.notes.get("seed", 1)), round_no, start,
                                    clock.at if clock else None, done)
    finally:
        if clock:
            clock.release()
    if clock:
        catch_up(run, batch)
    return outcome


def catch_up(run: Run, batch: int) -> None:
    """Move the simulator's clock to the batch's last submission, once (a resumed run's moves nothing)."""
    last = run.store.rows("SELECT MAX(submit_time) AS t FROM assignments WHERE campaign = ? AND batch = ?",
                          [run.cfg.name, batch])[0]["t"]
    now = run.clock()
    if last is not None and float(last) > now:
        run.wait(float(last) - now)
