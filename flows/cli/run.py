"""``hitflow run``: the run itself, and how it ends."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from flows.cli.output_option import chosen_out, copied_line, copy_last_lines
from flows.cli.process_life import Terminated, loaded_then_frozen, stop_on_sigterm
from flows.core.db_url import shown_location
from flows.core.errors import HitflowError
from flows.core.outputs.output_location import staging_root

if TYPE_CHECKING:
    from flows.core.run.prefect_api import PrefectApi


@contextlib.contextmanager
def logged_run(a: argparse.Namespace, campaign: str, db: str) -> Iterator[None]:
    """Errors leave the run as one line naming the log with the traceback; Ctrl-C says how to resume."""
    from flows.campaigns.run_log import run_log

    with contextlib.ExitStack() as stack:
        stack.callback(copy_last_lines, a.out, campaign)  # last: the closed log goes to the URL too
        log = stack.enter_context(run_log(staging_root(a.out) / campaign / "logs", not a.no_prefect))
        try:
            yield
        except HitflowError as exc:
            raise type(exc)(f"{exc} (details: {log})") from exc
        except Exception as exc:
            signal_exc = interrupt_behind(exc)
            if signal_exc is None and ledger_lost(exc):
                raise HitflowError(f"the ledger {shown_location(db)} stopped answering ({str(exc).strip()}); "
                                   f"every call made before that is in it. Once its server is back: "
                                   f"{resume_hint(a, db)} (details: {log})") from exc
            if signal_exc is None:
                raise HitflowError(f"unexpected {type(exc).__name__}: {exc}; the traceback is in {log}") from exc
            raise _stopped(a, campaign, db, log, signal_exc) from exc
        except KeyboardInterrupt as exc:
            raise _stopped(a, campaign, db, log, exc) from exc


def ledger_lost(exc: BaseException) -> bool:
    """A PostgreSQL ledger's connection lost mid-run (psycopg's OperationalError, matched by name)."""
    return any(cls.__name__ == "OperationalError" and cls.__module__.startswith("psycopg")
               for cls in type(exc).__mro__)


def interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM behind Prefect's ``ValueError('Task run is not set')``, as its context."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def _stopped(a: argparse.Namespace, campaign: str, db: str, log: object, exc: KeyboardInterrupt) -> HitflowError:
    from flows.core.errors import Interrupted

    stopped = Interrupted(f"{'terminated' if isinstance(exc, Terminated) else 'interrupted'}: "
                          f"{where_stopped(db, campaign)}; every call made is in the ledger "
                          f"{shown_location(db)}. {resume_hint(a, db)} (details: {log})")
    stopped.exit_code = 143 if isinstance(exc, Terminated) else 130  # 128 + the signal, as a shell shows
    return stopped


def run_stopped(a: argparse.Namespace, result: dict[str, object]) -> int:
    """A run stopped before its end: a batch left open (exit 9) or held for a person (exit 10, one plain line)."""
    from flows.core.errors import BatchHeld

    if result.get("held"):
        raise BatchHeld(as_typed(a, str(result["held"])))
    return batch_left_open(a, str(result["open"]))


def as_typed(a: argparse.Namespace, message: str) -> str:
    """``message`` with its bare `hitflow run CONFIG ...` commands as the command was typed."""
    import re
    import shlex

    typed, skip = [], False
    for word in a.argv:  # the typed command without the options the hint adds itself
        if skip or word in ("--dry-run",) or word.startswith("--release-hold"):
            skip = word == "--release-hold"
            continue
        typed.append(shlex.quote(word))
    return re.sub(r"`hitflow run \S+ (--dry-run|--release-hold)", lambda m: f"`hitflow {' '.join(typed)} {m[1]}",
                  message)


def batch_left_open(a: argparse.Namespace, message: str) -> int:
    """A live batch still open: say how far it is and how to come back; exit 9 (not a failure)."""
    import shlex

    from flows.core.errors import BatchOpen

    again = typed_command(a)  # the same command, options and all
    same = [f"{flag} {shlex.quote(str(value))}" for flag, value in (
        ("--platform", a.platform), ("--target", a.target), ("--endpoint-url", a.endpoint_url),
        ("--task-url", a.task_url), ("--db", a.db), ("--out", a.out), ("--detach", a.detach)) if value]
    print(f"{message}; resume with `hitflow {again}` or let the schedule do it "
          f"(`hitflow serve-schedules {shlex.quote(a.config)} {' '.join(same)}`)", flush=True)
    return BatchOpen.exit_code


def where_stopped(db: str, campaign: str) -> str:
    from flows.core.ledger.store import Store
    from flows.driver.campaign_status import campaign_status

    step = (campaign_status(Store(db), campaign) or [{"next": ""}])[0]["next"]
    if step == "nothing: all batches done":  # every batch decided: the run was in its ending
        return f"{campaign} stopped after its batches, while finishing (top-ups or outputs); resuming finishes it"
    return f"{campaign} stopped at {step}" if step else f"{campaign} stopped before planning"


def typed_command(a: argparse.Namespace) -> str:
    """The command as typed after `hitflow`, quoted for a shell ("" when called without the CLI's argv)."""
    import shlex

    return shlex.join(getattr(a, "argv", []))


def resume_hint(a: argparse.Namespace, db: str) -> str:
    """The command typed, options and all (--no-prefect, --limit...): copied as printed it resumes this run."""
    typed = typed_command(a)
    if not typed:  # called without the CLI's argv (a test's namespace): the options that find the run
        typed = f"run {a.config} --db {shown_location(db)}"
    return f"Resume with: hitflow {typed} (the simulator's state persists)"


def honest_ending(db: str, campaign: str, accept_partial: bool) -> int:
    """Less work than planned ends with exit 8 (incomplete), unless the config accepts partial results."""
    from flows.campaigns.summary import shortfall_lines
    from flows.core.errors import IncompleteError
    from flows.core.ledger.store import Store

    lines = shortfall_lines(Store(db), campaign)
    if not lines:
        return 0
    print("\n".join(lines))
    if accept_partial:
        print("partial results accepted ([campaign] accept_partial = true)")
        return 0
    raise IncompleteError(f"campaign {campaign} is incomplete ({lines[0].removeprefix('INCOMPLETE: ')}); "
                          f"see `hitflow status {campaign} --db {shown_location(db)}`")


def cmd_run(a: argparse.Namespace) -> int:
    from flows.core.run.malloc_arenas import limit_malloc_arenas
    from flows.core.run.prefect_api import prefect_api

    limit_malloc_arenas()  # before any thread: 16 posting threads' arenas held the run's peak (malloc_arenas.py)
    # Prefect's server first, starting while the rest imports; the libraries loaded then spared the collector
    with prefect_api(not (a.no_prefect or a.dry_run)) as api, \
            loaded_then_frozen(thaw=not getattr(a, "program", False)) as loaded:
        return _run_loaded(a, api, loaded)


def _run_loaded(a: argparse.Namespace, api: PrefectApi | None, loaded: Callable[[], None]) -> int:
    from flows.campaigns.identity import Intent, run_name
    from flows.campaigns.page_plan import rehearsal_time_lines
    from flows.campaigns.summary import show_summary
    from flows.campaigns.task_kinds import load_campaign
    from flows.core.ledger.store import Store
    from flows.driver.campaign_run import run_campaign
    from flows.platforms.registry import platform_for

    cfg = load_campaign(a.config, a.platform)  # fail fast, before Prefect starts
    a.out = chosen_out(a, cfg.out)
    # a closed, unknown or unconfirmed target is refused before anything is created, dry runs too
    platform_for(a.platform).check_target(a.target, a.endpoint_url or cfg.endpoint_url, a.live or a.dry_run)
    if a.dry_run:
        from flows.cli.dry_run_command import dry_run

        return dry_run(a, cfg)
    for note in cfg.notes:  # the recommended rules the config leaves out, what a unit holds on the route
        print(note)
    if cfg.task == "custom":  # a page nobody can answer or read back is never posted
        _refuse_unreadable_page(cfg)
    if a.release_hold:
        from flows.campaigns.batch_hold import release_held

        released = release_held(Store(a.db), cfg.name, a.release_hold)
        print(f"released batch(es) {', '.join(map(str, released))} of {cfg.name}: "
              + ("approved despite the held rule" if a.release_hold == "approve" else "decided by the rules"))
    # the run itself checks its output folder and the campaign's identity, once (campaign_run.open_run_folder)
    name = run_name(a.db, cfg.name, Intent(new_attempt=a.new_attempt))
    if a.invite:  # only invite links write invites.csv: elsewhere there is nothing to compare with
        refuse_new_invitees(a, name)
    kwargs = {"target": a.target, "endpoint_url": a.endpoint_url, "db_path": a.db, "out_root": a.out,
              "limit": a.limit, "scale": a.scale, "live": a.live, "seed": a.seed, "crowd": a.crowd,
              "platform": a.platform, "task_url": a.task_url, "invitees": tuple(a.invite),
              "sim_state": a.sim_state or "", "detach": a.detach, "campaign_name": name,
              "resume_cancelled": a.resume_cancelled, "replace_outputs": a.replace_outputs}
    db = a.db
    with stop_on_sigterm(), logged_run(a, name, db):
        if a.no_prefect:
            loaded()
            result = run_campaign(a.config, **kwargs)
        else:
            from flows.driver.campaign_flow import whole_campaign
            from flows.driver.campaign_run import FLOW_MODULES
            assert api is not None
            api.ready(meanwhile=FLOW_MODULES)
            loaded()
            with api.flow_settings():
                result = whole_campaign(config_path=a.config, **kwargs)
    if isinstance(result, dict) and (result.get("open") or result.get("held")):  # a stop, not an ending
        return run_stopped(a, result)
    show_summary(staging_root(a.out) / name)
    for line in rehearsal_time_lines(Store(db).rows, cfg, a.platform, name):  # the plan against its times
        print(line)
    if copied := copied_line(a.out, name):
        print(copied)
    return honest_ending(db, name, cfg.accept_partial)


def refuse_new_invitees(a: argparse.Namespace, campaign: str) -> None:
    """A links campaign that sent its invites keeps its invitees: new names are refused."""
    import io

    import pandas as pd

    from flows.core.errors import ConfigError
    from flows.core.outputs.output_mirror import read_output

    # this host's copy, else the output URL's (another host sent the links; open_run_folder fetches them only at start)
    sent = staging_root(a.out) / campaign / "invites.csv"
    held = sent.read_bytes() if sent.is_file() else read_output(a.out, campaign, "invites.csv")
    invited = set(pd.read_csv(io.BytesIO(held), dtype=str, keep_default_na=False)["name"]) if held else set()
    new = [n for n in dict.fromkeys(a.invite) if n not in invited]
    if invited and new:
        names = " ".join(f"--invite {n}" for n in new)
        raise ConfigError(f"{campaign} has already sent its invite links ({len(invited)} in {sent}) and a re-run "
                          f"does not add people: give {', '.join(new)} theirs with `hitflow serve --campaign "
                          f"{a.config} --db {shown_location(a.db)} {names}` (a link works in every batch); "
                          "nothing was changed")


def _refuse_unreadable_page(cfg: Any) -> None:
    """The dry run's PROBLEM lines on stdout, then exit 2 before anything is created or posted."""
    from flows.custom.custom_task import UnreadablePage, refuse_unreadable

    try:
        refuse_unreadable(cfg)
    except UnreadablePage as exc:
        print("\n".join(exc.problems), flush=True)
        raise
