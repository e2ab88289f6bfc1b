"""How ``hitflow run`` ends: errors as one line naming the log, Ctrl-C saying where the run stopped,
a batch left open on a live route, and the honest ending (exit 8 when less work came in)."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path

from flows.errors import HitflowError


@contextlib.contextmanager
def logged_run(a: argparse.Namespace, campaign: str, db: str) -> Iterator[None]:
    """Errors leave the run as one line naming the log file that holds the traceback; Ctrl-C says
    where the run stopped and how to resume it."""
    from flows.campaigns.run_log import run_log
    from flows.errors import Interrupted

    with contextlib.ExitStack() as stack:
        log = stack.enter_context(run_log(Path(a.out) / campaign / "logs", not a.no_prefect))
        try:
            yield
        except HitflowError as exc:
            raise type(exc)(f"{exc} (details: {log})") from exc
        except KeyboardInterrupt as exc:
            stopped = Interrupted(f"{'terminated' if isinstance(exc, Terminated) else 'interrupted'}: "
                                  f"{where_stopped(db, campaign)}; every call made is in the ledger "
                                  f"{db}. {resume_hint(a, db)} (details: {log})")
            stopped.exit_code = 143 if isinstance(exc, Terminated) else 130  # 128 + the signal, as a shell shows
            raise stopped from exc
        except Exception as exc:
            raise HitflowError(f"unexpected {type(exc).__name__}: {exc}; the traceback is in {log}") from exc


class Terminated(KeyboardInterrupt):
    """SIGTERM (a service manager, `kill`): the run stops as on Ctrl-C, between two ledger writes."""


@contextlib.contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` in the main thread for the block, so a run under Prefect
    ends its flow run and stops the ephemeral server (which is in a session of its own, out of the
    terminal's signals) instead of dying at once and leaving both behind."""
    import signal

    def terminate(signum: int, frame: object) -> None:
        raise Terminated

    before = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def run_stopped(a: argparse.Namespace, result: dict[str, object]) -> int:
    """A run that stopped before its end: a batch left open (exit 9) or held for a person (exit 10,
    raised as BatchHeld so it is one plain ``hitflow:`` line; the Prefect flow run ended Completed)."""
    from flows.errors import BatchHeld

    if result.get("held"):
        raise BatchHeld(str(result["held"]))
    return batch_left_open(a, str(result["open"]))


def batch_left_open(a: argparse.Namespace, message: str) -> int:
    """A live batch still open: say how far it is and how to come back; exit 9 (not a failure)."""
    import shlex

    from flows.errors import BatchOpen

    again = " ".join(shlex.quote(x) for x in a.argv)  # the same command, options and all
    same = [f"{flag} {shlex.quote(str(value))}" for flag, value in (
        ("--platform", a.platform), ("--target", a.target), ("--endpoint-url", a.endpoint_url),
        ("--task-url", a.task_url), ("--db", a.db), ("--out", a.out), ("--detach", a.detach)) if value]
    print(f"{message}; resume with `hitflow {again}` or let the schedule do it "
          f"(`hitflow serve-schedules {shlex.quote(a.config)} {' '.join(same)}`)", flush=True)
    return BatchOpen.exit_code


def where_stopped(db: str, campaign: str) -> str:
    from flows.campaigns.campaign_status import campaign_status
    from flows.store import Store

    report = campaign_status(Store(db), campaign)
    return f"{campaign} stopped at {report[0]['next']}" if report else f"{campaign} stopped before planning"


def resume_hint(a: argparse.Namespace, db: str) -> str:
    endpoint = f" --endpoint-url {a.endpoint_url}" if a.endpoint_url else ""
    more = "".join(f" {flag}" for flag, wanted in (
        (f"--platform {a.platform}", getattr(a, "platform", "mturk") != "mturk"),
        (f"--out {a.out}", getattr(a, "out", "runs") != "runs"),
        ("--new-attempt", getattr(a, "new_attempt", False))) if wanted)
    return (f"Resume with: hitflow run {a.config}{endpoint} --db {db}{more} (same options; the simulator's state "
            "persists)")


def honest_ending(db: str, campaign: str, accept_partial: bool) -> int:
    """Less work than planned ends with exit 8 (incomplete), unless the config accepts partial results."""
    from flows.campaigns.summary import shortfall_lines
    from flows.errors import IncompleteError
    from flows.store import Store

    lines = shortfall_lines(Store(db), campaign)
    if not lines:
        return 0
    print("\n".join(lines))
    if accept_partial:
        print("partial results accepted ([campaign] accept_partial = true)")
        return 0
    raise IncompleteError(f"campaign {campaign} is incomplete ({lines[0].removeprefix('INCOMPLETE: ')}); "
                          f"see `hitflow status {campaign} --db {db}`")
