"""``hitflow``: thin wiring over library functions. Domain errors become one line and an exit code."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from flows import cli_args as arg
from flows.errors import HitflowError


def _parser() -> argparse.ArgumentParser:
    p = arg.OneLineParser(prog="hitflow", description="Crowdsourcing campaigns for image descriptions.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run or resume a campaign to the end (simulator by default)")
    run.add_argument("config")
    run.add_argument("--target", default="sim", help="sim (default) or mturk with --endpoint-url")
    run.add_argument("--endpoint-url", default="", type=arg.http_url,
                     help="an MTurk-compatible endpoint, or a running simulator")
    run.add_argument("--live", action="store_true", help="confirm a target that may spend real money")
    run.add_argument("--db", default="runs/hitflow.db", type=arg.writable_file,
                     help="SQLite ledger (default runs/hitflow.db)")
    run.add_argument("--sim-state", default=None, type=arg.writable_file,
                     help="the in-process simulator's marketplace file (default: sim/<crowd>-seed<seed>.db next to "
                          "the ledger); it persists, so status, reconcile, cancel and a resumed run see it")
    run.add_argument("--out", default="runs", type=arg.writable_dir, help="outputs go to OUT/<campaign name>/")
    run.add_argument("--limit", type=arg.positive, help="use only the first N items")
    run.add_argument("--scale", type=arg.scale, default=1,
                     help=f"K x the items, copies as new images, 1-{arg.MAX_SCALE} (load tests)")
    run.add_argument("--seed", type=arg.non_negative, default=1, help="simulator seed")
    run.add_argument("--crowd", help="simulator crowd file (config/crowds/*.toml)")
    run.add_argument("--no-prefect", action="store_true", help="run the steps without Prefect")
    run.add_argument("--platform", choices=("mturk", "prolific", "links"), default="mturk",
                     help="mturk: HITs (MTurk API); prolific: one study per batch served by hitflow's task server; "
                          "links: invite links to hitflow's task server (invited annotators, volunteers)")
    run.add_argument("--task-url", default="", type=arg.http_url,
                     help="public base URL of a running `hitflow serve` (Prolific); "
                          "default: a task server started for the run on 127.0.0.1")
    run.add_argument("--invite", action="append", default=[], metavar="NAME", type=arg.name,
                     help="links: an invitee's name (repeatable); their links go to OUT/<study>/invites.csv")
    run.add_argument("--dry-run", action="store_true",
                     help="render and check every page, estimate the cost, list the calls; send nothing")
    sim = sub.add_parser("sim", help="the simulated marketplace")
    sim_sub = sim.add_subparsers(dest="sim_command", required=True)
    serve = sim_sub.add_parser("serve", help="serve the MTurk simulator over HTTP")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=arg.port, default=8765)
    serve.add_argument("--seed", type=arg.non_negative, default=None, help="crowd seed (default 1, or the --state "
                                                                           "file's)")
    serve.add_argument("--state", type=arg.writable_file,
                       help="SQLite file the marketplace is kept in; a restart continues from it")
    serve.add_argument("--crowd")
    serve.add_argument("--speed", type=arg.non_negative_number, default=3600.0,
                       help="virtual seconds per real second (0: the clock moves only via POST /_sim/clock)")
    serve.add_argument("--throttle-rate", type=arg.share, default=0.0, help="share of calls throttled")
    serve.add_argument("--fault-rate", type=arg.share, default=0.0, help="share of calls answered 500")
    serve.add_argument("--lose-reply-rate", type=arg.share, default=0.0,
                       help="share of calls carried out whose reply is then lost (the connection drops)")
    serve.add_argument("--latency-ms", type=arg.non_negative_number, default=0.0,
                       help="each MTurk call's round trip (e.g. 150)")
    serve.add_argument("--rate-limit", type=arg.non_negative_number, default=0.0,
                       help="MTurk calls per second before ThrottlingException (token bucket; 0: none)")
    serve.add_argument("--burst", type=arg.non_negative_number, default=0.0,
                       help="token bucket depth (default: one second's calls)")
    task = sub.add_parser("serve", help="serve campaigns' task pages (Prolific, invite links, ExternalQuestion)")
    task.add_argument("--campaign", action="append", required=True, help="a campaign config (repeatable)")
    task.add_argument("--host", default="127.0.0.1")
    task.add_argument("--port", type=arg.port, default=8080)
    task.add_argument("--db", default="runs/hitflow.db", type=arg.writable_file)
    task.add_argument("--invite", action="append", default=[], metavar="NAME", type=arg.name,
                      help="print an invite link for NAME (self-hosted annotators), then serve")
    status = sub.add_parser("status", help="where each campaign and batch stands")
    status.add_argument("campaign", nargs="?")
    status.add_argument("--db", default="runs/hitflow.db")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.add_argument("--refresh", action="store_true",
                        help="first ask the platform (or the embedded simulator's file) for every assignment's state")
    status.add_argument("--live", action="store_true", help="with --refresh: confirm a non-simulator endpoint")
    for name, text in (("reconcile", "square the ledger with the platform; never creates anything"),
                       ("cancel", "expire open HITs, review what came in, delete finished HITs")):
        op = sub.add_parser(name, help=text)
        op.add_argument("campaign")
        op.add_argument("--db", default="runs/hitflow.db")
        op.add_argument("--endpoint-url", default="", type=arg.http_url,
                     help="override the endpoint the campaign ran against")
        op.add_argument("--live", action="store_true", help="confirm a target that may spend real money")
        op.add_argument("--dry-run", action="store_true", help="read the platform and report; change nothing")
    review = sub.add_parser("review", help="open the review page: sampled and flagged work, for a person")
    review.add_argument("campaign")
    review.add_argument("--db", default="runs/hitflow.db")
    review.add_argument("--endpoint-url", default="", help="override the endpoint the campaign ran against")
    review.add_argument("--live", action="store_true", help="confirm a target that may spend real money")
    review.add_argument("--reviewer", default=os.environ.get("USER", "reviewer"),
                        help="your name, recorded with each decision (default $USER)")
    review.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free one)")
    sched = sub.add_parser("serve-schedules", help="serve the next-batch flow on the campaign's [schedule]")
    sched.add_argument("config")
    sched.add_argument("--endpoint-url", default="", type=arg.http_url,
                     help="a running simulator or endpoint (default: one in-process)")
    sched.add_argument("--db", default="runs/hitflow.db", type=arg.writable_file)
    sched.add_argument("--out", default="runs", type=arg.writable_dir)
    dep = sub.add_parser("deploy", help="register a campaign's deployment with the Prefect server in use")
    dep.add_argument("config")
    dep.add_argument("--endpoint-url", required=True, type=arg.http_url,
                     help="a simulator or endpoint that outlives each run")
    dep.add_argument("--db", default="runs/hitflow.db", type=arg.writable_file)
    dep.add_argument("--out", default="runs", type=arg.writable_dir)
    dep.add_argument("--pool", default="hitflow-local", help="process work pool (created if missing)")
    dep.add_argument("--whole", action="store_true",
                     help="the whole campaign as one run, started on demand (default: one batch per scheduled run)")
    qc = sub.add_parser("qc", help="offline QC over a submissions CSV")
    qc.add_argument("submissions")
    qc.add_argument("--out", required=True, type=arg.writable_file, help="the flag table (CSV) to write")
    qc.add_argument("--config", help="campaign config whose [qc] and [submit_rules] apply")
    qualify = sub.add_parser("qualify", help="qualification tests")
    qualify_sub = qualify.add_subparsers(dest="qualify_command", required=True)
    score = qualify_sub.add_parser("score", help="score worker_id,item_id,answer rows against the answer key")
    score.add_argument("answers")
    score.add_argument("--out", required=True, type=arg.writable_file,
                       help="scores CSV to write (problems go beside it)")
    score.add_argument("--key", help="answer key CSV (default: the Flickr8k key in config/qualification/)")
    score.add_argument("--threshold", type=arg.percent, default=80.0, help="percent needed to pass")
    spell = sub.add_parser("spellcheck", help="spell-correct a CSV's caption column")
    spell.add_argument("input")
    spell.add_argument("--out", required=True, type=arg.writable_file, help="the corrected CSV to write")
    spell.add_argument("--min-workers", type=arg.positive, default=3,
                       help="keep a word this many workers used")
    _analyze_parser(sub)
    return p


ANALYZE_HELP = """kinds and the CSV columns each reads:
  agreement  item_id, worker_id, label                       (--level nominal|ordinal|interval)
  severity   participant_id, condition, score                (repeated-measures ANOVA + paired t-tests)
  errors     item_id, worker_id, congruent, categories       (categories separated by |)
  pairwise   item_id, worker_id, dimension, system_a, system_b, answer [, flipped]
  ratings    item_id, worker_id, label                       (expert 1-4 scores or crowd 0/1 selections)
  screening  participant_id, minutes, slider_zero [, passed_qualification, continued]
