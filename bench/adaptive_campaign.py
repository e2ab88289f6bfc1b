"""Adaptive overlap on the simulator: the answers issue's 1,000-item classification campaign
(one three-way choice an item, 3 batches, the demo crowd plus consistently wrong workers) run twice on
MTurk-sim, once with a fixed 5 assignments an item and once adaptively ([answers] min_judgements,
max_judgements, confidence, skill_prior, skill_prior_weight, crowd_prior_weight (20 here: an unseen worker
is assumed as accurate as the crowd so far), fast_share (0.5 here: or as the fast workers so far, if their
median time is under half the crowd's), typical_prior_weight (12 on MTurk-sim, whose workers build records:
a record that fits the crowd's median worker is pulled toward them; 0 on Prolific-sim, where it cost
accuracy): more assignments only on items whose answer is still uncertain under the skill-aware posterior,
through CreateAdditionalAssignmentsForHIT).
Prints both accuracies against every item's latent answer (the simulator's latent_truth) and the ratio of assignments
and of cost. One item a HIT by default: an extension buys a whole HIT, so with three items a HIT one
uncertain item buys two judgements nobody needed.

The confidence is each route's operating point unless ``--confidence`` is given: 0.98 on MTurk-sim, whose
workers build records of about 95 judgements each; 0.93 on Prolific-sim, whose participants are strangers
(about 2.8 judgements each, right 78% of the time): there 0.95 was 1.1 points more accurate than fixed
overlap for 61.2% of its places (8 seeds), and no stopping policy of all matches majority vote of 5 over
such strangers for less than about 58% (``bench.adaptive_frontier``'s ``cheapest_match``).

``python -m bench.adaptive_campaign [--items 1000] [--seeds 9,...,16] [--jobs 2] [--route prolific]``
(``make bench-adaptive-campaign``) prints one JSON object and writes it to
``bench/results-adaptive-campaign.json`` (``--route prolific``: the same campaign on Prolific-sim, more
places on each batch's study steered by the task server, written to
``bench/results-adaptive-campaign-prolific.json``). ``summary``: the means over the seeds (per-seed cost moves
a point or two with any change of rule: one different extension sends different workers to different items
from then on), and on how many seeds the goal was met.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from bench.answers_accuracy import every_latent_answer, project
from flows.core.config.answers_config import AnswersSettings
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.platforms.unit_extensions import EXTENSION_OPS
from postprocess.answers.aggregation import aggregate
from postprocess.answers.calibration import against
from postprocess.answers.reliability import accuracy

RESULTS = Path(__file__).resolve().parent / "results-adaptive-campaign.json"
CONFIDENCE = {"mturk": 0.98, "prolific": 0.93}  # each route's operating point (the module's docstring)
# [answers] typical_prior_weight: MTurk-sim's workers build records the typical-worker prior can judge
TYPICAL_WEIGHT = {"mturk": 12.0, "prolific": 0.0}
GOAL_SHARE = 0.60
ISSUE_SHARE = 0.50  # at most half of fixed overlap's judgements, as accurate as its mv and its ds
# hitflow new's starter config (hit_templates/starter/campaign.toml) turns adaptive overlap on with these two; every
# other key is [answers]' default (flows/core/config/answers_config.py)
STARTER = {"min_judgements": 2, "max_judgements": 6}


def route_rule(route: str) -> dict[str, float | bool]:
    """The [answers] rule the bench runs on ``route`` unless told otherwise."""
    return {"min_judgements": 2, "max_judgements": 6, "confidence": CONFIDENCE[route], "skill_prior": 0.7,
            "skill_prior_weight": 4.0, "crowd_prior_weight": 20.0, "typical_prior_weight": TYPICAL_WEIGHT[route],
            "fast_share": 0.5, "stop_when_settled": True}


def default_rule() -> dict[str, float | bool]:
    """The [answers] rule a user gets from the starter config: its min and max, every other key at its default."""
    d = AnswersSettings()
    return {**STARTER, "confidence": d.confidence, "skill_prior": d.skill_prior,
            "skill_prior_weight": d.skill_prior_weight, "crowd_prior_weight": d.crowd_prior_weight,
            "typical_prior_weight": d.typical_prior_weight, "fast_share": d.fast_share,
            "stop_when_settled": d.stop_when_settled}


def summary_line(run: dict[str, Any]) -> str:
    """One run's goal in a line: both accuracies and the share of fixed overlap's assignments."""
    return (f"adaptive overlap on {run['route']}-sim, seed {run['seed']}, confidence {run['rule']['confidence']}: "
            f"fixed {run['fixed']['accuracy']:.1%}, adaptive {run['adaptive']['accuracy']:.1%} with "
            f"{run['assignment_ratio']:.1%} of the assignments ({'met' if run['met'] else 'not met'}: {run['goal']})")
UNIT = ("images_per_hit = 10", "images_per_hit = {per_hit}")  # an extension buys one more judgement of a HIT's items
REWARD = ('reward_usd = "0.20"', 'reward_usd = "{reward}"')


# Prolific: a place pays 0.10 GBP an item for about a minute's work (above Prolific's hourly floor)
PROLIFIC = '[prolific]\nreward = "{reward}"\ncurrency = "GBP"\nestimated_minutes = 1\nmaximum_minutes = 10\n\n'
# Work Prolific stored but settled unpaid (returned, timed out, screened out, or a session it never reported):
# its place went to someone else, so it is not an assignment the campaign paid for
UNPAID = ("RETURNED", "TIMED-OUT", "SCREENED OUT", "NOT ON PROLIFIC")


def write_config(folder: Path, items: int, adversaries: int, per_hit: int, answers: str, route: str = "mturk",
                 seed: int = 1) -> Path:
    """The campaign's config (and its crowd and items) in ``folder``; ``answers``: lines of its [answers] table."""
    config = project(folder, items, adversaries, share=0.0)  # the adaptive keys join the bench's [answers] table
    text = re.sub(r"(?m)^seed = \d+$", f"seed = {seed}", config.read_text())  # the review sample's
    text = text.replace(UNIT[0], UNIT[1].format(per_hit=per_hit))
    text = text.replace(REWARD[0], REWARD[1].format(reward=f"{0.02 * per_hit:.2f}"))
    if route == "prolific":
        text = text.replace('budget = "100000.00 USD"', 'budget = "100000.00 GBP"').replace(
            "[target]", PROLIFIC.format(reward=f"{0.10 * per_hit:.2f}") + "[target]")
    config.write_text(text.replace("[answers]\n", "[answers]\n" + answers, 1), encoding="utf-8")
    return config


