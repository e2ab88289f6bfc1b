"""Aggregated answers against majority vote on the simulator: a 1,000-item custom
classification campaign (one three-way choice an item, 3 batches, 5 workers an item) on the demo
crowd plus workers who are consistently wrong (``choices = "wrong"``); every method's accuracy
against every item's latent answer (the simulator's ``latent_truth``, :func:`every_latent_answer`).
Control items (``[answers] control_share``,
5% of every batch, their known answers the simulator's latent ones) block workers between batches,
alone, beside the agreement rule (``[answers] agreement_block_below``), and pooled with agreement in
one posterior of each worker's accuracy (``[answers] control_pooling``, the default): the share of
consistently-wrong workers blocked before the last batch, and of honest workers (profiles whose
choices follow their skill) blocked at all, each crowd at each seed and page size (10 and 20 items
a page: one control every other page and one on every page at 5%).

``python -m bench.answers_accuracy [--items 1000] [--crowds 4,20] [--seeds 1,2,3] [--pages 10,20]``
[--variants controls_only,controls_and_agreement,pooled]
(``make bench-answers``) writes ``bench/results-answers.json`` and prints the totals and one line per
run.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from flows.driver.campaign_run import run_campaign
from flows.sim.people.latent_choices import latent_truth
from postprocess.answers.aggregation import METHODS, aggregate
from postprocess.answers.reliability import accuracy

RESULTS = Path(__file__).resolve().parent / "results-answers.json"
CROWD = Path(__file__).resolve().parents[1] / "config" / "crowds" / "vizwiz_demo.toml"
PAGE = """{% extends "_custom_page.html.j2" %}
{% block item %}<p>{{ item.text }}</p>
<fieldset><legend>The review's sentiment</legend>
<label><input type="radio" name="sentiment_{{ i }}" value="negative" required> negative</label>
<label><input type="radio" name="sentiment_{{ i }}" value="neutral"> neutral</label>
<label><input type="radio" name="sentiment_{{ i }}" value="positive"> positive</label></fieldset>
{% endblock %}
"""
CONFIG = """[campaign]
name = "sentiment"
task = "custom"
template = "sentiment.html.j2"
items = "sentiment_items.csv"
title = "Sentiment of reviews"
description = "Read each review and say whether it is negative, neutral or positive."
images_per_hit = 10
assignments_per_image = 5
batches = 3
reward_usd = "0.20"
budget = "100000.00 USD"
seed = 1

[timing]
auto_approval_delay_s = 259200
poll_interval_s = 600

[target]
sim_crowd = "crowd.toml"

[qc]
preset = "none"
rules = ["invalid_answer", "time_outlier", "choice_straight_lining"]
straight_lining_min_items = 3

[answers]
controls = "controls.csv"
control_share = {share}

