"""The answers package's outputs on fixed inputs, recorded.

Each case is a name and a function computing one output of the package (answers, confidences, worker skills,
a replay's answers and used labels, method choice's held-out probabilities, hygiene, control scores, the
temperature grid) on random crowds, synthetic crowds and Snow's real WSD labels. recorded.json holds each
case's output as a JSON value (``compare.recorded_form``), compared with what the package gives now at the
precision ``compare`` states (floats to six significant digits, everything else exactly): a change of output
shows, a CPU's last bits do not. ``python -m tests.answers_recorded.cases`` rewrites it (only when a change of
output is meant: say so in the commit).

A few outputs are also kept readable beside it (answers.csv and workers.csv of the ``fields`` crowd), so that a
change shows which numbers moved.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.snow_sets import SHARED_WSD
from postprocess.answers import control_items, label_hygiene, method_choice, tempering, worker_skill
from postprocess.answers.adaptive import StoppingRule, replay
from postprocess.answers.aggregation import aggregate_scored
from postprocess.answers.skill_posterior import SkillPrior, label_posterior
from tests.answers_recorded.compare import recorded_form
from tests.crowd_labels import crowd_frame

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "recorded.json"
WSD = SHARED_WSD


def random_crowd(seed: int, items: int, per_item: int, fields: int = 1, workers: int = 12, k: int = 3,
                 shuffle: bool = False) -> pd.DataFrame:
    """Workers right 70% of the time, a slip any label; with ``shuffle`` the rows in a random order."""
    rng = np.random.default_rng(seed)
    rows = []
    for f in range(fields):
        for i in range(items):
            truth = rng.integers(k)
            for j in rng.permutation(workers)[:per_item]:
                label = truth if rng.random() < 0.7 else rng.integers(k)
                rows.append({"item_id": f"i{i}", "worker_id": f"w{j}", "label": f"L{label}", "field": f"f{f}"})
    out = pd.DataFrame(rows)
    return out.sample(frac=1, random_state=seed).reset_index(drop=True) if shuffle else out


def wsd() -> pd.DataFrame:
    raw = pd.read_csv(WSD, sep="\t")
    return pd.DataFrame({"item_id": raw["orig_id"], "worker_id": raw["!amt_worker_ids"],
                         "label": raw["response"].astype(str)})


CROWDS: dict[str, Callable[[], pd.DataFrame]] = {
    "tiny": lambda: random_crowd(5, 3, 2), "fuzz": lambda: pd.DataFrame(
        [(f"i{i}", f"w{w}", "yes" if (i + w) % 3 else "no") for i in range(6) for w in range(5)],
        columns=["item_id", "worker_id", "label"]),
    "fields": lambda: random_crowd(2, 40, 5, fields=2), "shuffled": lambda: random_crowd(3, 300, 4, shuffle=True),
    "sorted": lambda: random_crowd(6, 50, 5).sort_values("item_id", kind="stable", ignore_index=True),
    "binary": lambda: random_crowd(4, 25, 3, workers=30, k=2),
    "crowd": lambda: crowd_frame(1, items=300, per_item=6)[0]}
RULES = {"defaults": StoppingRule(), "ds": StoppingRule(2, 6, confidence=0.95, method="ds"),
         "lead": StoppingRule(3, lead=2, method="mv", stop_on="method"), "starter": StoppingRule(2, 6, confidence=0.98),
         "unsettled": StoppingRule(3, 5, confidence=0.9, settled=False),
         "typical": StoppingRule(2, 6, confidence=0.95, skill_prior=SkillPrior(typical_weight=20.0))}
SPELLINGS = np.array(["Good", "good", " good ", "GOOD", "bad", "Bad", "b  ad", "", " ", "ok", "Ok", "OK ", "x"],
                     dtype=object)


def _method_choice(seed: int) -> Any:
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(2, 400)), int(rng.integers(2, 5))
    items = rng.integers(0, max(1, n // int(rng.integers(1, 7))), n)
    workers, labels = rng.integers(0, int(rng.integers(1, 15)), n), rng.integers(0, k, n)
    fit = rng.random(n) < 0.8
    args = (items[fit], workers[fit], labels[fit], k, items[~fit], workers[~fit], labels[~fit])
    return [method_choice._one_coin(*args), method_choice._dawid_skene(*args),
            tuple(method_choice.choose(items, workers, labels, k, 1.0))]


def _with_controls(crowd: str) -> Any:
    frame = CROWDS[crowd]()
    items = sorted(frame["item_id"].unique())[: max(2, frame["item_id"].nunique() // 10)]
    controls = pd.DataFrame({"item_id": items, "answer": [f"L{i % 3}" for i in range(len(items))]})
    result, checked = aggregate_scored(frame, "auto", controls=controls)
    return [result.answers, result.workers, checked]


def _worker_skill(seed: int, page_labels: float) -> Any:
    frame = random_crowd(seed, 30 + 10 * seed, 3 + seed % 4, fields=1 + seed % 2)
    rng = np.random.default_rng(seed)
    pages = [f"u{i // 7}" for i in range(len(frame))] if seed % 3 else list(rng.choice(["a", "b", "c", "d"],
                                                                                       len(frame)))
    given = frame.rename(columns={"label": "value"}).assign(unit=pages)
    items = sorted(frame["item_id"].unique())[:4]
    controls = pd.DataFrame({"item_id": items, "field": "f0", "answer": ["L0", "L1", "L2", "L3"]})
    return worker_skill.skill_scores(given, controls, worker_skill.SkillPolicy(page_labels=page_labels))


def _control_items(seed: int) -> Any:
    rng = np.random.default_rng(seed)
    frame = random_crowd(seed, int(rng.integers(1, 30)), int(rng.integers(1, 6)), fields=1 + seed % 2,
                         k=2 + seed % 3)
    given = frame.rename(columns={"label": "value"})
    if seed % 4 == 0:
        given.loc[given.index[:3], "value"] = " "
    items = sorted(frame["item_id"].unique())[: int(rng.integers(1, 6))]
    controls = pd.DataFrame({"item_id": items, "field": "f0", "answer": [f"L{rng.integers(3)}" for _ in items]})
    if seed % 5 == 0:
        controls = pd.concat([controls, controls.head(1)])
    return [control_items.trusted_controls(given, controls), control_items.control_scores(given, controls)]


def _replay_with_controls(crowd: str) -> Any:
    frame = CROWDS[crowd]()
    items = sorted(frame["item_id"].unique())[:5]
    controls = pd.DataFrame({"item_id": items, "answer": [f"L{i % 3}" for i in range(len(items))]})
    replayed = replay(frame, StoppingRule(2, 6, confidence=0.95), controls=controls)
    return [replayed.answers, *(label_posterior(frame, prior) for prior in (
        SkillPrior(), SkillPrior(typical_weight=20.0), SkillPrior(crowd_weight=0.0)))]


def _hygiene(seed: int) -> Any:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 50))
    frame = pd.DataFrame({"item_id": rng.choice(["i1", "i2", "i3", "i4", " i1"], n),
                          "worker_id": rng.choice(["w1", "w2", "w3"], n), "label": rng.choice(SPELLINGS, n)})
    if seed % 2:
        frame["field"] = rng.choice(["f1", "f2", " f1"], n)
    out: list[Any] = []
    for repeats in ("last", "first", "majority", "refuse"):
        for fold_case in (True, False):
            try:
                tidied = label_hygiene.tidy(frame, label_hygiene.HygienePolicy(repeats=repeats, fold_case=fold_case))
            except label_hygiene.RepeatedLabels as refused:
                out.append(f"refused: {refused}")
                continue
            out += [tidied.frame, dict(tidied.counts)]
    return out


def _temperature_grid(seed: int) -> Any:
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 2000)), int(rng.integers(2, 6))
    others, own = rng.normal(size=(n, k)) * 5, rng.normal(size=(n, k)) * 2 - 3
    # the temperatures of the grid these outputs were recorded on
    return tempering._grid_scores(others, own, np.log(rng.dirichlet(np.ones(k))), np.geomspace(1.0, 3.0, 41))


def _aggregated(crowd: str, method: str) -> Any:
    result = aggregate_scored(CROWDS[crowd](), method)[0]
    return [result.answers, result.workers]


def _replayed(frame: pd.DataFrame, rule: StoppingRule) -> Any:
    replayed = replay(frame, rule)
    return [replayed.answers, replayed.used]


def cases() -> dict[str, Callable[[], Any]]:
    """Every recorded output, by name (``wsd/...``: needs ../shared/data)."""
    out: dict[str, Callable[[], Any]] = {}
    for seed in range(20):
        out[f"method_choice/{seed}"] = lambda s=seed: _method_choice(s)
        out[f"hygiene/{seed}"] = lambda s=seed: _hygiene(s)
    for crowd in sorted(CROWDS):
        for method in ("auto", "mv", "ds", "skill"):
            out[f"aggregate/{crowd}/{method}"] = lambda c=crowd, m=method: _aggregated(c, m)
        out[f"aggregate_with_controls/{crowd}"] = lambda c=crowd: _with_controls(c)
    for seed in range(6):
        for page_labels in (5.0, 0.0):
            out[f"worker_skill/{seed}/{page_labels}"] = lambda s=seed, p=page_labels: _worker_skill(s, p)
    for seed in range(15):
        out[f"control_items/{seed}"] = lambda s=seed: _control_items(s)
    for crowd in ("tiny", "fuzz", "fields", "sorted", "binary"):
        for rule in sorted(RULES):
            out[f"replay/{crowd}/{rule}"] = lambda c=crowd, r=rule: _replayed(CROWDS[c](), RULES[r])
    for crowd in ("fuzz", "fields", "crowd"):
        out[f"replay_with_controls/{crowd}"] = lambda c=crowd: _replay_with_controls(c)
    for seed in range(10):
        out[f"temperature_grid/{seed}"] = lambda s=seed: _temperature_grid(s)
    for method in ("auto", "mv", "ds"):
        out[f"wsd/aggregate/{method}"] = lambda m=method: list(aggregate_scored(wsd(), m)[0])
    for rule in ("ds", "starter"):
        out[f"wsd/replay/{rule}"] = lambda r=rule: _replayed(wsd(), RULES[r])
    return out


READABLE = {"fields_auto_answers.csv": lambda: aggregate_scored(CROWDS["fields"](), "auto")[0].answers,
            "fields_auto_workers.csv": lambda: aggregate_scored(CROWDS["fields"](), "auto")[0].workers}


def record() -> None:
    """Rewrite recorded.json (every case; WSD's when its file is here, else the old records kept) and the
    readable files."""
    old = json.loads(RECORDED.read_text()) if RECORDED.exists() else {}
    forms = {name: (old.get(name) if name.startswith("wsd/") and not WSD.exists() else recorded_form(compute()))
             for name, compute in cases().items()}
    lines = [f"{json.dumps(name)}:{json.dumps(forms[name], separators=(',', ':'))}" for name in sorted(forms)]
    RECORDED.write_text("{\n" + ",\n".join(lines) + "\n}\n")  # a case a line: a diff names what moved
    for name, compute in READABLE.items():
        compute().to_csv(HERE / name, index=False, float_format="%.17g")


if __name__ == "__main__":
    record()
