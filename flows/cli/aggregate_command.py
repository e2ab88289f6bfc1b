"""``hitflow aggregate``: its options and its wiring (the work is in flows/answers/answers_files.py)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from flows.cli import args as arg
from flows.core.errors import ConfigError

if TYPE_CHECKING:
    from postprocess.answers.label_hygiene import HygienePolicy
    from postprocess.answers.skill_prior import SkillPrior

# postprocess.answers' CHOICES and REPEATS (a test keeps them equal), without loading pandas here
METHODS = ("auto", "mv", "ds", "glad", "mace", "one-coin", "skill")
REPEATS = ("last", "first", "majority", "refuse")
HELP = """methods: mv majority vote; ds Dawid-Skene; glad GLAD; mace MACE; one-coin one accuracy per worker;
skill Dawid-Skene with a prior on every worker's skill (--skill-prior, --skill-prior-weight, --crowd-prior-weight,
--typical-prior-weight);
auto (default): per field, majority vote or Dawid-Skene, whichever predicts held-out labels better (5 folds;
majority vote without a test below --min-per-worker labels a worker on average), or worker-coin (one accuracy a
worker, shrunk toward the crowd's) where it predicts them two standard errors better; method_choice says why.
the printed summary's hygiene counts blank labels, labels respelled (--fold-case), repeated worker-item labels
(--repeats) and blocked workers left out (--keep-blocked); past 2 s a progress line shows on the terminal.
answers.csv: item_id, field, label, confidence, method, judgements, posterior, confidence_source, note (with
--ticks an option column, with --numbers low, high, coverage: the median's order-statistic interval; free text
is never aggregated)
(confidence: the skill posterior's, bounded by the judgements, calibrated on --controls where their
cross-validation finds it better: calibration_fit; without controls moved down toward the field's mean vote share
and said unchecked, the summary's controls_to_check how many would check it; posterior: the method's own; note: tie, or
below 0.5 once calibrated); with --gold the summary
prints accuracy over the items whose gold cell is filled in, ECE (6 and 15 equal-width bins, equal-mass bins), the
worst bin and the reliability tables
workers.csv (beside it, named after --out: answers-x.csv -> workers-x.csv, mine.csv -> mine-workers.csv):
worker_id, skill, items, agreement, control_accuracy, controls; with --controls also the
pooled control rule's pooled_accuracy, pooled_p_above, pooled_evidence, pooled_controls, pooled_controls_right,
pooled_pages, pooled_labels, pooled_agreement, pooled_status, pooled_note (a `page` column groups a page's labels;
docs/reference/outputs.md); with --numbers F bias_F, offset_F, numbers_F (each worker's shrunk mean offset)"""


def add_aggregate_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    ag = sub.add_parser("aggregate", help="one answer per item from several workers' labels, with its confidence",
                        epilog=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    ag.add_argument("input", help="CSV or TSV of item_id, worker_id, label [, field] rows; or a campaign's "
                                  "dataset.csv, or its name with --db: the campaign's own answers (its exclusions "
                                  "and [answers] settings kept)")
    ag.add_argument("--field", action="append", default=[], metavar="NAME",
                    help="only this field's answers (repeatable; default: every field)")
    ag.add_argument("--db", default=None, type=arg.ledger,
                    help="the ledger holding the campaign named as INPUT (default: the ledger file on this machine its "
                         "output folder's manifest records; a manifest never makes hitflow connect to a server)")
    ag.add_argument("--out", required=True, type=arg.writable_file,
                    help="answers CSV to write (its workers file goes beside it, named after it: see below)")
    ag.add_argument("--method", choices=METHODS, default="auto", help="how to aggregate (see below)")
    ag.add_argument("--min-per-worker", type=arg.non_negative_number, default=3.0,
                    help="auto: labels per worker on average below which majority vote is used without testing "
                         "Dawid-Skene")
    ag.add_argument("--columns", default="", metavar="ITEM,WORKER,LABEL",
                    help="the file's own names for the item, worker and label columns")
    ag.add_argument("--gold", default="", metavar="COLUMN", help="a column of known answers: report accuracy")
    hy = ag.add_argument_group("label hygiene", "counted in the summary's `hygiene` (docs/reference/outputs.md)")
    hy.add_argument("--repeats", choices=REPEATS, default="last",
                    help="a worker's repeated label of an item and field: keep the last, the first, their most "
                         "given (majority), or refuse the file")
    hy.add_argument("--fold-case", action=argparse.BooleanOptionalAction, default=True,
                    help="labels equal but for letter case and blanks are one label (the most common spelling)")
    hy.add_argument("--force-free-text", action="store_true",
                    help="aggregate a field that looks like free text (more than 10 distinct labels and at least "
                         "one for every two items), which is refused otherwise")
    hy.add_argument("--keep-blocked", action="store_true",
                    help="keep the labels of the workers in a blocked_workers.csv beside the input (a campaign's "
                         "outputs), which are left out otherwise")
    ag.add_argument("--numbers", action="append", default=[], metavar="NAME",
                    help="read this field's labels as numbers (a slider, a number box): per item the median and its "
                         "interval, per worker a bias (repeatable; a campaign's dataset.csv knows its own kinds)")
    ag.add_argument("--ticks", action="append", default=[], metavar="NAME",
                    help="read this field's labels as a checkbox group's |-joined ticks: per option yes or no, with "
                         "its confidence (repeatable)")
    ag.add_argument("--controls", default="", metavar="FILE",
                    help="CSV of control items (item_id, answer [, field]): scored per worker, alone and pooled with "
                         "agreement, kept out of the answers")
    ad = ag.add_argument_group("adaptive replay", "--adaptive: replay the file as if each item's judgements "
                               "arrived one at a time, taking the next only while the item is uncertain")
    ad.add_argument("--adaptive", action="store_true", help="replay with the stopping rule below")
    ad.add_argument("--min-judgements", type=int, default=2,
                    help="judgements every item gets first (default %(default)s), whatever --budget")
    ad.add_argument("--max-judgements", type=int, default=None, help="at most this many per item (default: all)")
    ad.add_argument("--confidence", type=float, default=0.99, help="stop once the answer's confidence reaches this")
    ad.add_argument("--lead", type=int, default=None, help="or once the leading label is this many votes ahead")
    ad.add_argument("--budget", type=float, default=0.5,
                    help="use at most this share of the file's labels (default %(default)s), the largest expected "
                         "gain per label first; raised where it cannot pay --min-judgements for every item; the "
                         "summary's budget says what it allowed, spent and cut; 1: no budget")
    ad.add_argument("--budget-confidence", type=float, default=0.999,
                    help="once every answer reaches --confidence, what is left of --budget serves this confidence")
    ad.add_argument("--skill-prior", type=float, default=0.7,
                    help="the confidence weighs each worker by skill: the accuracy assumed before their labels say")
    ad.add_argument("--skill-prior-weight", type=float, default=4.0,
                    help="how many labels --skill-prior is worth against a worker's own record")
    ad.add_argument("--crowd-prior-weight", type=float, default=0.0,
                    help="above 0: a worker not yet seen is assumed as accurate as the crowd so far (a one-coin fit "
                         "to the labels used), --skill-prior counting as this many labels against it")
    ad.add_argument("--typical-prior-weight", type=float, default=0.0,
                    help="above 0: a worker whose labels so far fit the crowd's typical worker (as accurate as the "
                         "median worker) is shrunk toward them, worth this many labels per true label (12 suits "
                         "crowds that build records); spammers and adversaries keep --skill-prior alone")
    ad.add_argument("--stop-when-settled", action=argparse.BooleanOptionalAction, default=True,
                    help="also stop an item once the labels it may still take could at best tie its answer "
                         "(they would buy nothing); --no-stop-when-settled: the rule before")
    ad.add_argument("--seconds", default="", metavar="COLUMN",
                    help="the file's column of each label's work time in seconds (MTurk's WorkTimeInSeconds)")
    ad.add_argument("--fast-share", type=float, default=0.0,
                    help="with --seconds: a worker whose median time is under this share of the crowd's is weighed "
                         "as one of the fast workers so far, as a campaign's [answers] fast_share does")
    ad.add_argument("--sweep", default="", metavar="C1,C2,...",
                    help="also replay at each of these confidences: the share of labels used, how often the answer "
                         "is the one all labels give, and accuracy against --gold, to pick a confidence")


def cmd_aggregate(a: argparse.Namespace) -> int:
    from flows.cli.process_life import loaded_then_frozen

    # pandas, pyarrow and the answer models loaded with the collector spared
    with loaded_then_frozen(thaw=not getattr(a, "program", False)) as loaded:
        import flows.answers.answers_files  # noqa: F401
        loaded()
        return _aggregate(a)


def _aggregate(a: argparse.Namespace) -> int:
    from pathlib import Path

    from flows.answers.answers_files import aggregate_file
    from flows.cli.aggregate_campaign import aggregate_campaign, campaign_named
    from flows.cli.aggregate_paths import refuse_overwriting_inputs, summary_json

    refuse_overwriting_inputs(a)
    if (campaign := campaign_named(a)) is not None:
        print(summary_json(aggregate_campaign(a, *campaign)))
        return 0

    columns = tuple(c.strip() for c in a.columns.split(",")) if a.columns else None
    if columns is not None and (len(columns) != 3 or not all(columns)):
        raise ConfigError(f"--columns {a.columns!r}: give three names, ITEM,WORKER,LABEL")
    if a.numbers or a.ticks:
        return _kinds(a, columns)  # type: ignore[arg-type]
    if a.adaptive:
        return _replay(a, columns)  # type: ignore[arg-type]
    for given, option in ((a.sweep, "--sweep"), (a.seconds, "--seconds"), (a.fast_share, "--fast-share")):
        if given:  # they change only the replay: ignored, the sweep asked for would silently be missing
            raise ConfigError(f"{option} needs --adaptive: it changes only the adaptive replay")
    for weight, option in ((a.crowd_prior_weight, "--crowd-prior-weight"), (a.typical_prior_weight,
                                                                          "--typical-prior-weight")):
        if weight and a.method != "skill":  # the skill prior weighs only the replay's and method skill's model
            raise ConfigError(f"{option} needs --adaptive or --method skill: it changes only their skill model")
    prior = _skill_prior(a)
    try:
        prior.check()
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    with _progress() as stage:
        result = aggregate_file(Path(a.input), Path(a.out), a.method, a.min_per_worker,
                                columns, a.gold, Path(a.controls) if a.controls else None,  # type: ignore[arg-type]
                                prior, _hygiene(a), a.keep_blocked, stage, tuple(a.field))
    _say_unread(a.input, result)
    print(summary_json(result))
    return 0


def _kinds(a: argparse.Namespace, columns: tuple[str, str, str] | None) -> int:
    """--numbers, --ticks: a labels file with sliders, numbers or checkbox groups (flows/answers/kinded_files.py)."""
    import json
    from pathlib import Path

    from flows.answers.kinded_files import aggregate_kinds

    for given, option in ((a.gold, "--gold"), (a.controls, "--controls"), (a.adaptive, "--adaptive")):
        if given:
            raise ConfigError(f"{option} is not read with --numbers or --ticks: aggregate the choice fields alone "
                              "(--field) for it")
    with _progress():
        result = aggregate_kinds(Path(a.input), Path(a.out), tuple(a.numbers), tuple(a.ticks), a.method,
                                 a.min_per_worker, columns, _hygiene(a), a.keep_blocked, tuple(a.field))
    _say_unread(a.input, result)
    print(json.dumps(result, indent=1, allow_nan=False))
    return 0


def _say_blocked(path: str, result: dict[str, Any]) -> None:
    """One line on stderr on the blocked workers' labels the summary's hygiene counts."""
    import sys

    tidied = result.get("hygiene") or {}
    left = tidied.get("blocked_labels_left_out", 0) + tidied.get("blocked_number_or_tick_answers_left_out", 0)
    if tidied.get("blocked_workers_left_out") or left:
        print(f"hitflow: {left} label(s) of the {tidied.get('blocked_workers_left_out', 0)} blocked worker(s) in "
              f"{tidied.get('blocked_file')} left out (--keep-blocked keeps them)", file=sys.stderr)
    elif tidied.get("no_blocked_file"):
        print(f"hitflow: {tidied['no_blocked_file']}", file=sys.stderr)


def _say_unread(path: str, result: dict[str, Any]) -> None:
    """One line per row of the labels file that could not be read (in the summary's unread_rows), and a count."""
    import sys

    _say_blocked(path, result)
    unread = result.get("unread_rows") or []
    for row in unread:
        print(f"{path}:{row['line']}: {row['reason']}", file=sys.stderr)
    if unread:
        print(f"hitflow: {len(unread)} row(s) could not be read and were left out (unread_rows in the summary); the "
              "other rows were aggregated", file=sys.stderr)


@contextmanager
def _progress(stage: str = "working") -> Iterator[Callable[[str], None]]:
    """A progress line on stderr once the command has run 2 s, told each stage and EM iteration."""
    from flows.cli.progress_line import ProgressLine
    from postprocess.answers import em_progress

    with ProgressLine("hitflow aggregate", stage) as line:
        token = em_progress.PROGRESS.set(line.stage)
        try:
            yield line.stage
        finally:
            em_progress.PROGRESS.reset(token)


def _hygiene(a: argparse.Namespace) -> HygienePolicy:
    from postprocess.answers.label_hygiene import HygienePolicy

    return HygienePolicy(a.repeats, a.fold_case, a.force_free_text)


def _skill_prior(a: argparse.Namespace) -> SkillPrior:
    """The skill prior options (--skill-prior and the three weights): the replay's and --method skill's."""
    from postprocess.answers.skill_prior import SkillPrior

    return SkillPrior(a.skill_prior, a.skill_prior_weight, a.crowd_prior_weight, a.typical_prior_weight)


def _replay(a: argparse.Namespace, columns: tuple[str, str, str] | None) -> int:
    from dataclasses import replace
    from pathlib import Path

    from flows.answers.answers_files import replay_file
    from flows.cli.aggregate_paths import summary_json
    from postprocess.answers.adaptive import StoppingRule

    rule = StoppingRule(a.min_judgements, a.max_judgements, a.confidence, a.lead, a.method, _skill_prior(a),
                        settled=a.stop_when_settled, fast_share=a.fast_share,
                        budget=None if a.budget == 1 else a.budget, budget_confidence=a.budget_confidence)
    try:
        rule.check()
        sweep = _sweep(a.sweep)
        for confidence in sweep:
            replace(rule, confidence=confidence).check()
    except ValueError as exc:
        raise ConfigError(f"--adaptive: {exc}") from exc
    if rule.fast_share > 0 and not a.seconds:
        raise ConfigError("--fast-share needs each label's work time: name its column with --seconds COLUMN")
    if a.seconds and rule.fast_share == 0:  # the times would be read and change nothing: say so
        raise ConfigError("--seconds is read only with --fast-share above 0 (e.g. --fast-share 0.5): "
                          "without it work times change nothing")
    with _progress("replaying the labels"):
        result = replay_file(Path(a.input), Path(a.out), rule, columns, a.gold, a.seconds, sweep, _hygiene(a),
                             a.keep_blocked, Path(a.controls) if a.controls else None)
    _say_unread(a.input, result)
    print(summary_json(result))
    return 0


def _sweep(text: str) -> tuple[float, ...]:
    """--sweep's confidences."""
    try:
        return tuple(dict.fromkeys(float(c) for c in text.split(",") if c.strip()))  # each once, in order
    except ValueError as exc:
        raise ConfigError(f"--sweep {text!r}: give confidences separated by commas, e.g. 0.9,0.93,0.95") from exc