def campaign(folder: Path, items: int, adversaries: int, per_hit: int, answers: str, route: str = "mturk",
             seed: int = 1) -> dict[str, object]:
    config = write_config(folder, items, adversaries, per_hit, answers, route, seed)
    start = time.process_time()
    # the simulator's seed: another crowd (skills, habits) and another market
    summary = run_campaign(config, db_path=folder / "h.db", out_root=folder / "runs", platform=route,
                           progress=lambda _: None, seed=seed)
    out = folder / "runs" / "sentiment"
    truth = every_latent_answer(folder)
    answers_csv = pd.read_csv(out / "answers.csv", dtype=str, keep_default_na=False)
    store = Store(folder / "h.db")
    assignments = store.table("assignments").count_where(f"batch > 0 AND status NOT IN ({','.join('?' * len(UNPAID))})",
                                                         list(UNPAID))
    extensions = store.table("ledger").count_where(f"operation IN ({','.join('?' * len(EXTENSION_OPS))})",
                                                   list(EXTENSION_OPS))
    return {"assignments": assignments, "extensions": extensions, "accuracy": round(accuracy(answers_csv, truth), 4),
            **each_method(out, truth), "ece": against(answers_csv, truth)["ece"],
            "methods": sorted(set(answers_csv["method"])), "campaign_cpu_s": round(time.process_time() - start, 1),
            "saving": summary.get("adaptive") or {}}


