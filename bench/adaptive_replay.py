"""Adaptive overlap replayed on real crowd labels with expert gold.

For each of Snow et al. 2008's sets (bench/snow_sets.py: WSD from the shared data, RTE and Temporal
from ``HITFLOW_RTE_LABELS`` / ``HITFLOW_TEMP_LABELS``, skipped with the reason when unset): majority
vote over all ten labels (hitflow's deterministic ties, and ties counted at random), then
postprocess.answers.adaptive.replay under a few stopping rules, with accuracy and the share of judgements
used. ``meets_goal``: accuracy at least both majority-vote figures with at most half the judgements.

Run: ``make bench-adaptive`` (writes bench/results-adaptive.json).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from bench.snow_sets import SETS, gold_of, majority_vote_ties_half, path_of, read_set
from postprocess.answers.adaptive import DEFAULT_RULE, StoppingRule, replay, saving
from postprocess.answers.aggregation import aggregate
from postprocess.answers.skill_posterior import SkillPrior

ROOT = Path(__file__).resolve().parents[1]
# ds_*: stop on Dawid-Skene's own confidence (the rule before overlap work's skill posterior, kept to compare);
# skill_* and cli_default: stop on postprocess.answers.skill_posterior (what campaigns and
# `hitflow aggregate --adaptive` use)
RULES = {"cli_default": DEFAULT_RULE,  # hitflow aggregate --adaptive (0.99 within half the judgements)
         "cli_default_without_budget": StoppingRule(2, confidence=0.99, method="auto"),
         "cli_default_before_66": StoppingRule(2, confidence=0.95, method="auto"),
         # [answers]' defaults with hitflow new's starter min and max
         "campaign_default": StoppingRule(2, 6, confidence=0.98, method="auto"),
         "cli_min3": StoppingRule(3, confidence=0.95, method="auto"),  # the replay's default before calibration work
         "lead2": StoppingRule(3, lead=2, method="mv"),
         "ds_conf0.95": StoppingRule(3, confidence=0.95, method="ds", stop_on="method"),
         "ds_conf0.99": StoppingRule(3, confidence=0.99, method="ds", stop_on="method"),
         "ds_min4_conf0.95": StoppingRule(4, confidence=0.95, method="ds", stop_on="method"),
         "ds_min5_conf0.95": StoppingRule(5, confidence=0.95, method="ds", stop_on="method"),
         "skill_min2_conf0.95": StoppingRule(2, confidence=0.95, method="ds"),
         "skill_min2_conf0.99": StoppingRule(2, confidence=0.99, method="ds"),
         "skill_min4_conf0.95": StoppingRule(4, confidence=0.95, method="ds"),
         # [answers] crowd_prior_weight 20: an unseen worker's prior accuracy is the crowd's so far
         "crowd_default": StoppingRule(3, confidence=0.95, method="auto", skill_prior=SkillPrior(crowd_weight=20)),
         "crowd_min2_conf0.95": StoppingRule(2, confidence=0.95, method="ds", skill_prior=SkillPrior(crowd_weight=20))}

def evaluate(frame: pd.DataFrame) -> dict[str, object]:
    gold = gold_of(frame)

    def accuracy(answers: pd.DataFrame) -> float:
        return round(float((answers["label"].to_numpy() == gold.reindex(answers["item_id"]).to_numpy()).mean()), 4)

    mv_full, mv_ties_half = accuracy(aggregate(frame, "mv").answers), round(majority_vote_ties_half(frame), 4)
    out: dict[str, object] = {"items": len(gold), "judgements": len(frame), "mv_full_accuracy": mv_full,
                              "mv_full_ties_half": mv_ties_half}
    for name, rule in RULES.items():
        result = replay(frame, rule)
        row = {"accuracy": accuracy(result.answers), **saving(result, frame)}
        row["meets_goal"] = bool(row["accuracy"] >= max(mv_full, mv_ties_half) and row["share_used"] <= 0.5)
        out[name] = row
    return out


def main() -> None:
    results: dict[str, object] = {}
    for snow in SETS:
        path = path_of(snow)
        results[f"snow2008_{snow.name}"] = (
            {"skipped": f"{snow.variable} unset or missing (Snow's TSV or item_id, worker_id, label, gold)"}
            if path is None else {"file": path.name, **evaluate(read_set(path))})
    text = json.dumps(results, indent=1)
    print(text)
    (ROOT / "bench" / "results-adaptive.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
