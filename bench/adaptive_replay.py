"""Adaptive overlap replayed on real crowd labels with expert gold (issue 43, point 4).

For each set: majority vote at full overlap, then postprocess.adaptive.replay under a few stopping
rules (the skill-aware posterior the campaigns stop on, Dawid-Skene's own confidence, a plain lead of
votes); prints accuracy and the share of judgements used. Sets:

- Snow et al. 2008 WSD (177 items x 10, /work/shared/data/snow2008-wsd, its SOURCE.md);
- Snow et al. 2008 RTE (800 items x 10, binary), read from ``HITFLOW_RTE_LABELS`` (a long CSV
  ``item_id, worker_id, label, gold``; not in the repository: it is neither small nor CC BY/MIT) and
  skipped with the reason when absent.

Run: ``make bench-adaptive`` (writes bench/results-adaptive.json).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from postprocess.adaptive import StoppingRule, replay, saving
from postprocess.answers import aggregate

ROOT = Path(__file__).resolve().parents[1]
SHARED_WSD = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "snow2008-wsd" / "wsd.standardized.tsv"
WSD = Path(os.environ.get("HITFLOW_WSD_LABELS", str(SHARED_WSD)))
# ds_*: stop on Dawid-Skene's own confidence (the rule before issue 43's skill posterior, kept to compare);
# skill_*: stop on postprocess.skill_posterior (what campaigns and `hitflow aggregate --adaptive` use)
RULES = {"lead2": StoppingRule(3, lead=2, method="mv"),
         "ds_conf0.95": StoppingRule(3, confidence=0.95, method="ds", stop_on="method"),
         "ds_conf0.99": StoppingRule(3, confidence=0.99, method="ds", stop_on="method"),
         "ds_min2_conf0.95": StoppingRule(2, confidence=0.95, method="ds", stop_on="method"),
         "skill_min2_conf0.95": StoppingRule(2, confidence=0.95, method="ds"),
         "skill_min2_conf0.99": StoppingRule(2, confidence=0.99, method="ds"),
         "skill_conf0.95": StoppingRule(3, confidence=0.95, method="ds")}


def _wsd() -> pd.DataFrame | str:
    if not WSD.exists():
        return f"{WSD} absent"
    raw = pd.read_csv(WSD, sep="\t")
    return pd.DataFrame({"item_id": raw["orig_id"], "worker_id": raw["!amt_worker_ids"],
                         "label": raw["response"].astype(str), "gold": raw["gold"].astype(str)})


def _rte() -> pd.DataFrame | str:
    path = os.environ.get("HITFLOW_RTE_LABELS", "")
    if not path or not Path(path).exists():
        return "HITFLOW_RTE_LABELS unset or missing (long CSV item_id, worker_id, label, gold)"
    return pd.read_csv(path, dtype=str)


def evaluate(frame: pd.DataFrame) -> dict[str, object]:
    gold = frame.drop_duplicates("item_id").set_index("item_id")["gold"].astype(str)

    def accuracy(answers: pd.DataFrame) -> float:
        return round(float((answers["label"].to_numpy() == gold.reindex(answers["item_id"]).to_numpy()).mean()), 4)

    out: dict[str, object] = {"items": len(gold), "judgements": len(frame),
                              "mv_full_accuracy": accuracy(aggregate(frame, "mv").answers)}
    for name, rule in RULES.items():
        result = replay(frame, rule)
        out[name] = {"accuracy": accuracy(result.answers), **saving(result, frame)}
    return out


def main() -> None:
    results = {}
    for name, load in (("snow2008_wsd", _wsd), ("snow2008_rte", _rte)):
        frame = load()
        results[name] = {"skipped": frame} if isinstance(frame, str) else evaluate(frame)
    text = json.dumps(results, indent=1)
    print(text)
    (ROOT / "bench" / "results-adaptive.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
