"""``hitflow``'s argument parser, built without importing Prefect or pandas."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from functools import lru_cache

from flows.cli import args as arg
from flows.cli.aggregate_command import add_aggregate_parser
from flows.cli.help import add_examples_and_exit_codes
from flows.cli.qc_options import add_qc_parser
from flows.cli.verify_command import add_verify_parser
from flows.core.errors import ConfigError
from flows.platforms import DEFAULT_PLATFORM, PLATFORMS

DB_HELP = ("the ledger: an SQLite file or a postgresql:// URL (default $HITFLOW_DB or runs/hitflow.db; "
           "`hitflow serve` uses the same; docs/postgres.md)")
OUT_HELP = ("outputs go to OUT/<campaign name>/: a folder or an fsspec URL such as s3://bucket/runs, written here "
            "and copied there after each batch (default $HITFLOW_OUT, else the config's [target] out, else runs; "
            "docs/how-to/work-pools-several-hosts.md)")
SIM_FAULTS_AND_PACING = (  # `hitflow sim serve` options, each 0 (off) by default
    ("--throttle-rate", arg.share, "share of calls throttled"),
    ("--fault-rate", arg.share, "share of calls answered 500"),
    ("--lose-reply-rate", arg.share, "share of calls carried out whose reply is then lost (the connection drops)"),
    ("--latency-ms", arg.non_negative_number, "each MTurk call's round trip (e.g. 150)"),
    ("--rate-limit", arg.non_negative_number, "MTurk calls a second before ThrottlingException (0: no limit)"),
    ("--burst", arg.non_negative_number, "token bucket depth (default: one second's calls)"),
)


class _KeptParser(arg.OneLineParser):
    """The parser kept for the process; each parse's list values are its own copies."""

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        parsed, rest = super().parse_known_args(args, namespace)
        for name, value in vars(parsed).items():
            if isinstance(value, list):
                setattr(parsed, name, [*value])
        return parsed, rest


def _parser() -> argparse.ArgumentParser:
    """The parser, built once per process and $USER."""
    return _built_parser(os.environ.get("USER", "reviewer"))