published files: --reader flickr8k-expert|flickr8k-crowd|errors-2017|kreiss-2022"""


def _analyze_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from flows.analysis import KINDS

    an = sub.add_parser("analyze", help="statistics of a human-evaluation CSV, as JSON on stdout",
                        epilog=ANALYZE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    an.add_argument("kind", choices=KINDS)
    an.add_argument("input")
    an.add_argument("--level", choices=("nominal", "ordinal", "interval"), default="nominal",
                    help="Krippendorff's alpha level (agreement; ratings default to ordinal)")
    an.add_argument("--reader", default="", help="read a published file instead of a plain CSV")
    an.add_argument("--min-minutes", type=arg.non_negative_number, default=18.0,
                    help="screening: shortest session kept")


def cmd_analyze(a: argparse.Namespace) -> int:
    import json

    from flows.analysis import analyze

    result = analyze(a.kind, Path(a.input), a.reader, a.level, a.min_minutes)
    print(json.dumps(result, indent=1, allow_nan=False, default=str))
    return 0


def cmd_run(a: argparse.Namespace) -> int:
    from flows.campaign_run import run_campaign
    from flows.config import load_config
    from flows.summary import summarize
    from flows.targets import check_target

    cfg = load_config(a.config)  # fail fast, before Prefect starts
    if a.dry_run:
        from flows.dry_run import format_plan, plan_calls

        plan = plan_calls(cfg, a.limit, a.scale, a.platform)
        print(f"target: none (dry run of {a.target})\n{format_plan(plan)}")
        return 1 if plan["problems"] else 0
    if a.platform == "mturk" or a.target == "sim":  # a simulator URL is verified before anything is created
        check_target(a.target, a.endpoint_url or cfg.endpoint_url, a.live)
    kwargs = {"target": a.target, "endpoint_url": a.endpoint_url, "db_path": a.db, "out_root": a.out,
              "limit": a.limit, "scale": a.scale, "live": a.live, "seed": a.seed, "crowd": a.crowd,
              "platform": a.platform, "task_url": a.task_url, "invitees": tuple(a.invite),
              "sim_state": a.sim_state or ""}
    db = a.db
    with logged_run(a, cfg.name, db):
        if a.no_prefect:
            run_campaign(a.config, **kwargs)
        else:
            from flows.campaign_flow import campaign_flow

            campaign_flow()(config_path=a.config, **kwargs)
    print(summarize(Path(a.out) / cfg.name))
    return honest_ending(db, cfg.name, cfg.accept_partial)


@contextlib.contextmanager
def logged_run(a: argparse.Namespace, campaign: str, db: str) -> Iterator[None]:
    """Errors leave the run as one line naming the log file that holds the traceback; Ctrl-C says
    where the run stopped and how to resume it."""
    from flows.errors import Interrupted
    from flows.run_log import run_log

    with contextlib.ExitStack() as stack:
        log = stack.enter_context(run_log(Path(a.out) / campaign / "logs", not a.no_prefect))
        try:
            yield
        except HitflowError as exc:
            raise type(exc)(f"{exc} (details: {log})") from exc
        except KeyboardInterrupt as exc:
            raise Interrupted(f"interrupted: {where_stopped(db, campaign)}; every call made is in the ledger "
                              f"{db}. {resume_hint(a, db)} (details: {log})") from exc
        except Exception as exc:
            raise HitflowError(f"unexpected {type(exc).__name__}: {exc}; the traceback is in {log}") from exc


def where_stopped(db: str, campaign: str) -> str:
    from flows.operations import campaign_status
    from flows.store import Store

    report = campaign_status(Store(db), campaign)
    return f"{campaign} stopped at {report[0]['next']}" if report else f"{campaign} stopped before planning"


def resume_hint(a: argparse.Namespace, db: str) -> str:
    endpoint = f" --endpoint-url {a.endpoint_url}" if a.endpoint_url else ""
    return f"Resume with: hitflow run {a.config}{endpoint} --db {db} (same options; the simulator's state persists)"


def honest_ending(db: str, campaign: str, accept_partial: bool) -> int:
    """Less work than planned ends with exit 8 (incomplete), unless the config accepts partial results."""
    from flows.errors import IncompleteError
    from flows.store import Store
    from flows.summary import shortfall_lines

    lines = shortfall_lines(Store(db), campaign)
    if not lines:
        return 0
    print("\n".join(lines))
    if accept_partial:
        print("partial results accepted ([campaign] accept_partial = true)")
        return 0
    raise IncompleteError(f"campaign {campaign} is incomplete ({lines[0].removeprefix('INCOMPLETE: ')}); "
                          f"see `hitflow status {campaign} --db {db}`")


def cmd_sim_serve(a: argparse.Namespace) -> int:
    from flows.sim.pacing import Pacing
    from flows.sim.server import SimServer

    state = Path(a.state) if a.state else None
    sim = SimServer(a.host, a.port, a.seed, Path(a.crowd) if a.crowd else None, verbose=True, speed=a.speed,
                    state=state)
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
    import uvicorn

    from flows.config import load_config
    from flows.task_server import TaskSite, invite_link, make_app

    configs = [load_config(path) for path in a.campaign]
    site = TaskSite(Path(a.db), {c.name: c for c in configs}, configs[0].prolific.completion_base)
    base = f"http://{a.host}:{a.port}"
    for cfg in configs:
        print(f"task pages: {base}/task/{cfg.name}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}"
              f"&SESSION_ID={{{{%SESSION_ID%}}}}")
        for name in a.invite:
            print(f"invite for {name}: {invite_link(site.secret, base, cfg.name, name)}")
    print(f"health: {base}/health; Ctrl-C stops the server", flush=True)
    uvicorn.run(make_app(site), host=a.host, port=a.port, log_level="warning")
    return 0


def cmd_status(a: argparse.Namespace) -> int:
    import json

    from flows.operations import campaign_status, format_status
    from flows.review_data import format_review_status, review_status
    from flows.store import Store

    if a.refresh:
        _refresh(a)
    store = Store(a.db)
    report = campaign_status(store, a.campaign)
    if a.campaign and not report:
        raise HitflowError(f"no campaign {a.campaign!r} in {a.db}; run `hitflow status` to list them")
    for c in report:
        c["review"] = review_status(store, c["campaign"])
    if a.json:
        print(json.dumps(report, indent=1))
        return 0
    if not report:
        print(format_status(report))
    for c in report:  # each campaign's lines, then what people did on the review page
        print(format_status([{k: v for k, v in c.items() if k != "review"}]))
        print(format_review_status(c["review"]))
    return 0


def _refresh(a: argparse.Namespace) -> None:
    from flows.operations import open_campaign_run, refresh_statuses
    from flows.store import Store

    names = [a.campaign] if a.campaign else [r["name"] for r in Store(a.db).rows("SELECT name FROM campaigns")]
    for name in names:
        with open_campaign_run(a.db, name, live=a.live, progress=lambda _: None) as run:
            changed = refresh_statuses(run)
        print(f"{name}: {changed} assignment status(es) updated from the platform", file=sys.stderr)


def cmd_platform_op(a: argparse.Namespace) -> int:
    from flows.operations import cancel, cancel_plan, open_campaign_run, reconcile

    with open_campaign_run(a.db, a.campaign, a.endpoint_url, a.live) as run:
        if a.command == "reconcile":
            result = reconcile(run, dry_run=a.dry_run)
        else:
            result = cancel_plan(run) if a.dry_run else cancel(run)
    print({k: (len(v) if isinstance(v, list) else v) for k, v in result.items()})
    return 0


def cmd_review(a: argparse.Namespace) -> int:
    from flows.operations import open_campaign_run
    from flows.review_app import serve_review

    with open_campaign_run(a.db, a.campaign, a.endpoint_url, a.live) as run:
        serve_review(run, a.reviewer, a.port)
    return 0


def cmd_serve_schedules(a: argparse.Namespace) -> int:
    from flows.campaign_flow import serve_schedule

    serve_schedule(a.config, a.endpoint_url, a.db, a.out)
    return 0


def cmd_deploy(a: argparse.Namespace) -> int:
    from flows.campaign_flow import deploy_campaign, deploy_schedule

    print(f"target: {a.endpoint_url}")
    deploy = deploy_campaign if a.whole else deploy_schedule
    deployment = deploy(a.config, a.endpoint_url, a.db, a.out, a.pool)
    print(f"deployment {deployment} registered; start a worker with: prefect worker start --pool {a.pool}")
    return 0


def cmd_qc(a: argparse.Namespace) -> int:
    from flows.offline import offline_qc

    n = offline_qc(Path(a.submissions), Path(a.out), Path(a.config) if a.config else None)
    print(f"target: none (offline); {n} flag(s) written to {a.out}")
    return 0


def cmd_qualify(a: argparse.Namespace) -> int:
    from flows.offline import DEFAULT_KEY, offline_qualify

    workers, problems, problems_path = offline_qualify(Path(a.answers), Path(a.out),
                                                       Path(a.key) if a.key else DEFAULT_KEY, a.threshold)
    print(f"target: none (offline); {workers} worker(s) scored into {a.out}")
    if problems:
        print(f"hitflow: {problems} answer(s) could not be scored; see {problems_path}", file=sys.stderr)
    return 0


def cmd_spellcheck(a: argparse.Namespace) -> int:
    from flows.offline import offline_spellcheck

    changed = offline_spellcheck(Path(a.input), Path(a.out), a.min_workers)
    print(f"target: none (offline); {changed} caption(s) corrected, written to {a.out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    args = _parser().parse_args(argv)
    handlers = {"run": cmd_run, "qc": cmd_qc, "spellcheck": cmd_spellcheck, "status": cmd_status,
                "reconcile": cmd_platform_op, "cancel": cmd_platform_op, "serve-schedules": cmd_serve_schedules,
                "deploy": cmd_deploy, "qualify": cmd_qualify, "serve": cmd_serve,
                "analyze": cmd_analyze, "review": cmd_review}
    handler = cmd_sim_serve if args.command == "sim" else handlers[args.command]
    try:
        code = handler(args)
        sys.stdout.flush()  # a closed pipe (`| head`) shows up here, not at interpreter exit
        return code
    except HitflowError as exc:
        print(f"hitflow: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the reader left; say nothing more
        return 141  # 128 + SIGPIPE, as a shell reports a command whose reader closed the pipe
    except KeyboardInterrupt:
        print("hitflow: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
