"""``hitflow``: thin wiring over library functions. Domain errors become one line and an exit code."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from flows.errors import HitflowError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hitflow", description="Crowdsourcing campaigns for image descriptions.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run or resume a campaign to the end (simulator by default)")
    run.add_argument("config")
    run.add_argument("--target", default="sim", help="sim (default) or mturk with --endpoint-url")
    run.add_argument("--endpoint-url", default="", help="an MTurk-compatible endpoint, or a running simulator")
    run.add_argument("--live", action="store_true", help="confirm a target that may spend real money")
    run.add_argument("--db", help="SQLite ledger (default runs/hitflow.db; for the in-process simulator a fresh "
                                   "OUT/<campaign>/sim-ledger.db, since that simulator ends with the run)")
    run.add_argument("--out", default="runs", help="outputs go to OUT/<campaign name>/")
    run.add_argument("--limit", type=int, help="use only the first N items")
    run.add_argument("--scale", type=int, default=1, help="repeat the item list K times (load tests)")
    run.add_argument("--seed", type=int, default=1, help="simulator seed")
    run.add_argument("--crowd", help="simulator crowd file (config/crowds/*.toml)")
    run.add_argument("--no-prefect", action="store_true", help="run the steps without Prefect")
    run.add_argument("--platform", choices=("mturk", "prolific", "links"), default="mturk",
                     help="mturk: HITs (MTurk API); prolific: one study per batch served by hitflow's task server; "
                          "links: invite links to hitflow's task server (invited annotators, volunteers)")
    run.add_argument("--task-url", default="", help="public base URL of a running `hitflow serve` (Prolific); "
                                                    "default: a task server started for the run on 127.0.0.1")
    run.add_argument("--invite", action="append", default=[], metavar="NAME",
                     help="links: an invitee's name (repeatable); their links go to OUT/<study>/invites.csv")
    run.add_argument("--dry-run", action="store_true",
                     help="render and check every page, estimate the cost, list the calls; send nothing")
    sim = sub.add_parser("sim", help="the simulated marketplace")
    sim_sub = sim.add_subparsers(dest="sim_command", required=True)
    serve = sim_sub.add_parser("serve", help="serve the MTurk simulator over HTTP")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--seed", type=int, default=1)
    serve.add_argument("--crowd")
    serve.add_argument("--speed", type=float, default=3600.0,
                       help="virtual seconds per real second (0: the clock moves only via POST /_sim/clock)")
    serve.add_argument("--throttle-rate", type=float, default=0.0, help="share of calls throttled")
    serve.add_argument("--fault-rate", type=float, default=0.0, help="share of calls answered 500")
    task = sub.add_parser("serve", help="serve campaigns' task pages (Prolific, invite links, ExternalQuestion)")
    task.add_argument("--campaign", action="append", required=True, help="a campaign config (repeatable)")
    task.add_argument("--host", default="127.0.0.1")
    task.add_argument("--port", type=int, default=8080)
    task.add_argument("--db", default="runs/hitflow.db")
    task.add_argument("--invite", action="append", default=[], metavar="NAME",
                      help="print an invite link for NAME (self-hosted annotators), then serve")
    status = sub.add_parser("status", help="where each campaign and batch stands")
    status.add_argument("campaign", nargs="?")
    status.add_argument("--db", default="runs/hitflow.db")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    for name, text in (("reconcile", "square the ledger with the platform; never creates anything"),
                       ("cancel", "expire open HITs, review what came in, delete finished HITs")):
        op = sub.add_parser(name, help=text)
        op.add_argument("campaign")
        op.add_argument("--db", default="runs/hitflow.db")
        op.add_argument("--endpoint-url", default="", help="override the endpoint the campaign ran against")
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
    sched.add_argument("--endpoint-url", default="", help="a running simulator or endpoint (default: one in-process)")
    sched.add_argument("--db", default="runs/hitflow.db")
    sched.add_argument("--out", default="runs")
    dep = sub.add_parser("deploy", help="register the next-batch deployment with the Prefect server in use")
    dep.add_argument("config")
    dep.add_argument("--endpoint-url", required=True, help="a simulator or endpoint that outlives each run")
    dep.add_argument("--db", default="runs/hitflow.db")
    dep.add_argument("--out", default="runs")
    dep.add_argument("--pool", default="hitflow-local", help="process work pool (created if missing)")
    qc = sub.add_parser("qc", help="offline QC over a submissions CSV")
    qc.add_argument("submissions")
    qc.add_argument("--out", required=True)
    qc.add_argument("--config", help="campaign config whose [qc] and [submit_rules] apply")
    qualify = sub.add_parser("qualify", help="qualification tests")
    qualify_sub = qualify.add_subparsers(dest="qualify_command", required=True)
    score = qualify_sub.add_parser("score", help="score worker_id,item_id,answer rows against the answer key")
    score.add_argument("answers")
    score.add_argument("--out", required=True)
    score.add_argument("--key", help="answer key CSV (default: the Flickr8k key in config/qualification/)")
    score.add_argument("--threshold", type=float, default=80.0, help="percent needed to pass")
    spell = sub.add_parser("spellcheck", help="spell-correct a CSV's caption column")
    spell.add_argument("input")
    spell.add_argument("--out", required=True)
    spell.add_argument("--min-workers", type=int, default=3)
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
    an.add_argument("--min-minutes", type=float, default=18.0, help="screening: shortest session kept")


def cmd_analyze(a: argparse.Namespace) -> int:
    import json

    from flows.analysis import analyze

    result = analyze(a.kind, Path(a.input), a.reader, a.level, a.min_minutes)
    print(json.dumps(result, indent=1, allow_nan=False, default=str))
    return 0


def cmd_run(a: argparse.Namespace) -> int:
    from flows.campaign_flow import campaign_flow, run_campaign
    from flows.config import load_config
    from flows.summary import summarize
    from flows.targets import check_target

    cfg = load_config(a.config)  # fail fast, before Prefect starts
    if a.dry_run:
        from flows.dry_run import format_plan, plan_calls

        plan = plan_calls(cfg, a.limit, a.scale)
        print(f"target: none (dry run of {a.target})\n{format_plan(plan)}")
        return 1 if plan["problems"] else 0
    if a.platform == "mturk" or a.target == "sim":  # a simulator URL is verified before anything is created
        check_target(a.target, a.endpoint_url or cfg.endpoint_url, a.live)
    db = a.db or _default_db(a, cfg.name)
    kwargs = {"target": a.target, "endpoint_url": a.endpoint_url, "db_path": db, "out_root": a.out,
              "limit": a.limit, "scale": a.scale, "live": a.live, "seed": a.seed, "crowd": a.crowd,
              "platform": a.platform, "task_url": a.task_url, "invitees": tuple(a.invite)}
    if a.no_prefect:
        run_campaign(a.config, **kwargs)
    else:
        campaign_flow()(config_path=a.config, **kwargs)
    print(summarize(Path(a.out) / cfg.name))
    return 0


def _default_db(a: argparse.Namespace, campaign: str) -> str:
    if a.target == "sim" and not a.endpoint_url:
        ledger = Path(a.out) / campaign / "sim-ledger.db"
        for old in ledger.parent.glob("sim-ledger.db*"):  # its simulator is gone; nothing to resume
            old.unlink()
        return str(ledger)
    return "runs/hitflow.db"


def cmd_sim_serve(a: argparse.Namespace) -> int:
    from flows.sim.server import SimServer

    sim = SimServer(a.host, a.port, a.seed, Path(a.crowd) if a.crowd else None, verbose=True, speed=a.speed)
    sim.market.faults.throttle_rate, sim.market.faults.fault_rate = a.throttle_rate, a.fault_rate
    print(f"target: simulator at {sim.url} (seed {a.seed}, {len(sim.market.workers)} workers, clock x{a.speed:g}); "
          "Ctrl-C stops it", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        sim.serve_forever()
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
    from flows.campaign_flow import deploy_schedule

    print(f"target: {a.endpoint_url}")
    deployment = deploy_schedule(a.config, a.endpoint_url, a.db, a.out, a.pool)
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
        return handler(args)
    except HitflowError as exc:
        print(f"hitflow: error: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