@lru_cache(maxsize=4)
def _built_parser(user: str) -> argparse.ArgumentParser:
    p = _KeptParser(prog="hitflow", description="Crowdsourcing campaigns for image descriptions or on your own "
                          "task page: pages, batches, QC, blocking, datasets; on the built-in simulator unless told "
                          "otherwise. `hitflow COMMAND --help` for each command.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run or resume a campaign to the end (simulator by default)")
    run.add_argument("config", help="the campaign or study TOML file (config/*.toml)")
    run.add_argument("--target", default="sim", help="sim (default) or mturk with --endpoint-url")
    run.add_argument("--endpoint-url", default="", type=arg.http_url,
                     help="an MTurk-compatible endpoint, or a running simulator")
    run.add_argument("--live", action="store_true", help="confirm a target that may spend real money")
    run.add_argument("--db", default=arg.DEFAULT_DB, type=arg.ledger, help=DB_HELP)
    run.add_argument("--sim-state", default=None, type=arg.writable_file,
                     help="the in-process simulator's marketplace file (default: sim/marketplace-seed<seed>.db next to "
                          "the ledger, shared by the folder's campaigns); it persists, so status, reconcile, "
                          "cancel and a resumed run see it")
    run.add_argument("--out", default=None, type=arg.output_root, help=OUT_HELP)
    run.add_argument("--limit", type=arg.positive, help="use only the first N items")
    run.add_argument("--scale", type=arg.scale, default=1,
                     help=f"K x the items, copies as new images, 1-{arg.MAX_SCALE} (load tests)")
    run.add_argument("--seed", type=arg.non_negative, default=1, help="simulator seed")
    run.add_argument("--crowd", help="simulator crowd file (config/crowds/*.toml)")
    run.add_argument("--no-prefect", action="store_true", help="run the steps without Prefect")
    run.add_argument("--platform", choices=PLATFORMS, default=DEFAULT_PLATFORM,
                     help="mturk: HITs (MTurk API); prolific: one study per batch served by hitflow's task server; "
                          "links: invite links to hitflow's task server (invited annotators, volunteers)")
    run.add_argument("--task-url", default="", type=arg.http_url,
                     help="public base URL of a running `hitflow serve` (Prolific); "
                          "default: a task server started for the run on 127.0.0.1")
    run.add_argument("--invite", action="append", default=[], metavar="NAME", type=arg.name,
                     help="links: an invitee's name (repeatable); their links go to OUT/<study>/invites.csv")
    run.add_argument("--detach", choices=("live", "always", "never"), default="",
                     help="leave an open batch and exit 9 until it is full or its time is up: on live routes "
                          "(default, [timing] detach), always (rehearsals on the simulator), or never")
    run.add_argument("--release-hold", choices=("approve", "rules"), default="",
                     help="a batch held for review (one rule on most of its workers): approve its work despite "
                          "that rule, or decide it by the rules as they stand")
    run.add_argument("--dry-run", action="store_true",
                     help="render and check every page, estimate the cost, list the calls; send nothing")
    run.add_argument("--new-attempt", action="store_true",
                     help="run the config as a new campaign NAME-attempt-N (own ledger rows and outputs), e.g. on "
                          "another platform after NAME ran; resumes the newest attempt while it is unfinished")
    run.add_argument("--resume-cancelled", action="store_true",
                     help="post the remaining batches of a campaign `hitflow cancel` stopped")
    run.add_argument("--replace-outputs", action="store_true",
                     help="write into OUT/<campaign>/ even though another ledger's run made it")
    new = sub.add_parser("new", help="start a campaign on your own task page: config, template, items")
    new.add_argument("name", type=arg.name, help="campaign name: config/NAME.toml, runs/NAME/")
    new.add_argument("--dir", default=".", type=arg.writable_dir, help="project folder the config/ folder is in")
    new.add_argument("--from", dest="page", default=None, help="import this page as it is: HTML with ${column} "
                     "(MTurk), Liquid (Ground Truth) or Jinja, an HTMLQuestion/ExternalQuestion/QuestionForm XML")
    new.add_argument("--allow-address", action="append", default=[], metavar="NET",
                     help="an ExternalQuestion's page may be fetched from this private, loopback or link-local "
                          "address or network (e.g. 127.0.0.1, 10.0.0.0/8); by default only public ones are")
    new.add_argument("--answer-key", default=None, help="with a QuestionForm: its AnswerKey XML (scores.csv)")
    new.add_argument("--items", default=None, metavar="CSV",
                     help="your items file (item_id and the columns the page reads), copied to config/NAME_items.csv: "
                          "the budget is sized to its rows, not to a sample row")
    new.add_argument("--keep-jinja", action="store_true",
                     help="the page's own Jinja ({{ ... }}, {%% ... %%}) runs, in the bounded sandbox; by default a "
                          "page from elsewhere keeps it as text")
    preview = sub.add_parser("preview", help="write the first page a worker would get to a file, to open in a "
                             "browser")
    preview.add_argument("config", help="the campaign TOML file (config/*.toml)")
    preview.add_argument("--page", type=arg.whole_number(1), default=1,
                         help="which page: 1 is batch 1's first (default 1)")
    preview.add_argument("--out", default=None, type=arg.writable_file,
                         help="the HTML file to write (default OUT/NAME/preview.html, OUT being runs/ or the "
                              "config's [target] out)")
    sim = sub.add_parser("sim", help="the simulated marketplace")
    sim_sub = sim.add_subparsers(dest="sim_command", required=True)
    serve = sim_sub.add_parser("serve", help="serve the MTurk simulator over HTTP")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=arg.port, default=8765, help="port to listen on (default 8765)")
    serve.add_argument("--seed", type=arg.non_negative, default=None, help="crowd seed (default 1, or the --state "
                                                                           "file's)")
    serve.add_argument("--state", type=arg.writable_file,
                       help="SQLite file the marketplace is kept in; a restart continues from it")
    serve.add_argument("--crowd", help="crowd file (config/crowds/*.toml; default the VizWiz demo crowd)")
    serve.add_argument("--start", type=arg.utc_time, default=None,
                       help="the virtual clock's start, e.g. 2026-01-05T00:00:00Z (default: now); a --state file "
                            "keeps its own clock")
    serve.add_argument("--speed", type=arg.non_negative_number, default=1.0,
                       help="virtual seconds a real second between runs (1: as a platform; 0: POST /_sim/clock only)")
    serve.add_argument("--arrival-mean-s", type=arg.non_negative_number, default=0.0,
                       help="Prolific participants arrive one by one, this many virtual seconds apart on average "
                            "(0: every place at once); with --speed they come while no run is calling")
    for flag, kind, text in SIM_FAULTS_AND_PACING:
        serve.add_argument(flag, type=kind, default=0.0, help=text)
    serve.add_argument("--log-requests", action="store_true", help="log every request on stderr (default: quiet)")
    task = sub.add_parser("serve", help="serve campaigns' task pages (Prolific, invite links, ExternalQuestion)")
    task.add_argument("--campaign", action="append", required=True, help="a campaign config (repeatable)")
    task.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 for a public server)")
    task.add_argument("--port", type=arg.port, default=8080, help="port to listen on (default 8080)")
    task.add_argument("--db", default=arg.DEFAULT_DB, type=arg.ledger, help=DB_HELP)
    task.add_argument("--invite", action="append", default=[], metavar="NAME", type=arg.name,
                      help="print an invite link for NAME (self-hosted annotators), then serve")
    task.add_argument("--public-url", default="", type=arg.http_url,
                      help="the address people reach this server at (https://tasks.example.org behind a proxy)")
    task.add_argument("--trusted-proxy", action="append", default=[], metavar="IP",
                      help="honour X-Forwarded-For/-Proto only from this reverse proxy (repeatable; default: none)")
    status = sub.add_parser("status", help="where each campaign and batch stands")
    status.add_argument("campaign", nargs="?", type=arg.campaign,
                        help="a campaign's name or config file (default: every campaign in the ledger)")
    status.add_argument("--db", default=arg.DEFAULT_DB, help=DB_HELP)
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.add_argument("--refresh", action="store_true",
                        help="first ask the platform (or the embedded simulator's file) for every assignment's state")
    status.add_argument("--live", action="store_true", help="with --refresh: confirm a non-simulator endpoint")
    for name, text in (("reconcile", "square the ledger with the platform; never creates anything"),
                       ("cancel", "expire open HITs, review what came in, delete finished HITs")):
        op = _stored_campaign_parser(sub, name, text)
        op.add_argument("--dry-run", action="store_true", help="read the platform and report; change nothing")
        if name == "cancel":
            op.add_argument("--out", default=None, type=arg.output_root,
                            help="the partial dataset and report go to OUT/<campaign name>/, a folder or an fsspec "
                                 "URL (default: the run's)")
    review = _stored_campaign_parser(sub, "review", "open the review page: sampled and flagged work, for a person")
    review.add_argument("--reviewer", default=user,
                        help="your name, recorded with each decision (default $USER)")
    review.add_argument("--port", type=arg.port, default=0, help="port on 127.0.0.1 (default: any free one)")
    ui = sub.add_parser("ui", help="open the campaign overview page: every campaign's batches, spend, review items "
                                   "and reports, with each review queue, refreshing while runs go")
    ui.add_argument("--db", default=arg.DEFAULT_DB, help=DB_HELP)
    ui.add_argument("--reviewer", default=user,
                    help="your name, recorded with each decision made in a review queue (default $USER)")
    ui.add_argument("--out", default=None, type=arg.output_root,
                    help="where the runs wrote their outputs (OUT/<campaign name>/report.html): a folder or an "
                         "fsspec URL (default $HITFLOW_OUT or runs)")
    ui.add_argument("--port", type=arg.port, default=0, help="port on 127.0.0.1 (default: any free one)")
    sched = _schedule_parser(sub, "serve-schedules", "serve the next-batch flow on the campaign's [schedule]",
                             "a running simulator or endpoint (default: one in-process)")
    sched.add_argument("--platform", choices=PLATFORMS, default=DEFAULT_PLATFORM,
                       help="where each run publishes (default mturk)")
    sched.add_argument("--task-url", default="", type=arg.http_url, help="the running `hitflow serve` (live routes)")
    sched.add_argument("--detach", choices=("live", "always", "never"), default="",
                       help="each run looks at an open batch and leaves (default on live routes)")
    dep = _schedule_parser(sub, "deploy", "register the next-batch deployment with the Prefect server in use",
                           "a simulator or endpoint that outlives each run (needed with --target sim)")
    dep.add_argument("--pool", default="hitflow-local", help="process work pool (created if missing)")
    dep.add_argument("--platform", choices=PLATFORMS, default=DEFAULT_PLATFORM,
                     help="where each scheduled run publishes (default mturk)")
    dep.add_argument("--task-url", default="", type=arg.http_url, help="the running `hitflow serve` (live routes)")
    dep.add_argument("--whole", action="store_true",
                     help="the whole campaign as one run, started on demand (default: one batch per scheduled run)")
    qc = add_qc_parser(sub)
    qualify = sub.add_parser("qualify", help="qualification tests")
    qualify_sub = qualify.add_subparsers(dest="qualify_command", required=True)
    score = qualify_sub.add_parser("score", help="score worker_id,item_id,answer rows against the answer key")
    score.add_argument("answers", help="CSV of worker_id,item_id,answer rows")
    score.add_argument("--out", required=True, type=arg.writable_file,
                       help="scores CSV to write (problems go beside it)")
    score.add_argument("--key", help="answer key CSV (default: the Flickr8k key in config/qualification/)")
    score.add_argument("--threshold", type=arg.percent, default=80.0, help="percent needed to pass")
    spell = sub.add_parser("spellcheck", help="spell-correct a CSV's caption column")
    spell.add_argument("input", help="CSV with a caption column")
    spell.add_argument("--out", required=True, type=arg.writable_file, help="the corrected CSV to write")
    spell.add_argument("--min-workers", type=arg.positive, default=3,
                       help="keep a word this many workers used")
    _analyze_parser(sub)
    add_aggregate_parser(sub)
    add_verify_parser(sub)
    for command in (run, task, status, qc, serve, *(sub.choices[n] for n in ("reconcile", "cancel", "review",
                                                                       "serve-schedules", "deploy"))):
        command.add_argument("--allow-outside-paths", action="store_true", help=OUTSIDE_HELP)
    add_examples_and_exit_codes(p)
    return p