[policy]
reject_rules = ["invalid_answer"]
[policy.block_min_flags]
invalid_answer = 1
choice_straight_lining = 1
"""
ADVERSARIES = '\n[[profile]]\nname = "diligent"\ncount = {n}\nchoices = "wrong"\n'
OPTIONS = ["negative", "neutral", "positive"]
# the demo crowd's profiles planted as nothing bad (the others break rules, rush, paste, or answer one option)
HONEST = ("diligent", "typo_prone", "slow")


def project(folder: Path, items: int, adversaries: int, share: float = 0.05, seed: int = 1,
            agreement: float = 0.0, per_page: int = 10, pooling: bool = True) -> Path:
    # no caption bank: the page asks choices only
    crowd = "\n".join(line for line in CROWD.read_text(encoding="utf-8").splitlines() if "caption_bank" not in line)
    crowd = crowd.replace("seed = 1\n", f"seed = {seed}\n", 1)
    (folder / "crowd.toml").write_text(crowd + ADVERSARIES.format(n=adversaries), encoding="utf-8")
    (folder / "sentiment.html.j2").write_text(PAGE, encoding="utf-8")
    rows = pd.DataFrame({"item_id": [f"r{k:05d}" for k in range(items)],
                         "text": [f"Review number {k}." for k in range(items)]})
    rows.to_csv(folder / "sentiment_items.csv", index=False)
    # ids and text like the items': nothing on the page tells a control apart
    # enough for every batch at the share, each used once (a 10% margin), and never fewer than before
    wanted = math.ceil(1.1 * items * share / (1 - share)) + 10
    ids = [f"r{k:05d}" for k in range(items, items + max(items // 10 + 10, wanted))]
    pd.DataFrame({"item_id": ids, "field": "sentiment", "answer": [latent_truth(i, "sentiment", OPTIONS) for i in ids],
                  "text": [f"Review number {k}." for k in range(items, items + len(ids))]}
                 ).to_csv(folder / "controls.csv", index=False)
    config = CONFIG.replace("{share}", str(share)).replace("seed = 1\n", f"seed = {seed}\n")
    config = config.replace("images_per_hit = 10\n", f"images_per_hit = {per_page}\n")
    config = config.replace("[answers]\n", f"[answers]\nagreement_block_below = {agreement}\n"
                            f"control_pooling = {'true' if pooling else 'false'}\n")
    (folder / "sentiment.toml").write_text(config, encoding="utf-8")
    return folder / "sentiment.toml"


def every_latent_answer(folder: Path) -> pd.DataFrame:
    """``item_id, field, answer`` for every item of the campaign in ``folder``, from the simulator's own
    latent_truth. Not sim_items.json: it holds the items the roster's workers saw, and Prolific-sim's
    participants come from a wider pool, so on Prolific it named 141 of 1,000 items."""
    items = pd.read_csv(folder / "sentiment_items.csv", dtype=str, keep_default_na=False)
    answers = [latent_truth(i, "sentiment", OPTIONS, [t]) for i, t in zip(items["item_id"], items["text"], strict=True)]
    return pd.DataFrame({"item_id": items["item_id"], "field": "sentiment", "answer": answers})


def measure(items: int, adversaries: int, min_seen: int = 0, seed: int = 1, agreement: float = 0.0,
            per_page: int = 10, share: float = 0.05, pooling: bool = True) -> dict[str, object]:
    """One campaign; ``min_seen`` 0: ``[answers] control_min_seen`` at its default."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = project(folder, items, adversaries, share, seed=seed, agreement=agreement, per_page=per_page,
                         pooling=pooling)
        if min_seen:
            config.write_text(config.read_text().replace("[answers]\n", f"[answers]\ncontrol_min_seen = {min_seen}\n"))
        start = time.process_time()
        # the simulator's seed (its crowd's skills and habits): the crowd file's own seed line does not reach it
        run_campaign(config, db_path=folder / "h.db", out_root=folder / "runs", progress=lambda _: None, seed=seed)
        out = folder / "runs" / "sentiment"
        truth = every_latent_answer(folder)
        data = pd.read_csv(out / "dataset.csv", dtype=str, keep_default_na=False)
        labels = data[data["field"] == "sentiment"].rename(columns={"value": "label"})
        workers = pd.DataFrame(json.loads((out / "sim_workers.json").read_text()))
        result: dict[str, object] = {"items": items, "items_per_page": per_page, "judgements": len(labels),
                                     "adversaries": adversaries,
                                     "seed": seed, "agreement_block_below": agreement,
                                     "campaign_cpu_s": round(time.process_time() - start, 1)}
        for method in ("auto", *METHODS):
            answers = aggregate(labels[["item_id", "worker_id", "label", "field"]], method).answers
            result[f"accuracy_{method}"] = round(accuracy(answers, truth), 4)
        result.update(control_blocking(out, workers, batches=3), control_min_seen=min_seen, control_share=share,
                      control_pooling=pooling)
        return result


