"""``hitflow``: thin wiring over library functions. Domain errors become one line and an exit code."""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from flows.cli.aggregate_command import cmd_aggregate
from flows.cli.deploy_command import cmd_deploy
from flows.cli.output_option import chosen_out, configured_out
from flows.cli.parser import ANALYZE_KINDS, _parser, outside_paths_flag, refuse_unused_options  # noqa: F401  (ANALYZE_KINDS: tested against the analyses)
from flows.cli.path_errors import path_error
from flows.cli.pipe_output import ReaderMayLeave
from flows.cli.preview_command import cmd_preview
from flows.cli.process_life import finish_without_teardown, leave_now, loaded_then_frozen, prefect_settings
from flows.cli.run import cmd_run
from flows.cli.ui_command import cmd_ui
from flows.cli.verify_command import cmd_verify
from flows.core.db_url import password_to_environment
from flows.core.errors import ConfigError, HitflowError, Interrupted


def cmd_analyze(a: argparse.Namespace) -> int:
    import json

    from flows.studies.analysis import analyze

    result = analyze(a.kind, Path(a.input), a.reader, a.level, a.min_minutes)
    print(json.dumps(result, indent=1, allow_nan=False, default=str))
    return 0


def cmd_sim_serve(a: argparse.Namespace) -> int:
    from flows.sim.service.pacing import Pacing
    from flows.sim.service.server import SimServer

    state = Path(a.state) if a.state else None
    sim = SimServer(a.host, a.port, a.seed, Path(a.crowd) if a.crowd else None, verbose=a.log_requests,
                    speed=a.speed, state=state, arrival_mean_s=a.arrival_mean_s, start=a.start)
    faults = sim.market.faults
    faults.throttle_rate, faults.fault_rate, faults.lose_reply_rate = a.throttle_rate, a.fault_rate, a.lose_reply_rate
    sim.httpd.pacing = Pacing(a.latency_ms, a.rate_limit, a.burst)
    kept = f"state {state}, {len(sim.market.hits)} HITs so far" if state else "state in memory only"
    print(f"target: simulator at {sim.url} (seed {sim.market.seed}, {len(sim.market.workers)} workers, "
          f"clock x{a.speed:g}, {kept}); Ctrl-C stops it", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        sim.serve_forever()
    sim.stop()
    return 0


def cmd_serve(a: argparse.Namespace) -> int:
    from flows.campaigns.task_kinds import load_campaign
    from flows.core.site_secrets import invite_link
    from flows.taskserver.task_server import TaskSite
    from flows.taskserver.task_server_thread import check_listenable, serve_forever, server_config
    from flows.taskserver.task_units import work_state

    configs = [load_campaign(path) for path in a.campaign]  # a unit's hold: its kind's maximum minutes
    check_listenable(a.host, a.port)  # before the lines that say it serves
    from flows.core.db_url import is_postgres_url, shown_location

    ledger = a.db if is_postgres_url(a.db) else Path(a.db)
    site = TaskSite(ledger, {c.name: c for c in configs}, configs[0].prolific.completion_base)
    base = (a.public_url or f"http://{a.host}:{a.port}").rstrip("/")
    for cfg in configs:
        print(f"task pages: {base}/task/{cfg.name}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}"
              f"&SESSION_ID={{{{%SESSION_ID%}}}}")
        print(f"{cfg.name}: {work_state(site.store(), cfg)}")
        for name in a.invite:
            print(f"invite for {name}: {invite_link(site.secret, base, cfg.name, name)}")
    # a PostgreSQL ledger needs HITFLOW_TASK_SECRET (TaskSite refused it above), so only a file path reaches the else
    secret = "HITFLOW_TASK_SECRET" if os.environ.get("HITFLOW_TASK_SECRET") else f"{shown_location(a.db)}.task-secret"
    proxies = f"X-Forwarded-* trusted from {', '.join(a.trusted_proxy)}" if a.trusted_proxy else \
        "X-Forwarded-* ignored (no --trusted-proxy)"
    print(f"ledger {shown_location(a.db)}; invite signing secret from {secret}; {proxies}")
    print(f"health: {base}/health; Ctrl-C stops the server", flush=True)
    serve_forever(server_config(site, a.host, a.port, tuple(a.trusted_proxy)))
    return 0


def cmd_status(a: argparse.Namespace) -> int:
    import json

    from flows.campaigns.campaign_needs import format_review_status, review_status
    from flows.core.ledger.store import existing_store
    from flows.driver.campaign_status import campaign_status, format_status, show_status

    store = existing_store(a.db)  # before --refresh, which would otherwise create it
    if a.refresh:
        _refresh(a)
    report = campaign_status(store, a.campaign)
    if a.campaign and not report:
        raise ConfigError(f"no campaign {a.campaign!r} in {store.shown()}; `hitflow status --db "
                          f"{shlex.quote(store.shown())}` lists them")  # exit 2, as cancel, reconcile and review
    for c in report:
        c["review"] = review_status(store, c["campaign"], c["needs"])  # the same computation as the lines
    if a.json:
        print(json.dumps(report, indent=1))
        return 0
    if not report:
        print(format_status(report))
    for c in report:  # each campaign's lines, then what people did on the review page
        show_status([{k: v for k, v in c.items() if k != "review"}])
        print(format_review_status(c["review"]))
    return 0


def _refresh(a: argparse.Namespace) -> None:
    from flows.core.ledger.store import Store
    from flows.driver.operations import open_campaign_run
    from flows.platforms.registry import platform_for

    names = [a.campaign] if a.campaign else [r["name"] for r in Store(a.db).rows("SELECT name FROM campaigns")]
    for name in names:
        with open_campaign_run(a.db, name, live=a.live, progress=lambda _: None) as run:
            changed = platform_for(run.platform).refresh(run)
        print(f"{name}: {changed} assignment status(es) updated from the platform", file=sys.stderr)


def cmd_platform_op(a: argparse.Namespace) -> int:
    from flows.core.ledger.campaign_lock import refuse_while_running
    from flows.core.ledger.store import existing_store

    store = existing_store(a.db)
    if a.command == "cancel" and not a.dry_run:
        refuse_while_running(store, a.campaign, "cancel")  # before the slow imports below
    from flows.driver.operations import cancel_stopped_campaign, open_campaign_run
    from flows.platforms.registry import platform_for

    if a.command == "cancel" and not a.dry_run:
        out = chosen_out(a) if a.out else None  # default: where the run wrote, as the ledger says
        print(cancel_stopped_campaign(a.db, a.campaign, a.endpoint_url, a.live, out))
        return 0
    with open_campaign_run(a.db, a.campaign, a.endpoint_url, a.live) as run:  # each says what it did in words
        platform = platform_for(run.platform)
        platform.reconcile(run, dry_run=a.dry_run) if a.command == "reconcile" else platform.cancel_plan(run)
    return 0


def cmd_review(a: argparse.Namespace) -> int:
    from functools import partial

    from flows.core.ledger.store import existing_store
    from flows.driver.operations import ledger_run, open_campaign_run
    from flows.review.review_app import serve_review

    existing_store(a.db)
    # the platform is opened for each burst of decisions: the folder's other campaigns run meanwhile
    connect = partial(open_campaign_run, a.db, a.campaign, a.endpoint_url, a.live, progress=lambda _: None)
    serve_review(ledger_run(a.db, a.campaign), a.reviewer, a.port, connect)
    return 0


def cmd_serve_schedules(a: argparse.Namespace) -> int:
    from flows.driver.campaign_flow import serve_schedule

    out = chosen_out(a, configured_out(a.config))
    serve_schedule(a.config, a.endpoint_url, a.db, out, a.platform, a.task_url, a.detach, a.target, a.live)
    return 0


def cmd_qc(a: argparse.Namespace) -> int:
    # What is loaded by now outlives the QC: frozen, thawed after. The collector stays off while it checks (few cycles)
    with loaded_then_frozen(thaw=not getattr(a, "program", False), collect=False) as loaded:
        from flows.campaigns.offline import offline_qc
        from flows.cli.process_life import arrow_pool_that_gives_back

        arrow_pool_that_gives_back()
        loaded()  # a row it cannot read is a malformed_answer flag, and a line on stderr
        n = offline_qc(Path(a.submissions), Path(a.out), Path(a.config) if a.config else None, tuple(a.text_field),
                       a.time_outlier_method)
    print(f"target: none (offline); {n} flag(s) written to {a.out}")
    return 0


def cmd_qualify(a: argparse.Namespace) -> int:
    from flows.campaigns.offline import offline_qualify
    from flows.core.inputs.answer_key import DEFAULT_KEY

    workers, problems, problems_path = offline_qualify(Path(a.answers), Path(a.out),
                                                       Path(a.key) if a.key else DEFAULT_KEY, a.threshold)
    print(f"target: none (offline); {workers} worker(s) scored into {a.out}")
    if problems:
        print(f"hitflow: {problems} answer(s) could not be scored; see {problems_path}", file=sys.stderr)
    return 0


def cmd_new(a: argparse.Namespace) -> int:
    from flows.custom.page_fetch import FetchRefused, allowed_networks
    from flows.custom.scaffold import scaffold
    from flows.custom.scaffold_import import scaffold_from

    if a.page:
        try:
            allowed = allowed_networks(a.allow_address)
        except FetchRefused as exc:
            raise ConfigError(str(exc)) from exc
        written, notes = scaffold_from(a.name, Path(a.page), Path(a.dir), Path(a.answer_key) if a.answer_key else None,
                                       allowed, a.keep_jinja, Path(a.items) if a.items else None)
        for note in notes:
            print(note, file=sys.stderr)
    else:
        written = scaffold(a.name, Path(a.dir), Path(a.items) if a.items else None)
    print("wrote " + ", ".join(str(p) for p in written))
    print(f"next: hitflow run {Path('config') / (a.name + '.toml')} --no-prefect   (from {a.dir}; outputs in "
          f"runs/{a.name}/)")
    return 0


def cmd_spellcheck(a: argparse.Namespace) -> int:
    from flows.campaigns.offline import offline_spellcheck

    changed = offline_spellcheck(Path(a.input), Path(a.out), a.min_workers)
    print(f"target: none (offline); {changed} caption(s) corrected, written to {a.out}")
    return 0


def one_line(exc: HitflowError) -> str:
    """An error's text as one line; a ``lists_lines`` message keeps its lines."""
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", "", str(exc))  # a server's ESC sequences are not run
    if exc.lists_lines:
        return text
    return re.sub(r"\s*\n\s*", " ", text.strip())


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    prefect_settings(args.command in ("serve-schedules", "deploy") or (args.command == "run" and not args.no_prefect
                                                                       and not args.dry_run))
    args.argv, args.program = list(sys.argv[1:] if argv is None else argv), argv is None  # as typed; not in-process
    if getattr(args, "db", None) and args.command != "deploy":  # deploy refuses it: a worker has no such env
        typed, args.db = args.db, password_to_environment(str(args.db))
        args.argv = [word.replace(typed, args.db) for word in args.argv]
    outside_paths_flag(args)
    handlers = {"run": cmd_run, "qc": cmd_qc, "spellcheck": cmd_spellcheck, "status": cmd_status,
                "reconcile": cmd_platform_op, "cancel": cmd_platform_op, "serve-schedules": cmd_serve_schedules,
                "deploy": cmd_deploy, "qualify": cmd_qualify, "serve": cmd_serve,
                "analyze": cmd_analyze, "review": cmd_review, "new": cmd_new,
                "ui": cmd_ui, "aggregate": cmd_aggregate, "verify": cmd_verify, "preview": cmd_preview}
    handler = cmd_sim_serve if args.command == "sim" else handlers[args.command]
    out = ReaderMayLeave(sys.stdout)
    if args.command == "run":  # a run goes on to its end when the reader of its output leaves
        sys.stdout = out  # type: ignore[assignment]
    try:
        refuse_unused_options(args)
        code = handler(args)
        sys.stdout.flush()  # a closed pipe (`| head`) shows up here, not at interpreter exit
        code = 141 if out.reader_left else code
        # the program, not a caller running main() in-process: a run, or qc's ~0.07 s of freeing its frames
        if argv is None and args.command in ("run", "qc"):
            finish_without_teardown(code)
        return code
    except HitflowError as exc:  # a planned stop for a person (review, a held batch) is not an error
        print(f"hitflow: {'error: ' if exc.exit_code and not exc.waits_for_person else ''}{one_line(exc)}",
              file=sys.stderr)
        if isinstance(exc, Interrupted) and "prefect" in sys.modules:
            leave_now(exc.exit_code)
        if isinstance(exc, Interrupted) and argv is None:  # the program: as a finished run leaves (below)
            finish_without_teardown(exc.exit_code)
        return exc.exit_code
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the reader left; say nothing more
        return 141  # 128 + SIGPIPE, as a shell reports a command whose reader closed the pipe
    except KeyboardInterrupt:
        print("hitflow: interrupted", file=sys.stderr)
        return 130
    except MemoryError:  # a limit (ulimit -v, a container's) met anywhere: one line, not a traceback
        print("hitflow: error: out of memory; give the command more memory, or smaller inputs (a template "
              "expression, an items file)", file=sys.stderr)
        return 1
    except OSError as exc:  # a path the system refused (--out /proc/nope, a full disk): one line
        if exc.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL):  # a server's --host/--port
            print(f"hitflow: error: cannot listen there: {exc.strerror}; pass another --port (or --host)",
                  file=sys.stderr)
            return 2
        line, code = path_error(exc)  # a path the user chose, or hitflow's own file (flows/cli/path_errors.py)
        print(line, file=sys.stderr)
        return code


if __name__ == "__main__":
    sys.exit(main())