def refuse_unused_options(args: argparse.Namespace) -> None:
    """An option the chosen route never reads is refused, not dropped."""
    if args.command != "run" or not args.invite:
        return
    from flows.platforms.registry import platform_for  # here, not at the top: `hitflow --help` stays instant

    if not platform_for(args.platform).INVITES_PEOPLE:
        raise ConfigError(f"--invite is for invite links (--platform links), not --platform {args.platform}: add "
                          "--platform links to invite people, or leave --invite out")


def outside_paths_flag(args: argparse.Namespace) -> None:
    """--allow-outside-paths, through the environment: the flows a command starts load the config too."""
    if getattr(args, "allow_outside_paths", False):
        os.environ["HITFLOW_ALLOW_OUTSIDE_PATHS"] = "1"


OUTSIDE_HELP = ("let the config name files outside its own folder (template, items, crowd, qualification files); "
                "off by default so a config from elsewhere cannot serve or post your other files")


def _stored_campaign_parser(sub: argparse._SubParsersAction, name: str,  # type: ignore[type-arg]
                            text: str) -> argparse.ArgumentParser:
    """A command on a campaign in the ledger, reopened against the endpoint it ran on."""
    op: argparse.ArgumentParser = sub.add_parser(name, help=text)
    op.add_argument("campaign", type=arg.campaign,
                    help="the campaign's name or config file (`hitflow status` lists them)")
    op.add_argument("--db", default=arg.DEFAULT_DB, help=DB_HELP)
    op.add_argument("--endpoint-url", default="", type=arg.http_url,
                    help="override the endpoint the campaign ran against")
    op.add_argument("--live", action="store_true", help="confirm a target that may spend real money")
    return op