def control_blocking(out: Path, workers: pd.DataFrame, batches: int) -> dict[str, object]:
    """Consistently-wrong workers who worked before the last batch and were blocked before it; honest
    workers blocked at all (by any rule, and by their control answers)."""
    responses = pd.read_csv(out / "responses.csv", dtype=str, keep_default_na=False)
    early = set(responses.loc[responses["batch"].astype(int) < batches, "worker_id"])
    blocks = pd.read_csv(out / "blocked_workers.csv", dtype=str, keep_default_na=False)
    before_last = set(blocks.loc[blocks["batch"].astype(int) < batches, "worker_id"])
    # the pooled rule (worker_skill) is the control items' rule of a campaign that pools them
    by_controls = set(blocks.loc[blocks["rules"].str.contains("control_accuracy|worker_skill"), "worker_id"])
    by_agreement = set(blocks.loc[blocks["rules"].str.contains("answer_agreement"), "worker_id"])
    wrong = workers[workers.get("choices", pd.Series("", index=workers.index)).fillna("") == "wrong"]
    honest = workers[~workers.index.isin(wrong.index) & workers["profile"].isin(HONEST)]
    honest_worked = set(honest["worker_id"]) & set(responses["worker_id"])
    wrong_early = set(wrong["worker_id"]) & early
    key = pd.read_csv(out.parents[1] / "controls.csv", dtype=str)
    seen = responses[(responses["batch"].astype(int) < batches) & responses["item_id"].isin(set(key["item_id"]))
                     & responses["worker_id"].isin(wrong_early)].groupby("worker_id").size()
    worked = responses[(responses["batch"].astype(int) < batches) & responses["worker_id"].isin(wrong_early)]
    items_early = worked.groupby("worker_id")["item_id"].nunique()  # controls among them
    controls = pd.read_csv(out / "workers.csv", dtype=str, keep_default_na=False)
    kind = workers.assign(kind=workers["profile"].where(~workers.index.isin(wrong.index), "consistently_wrong"))
    blocked = blocks.merge(kind[["worker_id", "kind"]], on="worker_id", how="left")
    blocked["rule"] = blocked["rules"].str.replace(r"x\d+|\s[^;]*", "", regex=True)  # the rules' names
    return {"blocked_by_kind_and_rule": {f"{k} / {r}": int(n) for (k, r), n in
                                         blocked.groupby(["kind", "rule"]).size().items()},
            "adversaries_working_before_last_batch": len(wrong_early),
            "adversaries_blocked_before_last_batch": len(wrong_early & before_last),
            "adversaries_blocked_share": round(len(wrong_early & before_last) / max(1, len(wrong_early)), 4),
            "adversaries_blocked_before_last_batch_on_controls": len(wrong_early & before_last & by_controls),
            "adversaries_blocked_before_last_batch_on_agreement": len(wrong_early & before_last & by_agreement),
            # how many control answers each of them gave before the last batch: n -> adversaries
            "adversary_controls_before_last_batch": {int(n): int(k) for n, k in sorted(
                seen.reindex(sorted(wrong_early), fill_value=0).value_counts().items())},
            # the items each of them answered before the last batch, fewest first: 5% of 40 is 2 controls
            "adversary_items_before_last_batch": sorted(int(n) for n in items_early),
            "honest_workers_working": len(honest_worked),
            "honest_blocked": len(honest_worked & set(blocks["worker_id"])),
            "honest_blocked_by_controls": len(honest_worked & by_controls),
            "honest_blocked_by_agreement": len(honest_worked & by_agreement),
            "honest_blocked_share": round(len(honest_worked & set(blocks["worker_id"]))
                                          / max(1, len(honest_worked)), 4),
            "workers_csv_with_controls": int((pd.to_numeric(controls["controls"]) > 0).sum())}


AGREEMENT = 0.35  # [answers] agreement_block_below of the combined runs (agreement_min_items at its 6)
# variant -> (agreement_block_below, control_pooling): controls alone and beside the agreement rule (the
# rules before pooling), and pooled with agreement (postprocess/answers/worker_skill.py, the default)
VARIANTS = {"controls_only": (0.0, False), "controls_and_agreement": (AGREEMENT, False), "pooled": (0.0, True)}