def each_method(out: Path, truth: pd.DataFrame) -> dict[str, float]:
    """Majority vote's and Dawid-Skene's accuracy on the campaign's labels as answers.csv takes them (not
    rejected, blocked workers' left out): adaptive overlap must reach at least both of fixed
    overlap's."""
    data = pd.read_csv(out / "dataset.csv", dtype=str, keep_default_na=False)
    blocked = set(pd.read_csv(out / "blocked_workers.csv", dtype=str)["worker_id"])
    keep = (data["decision"] != "reject") & (data["value"] != "") & ~data["worker_id"].isin(blocked)
    labels = data[keep].rename(columns={"value": "label"})[["item_id", "worker_id", "label", "field"]]
    return {f"accuracy_{m}": round(accuracy(aggregate(labels, m).answers, truth), 4) for m in ("mv", "ds")}


def measure(items: int, adversaries: int, per_hit: int, rule: dict[str, float | bool], method: str = "auto",
            route: str = "mturk", seed: int = 1) -> dict[str, object]:
    answers = f'method = "{method}"\n' + "\n".join(f"{k} = {str(v).lower() if isinstance(v, bool) else v}"
                                                   for k, v in rule.items()) + "\n"
    with tempfile.TemporaryDirectory() as fixed_dir, tempfile.TemporaryDirectory() as adaptive_dir:
        fixed = campaign(Path(fixed_dir), items, adversaries, per_hit, f'method = "{method}"\n', route, seed)
        adaptive = campaign(Path(adaptive_dir), items, adversaries, per_hit, answers, route, seed)
    ratio = round(int(adaptive["assignments"]) / int(fixed["assignments"]), 4)  # type: ignore[call-overload]
    return {"route": route, "items": items, "adversaries": adversaries, "items_per_hit": per_hit, "seed": seed,
            "rule": rule,
            "method": method,
            "fixed_overlap": 5, "fixed": fixed, "adaptive": adaptive, "assignment_ratio": ratio,
            "cost_ratio": ratio,  # one price an assignment (or place) in both runs: same reward, same fee
            "goal": f"adaptive accuracy >= fixed accuracy with assignment_ratio <= {GOAL_SHARE:.2f}",
            "met": adaptive["accuracy"] >= fixed["accuracy"] and ratio <= GOAL_SHARE,  # type: ignore[operator]
            "issue56_met": bool(ratio <= ISSUE_SHARE and adaptive["accuracy"] >= max(  # type: ignore[operator]
                fixed["accuracy_mv"], fixed["accuracy_ds"])),  # type: ignore[call-overload]
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def summary(runs: list[dict[str, Any]]) -> dict[str, object]:
    """Means over the seeds' runs, and the goal on those means."""
    def mean(key: str, side: str | None = None) -> float:
        return round(sum(float(r[side][key] if side else r[key]) for r in runs) / len(runs), 4)

    fixed, adaptive, ratio = mean("accuracy", "fixed"), mean("accuracy", "adaptive"), mean("assignment_ratio")
    return {"seeds": [r["seed"] for r in runs], "fixed_accuracy": fixed, "adaptive_accuracy": adaptive,
            "assignment_ratio": ratio, "met_on_average": adaptive >= fixed and ratio <= GOAL_SHARE,
            "seeds_met": sum(bool(r["met"]) for r in runs),
            "seeds_more_accurate": sum(r["adaptive"]["accuracy"] >= r["fixed"]["accuracy"] for r in runs),
            "seeds_issue56_met": sum(bool(r["issue56_met"]) for r in runs),
            "adaptive_ece": mean("ece", "adaptive")}


def rule_of(a: argparse.Namespace) -> dict[str, float | bool]:
    """The [answers] rule the flags give (the route's confidence unless --confidence); --defaults: the starter
    config's (:func:`default_rule`)."""
    if a.defaults:
        return default_rule()
    confidence = CONFIDENCE[a.route] if a.confidence is None else a.confidence
    typical = TYPICAL_WEIGHT[a.route] if a.typical_prior_weight is None else a.typical_prior_weight
    return {"min_judgements": a.min_judgements, "max_judgements": a.max_judgements, "confidence": confidence,
            "skill_prior": a.skill_prior, "skill_prior_weight": a.skill_prior_weight,
            "crowd_prior_weight": a.crowd_prior_weight, "typical_prior_weight": typical, "fast_share": a.fast_share,
            "stop_when_settled": a.stop_when_settled}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    rule0 = route_rule("mturk")
    p.add_argument("--items", type=int, default=1000)
    p.add_argument("--adversaries", type=int, default=4, help="consistently wrong workers added to the crowd")
    p.add_argument("--items-per-hit", type=int, default=1,
                   help="1: an extension buys one more judgement of one item (3 a HIT extends all three)")
    p.add_argument("--min", type=int, default=rule0["min_judgements"], dest="min_judgements")
    p.add_argument("--max", type=int, default=rule0["max_judgements"], dest="max_judgements")
    p.add_argument("--confidence", type=float, default=None,
                   help="default: the route's operating point (0.98 on mturk, 0.93 on prolific)")
    p.add_argument("--skill-prior", type=float, default=rule0["skill_prior"])
    p.add_argument("--skill-prior-weight", type=float, default=rule0["skill_prior_weight"])
    p.add_argument("--crowd-prior-weight", type=float, default=rule0["crowd_prior_weight"],
                   help="[answers] crowd_prior_weight: an unseen worker is assumed as accurate as the crowd so far")
    p.add_argument("--typical-prior-weight", type=float, default=None,
                   help="[answers] typical_prior_weight (default: the route's, 12 on mturk, 0 on prolific)")
    p.add_argument("--fast-share", type=float, default=rule0["fast_share"],
                   help="[answers] fast_share: a worker whose median time is below this share of the crowd's is "
                        "assumed as accurate as the fast workers so far (0: one crowd, the rule before)")
    p.add_argument("--stop-when-settled", action=argparse.BooleanOptionalAction, default=True,
                   help="[answers] stop_when_settled: an item stops once the judgements it may still get could at "
                        "best tie its answer (--no-stop-when-settled: the rule before)")
    p.add_argument("--seeds", default="9,10,11,12,13,14,15,16",
                   help="the simulator's seeds (each another crowd and market): one run each, read the summary; "
                        "by default those not used to choose each route's confidence (1-8 were)")
    p.add_argument("--jobs", type=lambda v: max(1, int(v)), default=2, help="seeds run side by side (at least 1)")
    p.add_argument("--method", default="auto", help="[answers] method of both runs (rounds and answers)")
    p.add_argument("--route", choices=["mturk", "prolific"], default="mturk",
                   help="the simulator's MTurk (more assignments on a HIT) or Prolific (more places on a study)")
    p.add_argument("--defaults", action="store_true",
                   help="the rule of hitflow new's starter config (min 2, max 6, every other [answers] key at its "
                        "default) instead of the route's operating point; the other rule flags are ignored")
    p.add_argument("--out", type=Path, default=None, help=f"default {RESULTS.name}, or its -prolific twin")
    a = p.parse_args()
    out = a.out or (RESULTS if a.route == "mturk" else RESULTS.with_name(f"{RESULTS.stem}-prolific.json"))
    try:
        seeds = [int(x) for x in a.seeds.split(",")]
    except ValueError:
        p.error(f"--seeds {a.seeds!r}: give whole numbers separated by commas, e.g. 9,10,11")
    with concurrent.futures.ProcessPoolExecutor(max_workers=a.jobs) as pool:  # each seed its own simulators
        rule = rule_of(a)
        runs = list(pool.map(measure, *zip(*[(a.items, a.adversaries, a.items_per_hit, rule, a.method, a.route, seed)
                                              for seed in seeds], strict=True)))
    result = json.dumps({"summary": summary(runs), "runs": runs}, indent=1)
    out.write_text(result + "\n", encoding="utf-8")
    print(result)


if __name__ == "__main__":
    main()