def _schedule_parser(sub: argparse._SubParsersAction, name: str, text: str,  # type: ignore[type-arg]
                     endpoint_help: str) -> argparse.ArgumentParser:
    """A command that runs a campaign's next batch on its [schedule] (deploy needs a lasting endpoint)."""
    op: argparse.ArgumentParser = sub.add_parser(name, help=text)
    op.add_argument("config", help="the campaign TOML file with a [schedule]")
    op.add_argument("--endpoint-url", default="", type=arg.http_url, help=endpoint_help)
    op.add_argument("--db", default=arg.DEFAULT_DB, type=arg.ledger, help=DB_HELP)
    op.add_argument("--out", default=None, type=arg.output_root, help=OUT_HELP)
    op.add_argument("--target", default="sim", help="sim (default), prolific (with --live) or mturk")
    op.add_argument("--live", action="store_true", help="confirm a target that may spend real money (each run "
                                                         "still checks the budget)")
    return op


# flows.studies.analysis.KINDS, spelled here so `--help` does not import pandas and scipy (a test keeps them equal)
ANALYZE_KINDS = ("agreement", "severity", "errors", "pairwise", "ratings", "screening")
ANALYZE_HELP = """kinds and the CSV columns each reads:
  agreement  item_id, worker_id, label                       (--level nominal|ordinal|interval)
  severity   participant_id, condition, score                (repeated-measures ANOVA + paired t-tests)
  errors     item_id, worker_id, congruent, categories       (categories separated by |)
  pairwise   item_id, worker_id, dimension, system_a, system_b, answer [, flipped]
  ratings    item_id, worker_id, label                       (expert 1-4 scores or crowd 0/1 selections)
  screening  participant_id, minutes, slider_zero [, passed_qualification, continued]
published files: --reader flickr8k-expert|flickr8k-crowd|errors-2017|kreiss-2022"""


def _analyze_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    an = sub.add_parser("analyze", help="statistics of a human-evaluation CSV, as JSON on stdout",
                        epilog=ANALYZE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    an.add_argument("kind", choices=ANALYZE_KINDS, help="which statistics (see below)")
    an.add_argument("input", help="the CSV (or published file with --reader) to read")
    an.add_argument("--level", choices=("nominal", "ordinal", "interval"), default="nominal",
                    help="Krippendorff's alpha level (agreement; ratings default to ordinal)")
    an.add_argument("--reader", default="", help="read a published file instead of a plain CSV")
    an.add_argument("--min-minutes", type=arg.non_negative_number, default=18.0,
                    help="screening: shortest session kept")