def measure_all(items: int, crowds: list[int], seeds: list[int], min_seen: int = 0,
                pages: tuple[int, ...] = (10,), share: float = 0.05, variants: tuple[str, ...] = tuple(VARIANTS)
                ) -> dict[str, object]:
    """Every crowd at every seed and page size, with control items alone and with the agreement rule
    beside them; the totals per variant and page size (adversaries caught before the last batch,
    honest workers blocked)."""
    runs: list[dict[str, Any]] = [{"variant": name, **measure(items, n, min_seen, seed, VARIANTS[name][0], page, share,
                                                              VARIANTS[name][1])}
                                  for page in pages for n in crowds for seed in seeds for name in variants]
    totals = {}
    for name in variants:
        for page in pages:
            mine = [r for r in runs if r["variant"] == name and r["items_per_page"] == page]
            caught, working = (sum(int(r[k]) for r in mine) for k in ("adversaries_blocked_before_last_batch",
                                                                       "adversaries_working_before_last_batch"))
            honest, worked = (sum(int(r[k]) for r in mine) for k in ("honest_blocked", "honest_workers_working"))
            totals[f"{name}, {page} a page"] = {
                "adversaries_blocked_before_last_batch": f"{caught} of {working}",
                "share": round(caught / max(1, working), 4), "honest_blocked": f"{honest} of {worked}",
                "honest_share": round(honest / max(1, worked), 4)}
    return {"items": items, "crowds_adversaries": crowds, "seeds": seeds, "items_per_page": list(pages),
            "control_share": share, "agreement_block_below": AGREEMENT, "totals": totals, "runs": runs}


def summary_lines(result: dict[str, Any]) -> list[str]:
    """One line per run: the answers' accuracy beside majority vote's, and who was blocked before the
    last batch, for control items alone and with the agreement rule."""
    lines = []
    for r in result["runs"]:
        lines.append(f"answers {r['items']:,} items, {r.get('items_per_page', 10)} a page, {r['adversaries']} "
                     f"consistently wrong, seed {r['seed']}, {r['variant']}: {r['accuracy_auto']} (auto) vs "
                     f"majority vote {r['accuracy_mv']} | wrong blocked before the last batch "
                     f"{r['adversaries_blocked_before_last_batch']} of {r['adversaries_working_before_last_batch']} "
                     f"({r['adversaries_blocked_before_last_batch_on_controls']} on controls) | honest blocked "
                     f"{r['honest_blocked']} of {r['honest_workers_working']}")
    for name, t in result["totals"].items():
        lines.append(f"answers total, {name}: wrong blocked before the last batch "
                     f"{t['adversaries_blocked_before_last_batch']} ({t['share']:.0%}, target >= 95%), honest "
                     f"blocked {t['honest_blocked']} ({t['honest_share']:.1%}, target <= 1%)")
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--items", type=int, default=1000)
    p.add_argument("--crowds", default="4,20", help="consistently wrong workers added to the demo crowd, per run")
    p.add_argument("--seeds", default="1,2,3", help="the campaign's and the crowd's seed, per run")
    p.add_argument("--pages", default="10,20", help="items a page ([campaign] images_per_hit), per run")
    p.add_argument("--share", type=float, default=0.05, help="[answers] control_share")
    p.add_argument("--variants", default=",".join(VARIANTS), help="controls_only, controls_and_agreement, pooled")
    p.add_argument("--min-seen", type=int, default=0, help="[answers] control_min_seen (0: its default)")
    p.add_argument("--out", type=Path, default=RESULTS, help="where the JSON goes")
    a = p.parse_args()
    if unknown := set(a.variants.split(",")) - set(VARIANTS):
        p.error(f"--variants: no variant {', '.join(sorted(unknown))} (there are {', '.join(VARIANTS)})")
    measured = measure_all(a.items, [int(n) for n in a.crowds.split(",")], [int(n) for n in a.seeds.split(",")],
                           a.min_seen, tuple(int(n) for n in a.pages.split(",")), a.share,
                           tuple(a.variants.split(",")))
    a.out.write_text(json.dumps(measured, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(measured["totals"], indent=1))
    print("\n".join(summary_lines(measured)))


if __name__ == "__main__":
    main()
