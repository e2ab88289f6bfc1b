"""Checks that measure rather than pin a contract, moved out of the test suite (a rate over many trials, an
accuracy figure on real data, a process's malloc arenas): ``make bench-suite-targets`` runs them beside
bench/suite_targets.py's own and exits 1 when one is missed. Each was a test; its docstring says which, and the
bound is the test's, unchanged.

- ``item_blind_floor``: was tests/test_item_blind.py's honest worker at the stated floor (~6 s of CPU).
- ``straight_lining_ceiling``: was tests/test_page_straight_lining.py's worker at the honest ceiling (~1.6 s).
- ``snow_replay_cli[rte|temp]``: was tests/test_real_labels.py's `hitflow aggregate --adaptive` replay (~8 s).
- ``fifth_of_gold[...]``: was tests/test_calibration_fifth_of_gold.py's log-loss of the other gold items (~7 s).
- ``budget_gain[1|3]``: was tests/test_adaptive_gain.py's budget spent by expected gain against even overlap
  (~3.5 s).
- ``run_arenas``: was tests/test_sim_memory.py's `hitflow run` on the embedded simulator in a fresh
  interpreter (~7 s)."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def item_blind_floor() -> str:
    """The worker answers as the crowd does on two thirds of the items and from the field's answers at large on
    the rest: exactly the honest floor. Over 150 campaigns of 40 items, the share flagged at alpha = 0.05 at any
    of four looks stays within alpha (Ville's inequality bounds it over every look)."""
    import pandas as pd

    from qc.agreement_odds import worker_evidence

    sentiment = ["positive", "mixed", "negative"]
    alpha, campaigns, items = 0.05, 150, 40
    ever = 0
    for seed in range(campaigns):
        rng = random.Random(seed)
        rows, pool = [], []
        for i in range(items):
            truth = rng.choice(sentiment)
            crowd_says = [truth if rng.random() < 0.8 else rng.choice(sentiment) for _ in range(5)]
            pool += crowd_says
            mine = crowd_says.pop() if rng.random() < 2 / 3 else rng.choice(pool)
            rows += [{"worker_id": f"c{k}", "image_id": f"i{i}", "field": "s", "answer": a}
                     for k, a in enumerate(crowd_says)] + [{"worker_id": "floor", "image_id": f"i{i}", "field": "s",
                                                            "answer": mine}]
        frame = pd.DataFrame(rows)
        ever += any(worker_evidence(frame.iloc[: 5 * k], {}).get("floor", (0.0,))[0] >= 1 / alpha
                    for k in range(10, items + 1, 10))
    assert ever <= alpha * campaigns, f"flagged in {ever} of {campaigns} campaigns"
    return f"the floor worker flagged in {ever} of {campaigns} campaigns (at most {alpha * campaigns:.1f})"


def straight_lining_ceiling() -> str:
    """Other workers' pages are flat one time in ten; this worker's 40% of the time, the ceiling
    ``0.1 + (1 - 2/3) x 0.9``. Over 100 campaigns of 40 pages, the share ever flagged at alpha = 0.05 at any of
    four looks stays within alpha."""
    import pandas as pd

    from qc.page_straight_lining import page_evidence

    aspects = ["clarity", "accuracy", "detail", "tone", "usefulness"]
    ever = 0
    for seed in range(100):
        rng = random.Random(seed)
        rows = []
        for i in range(40):
            for worker in [f"c{k}" for k in range(4)] + ["ceiling"]:
                flat = rng.random() < (0.4 if worker == "ceiling" else 0.1)
                values = ["3"] * 3 if flat else rng.sample(["1", "2", "3", "4", "5"], 3)
                rows += [{"worker_id": worker, "image_id": f"i{i}", "field": a, "answer": v, "scale": "1..5"}
                         for a, v in zip(aspects, values, strict=False)]
        frame = pd.DataFrame(rows)
        ever += any(page_evidence(frame.iloc[: 15 * k], {}).get("ceiling", (0.0,))[0] >= 20 for k in range(10, 41, 10))
    assert ever <= 0.05 * 100, f"flagged in {ever} of 100 campaigns"
    return f"the ceiling worker flagged in {ever} of 100 campaigns (at most 5)"


def _aggregate(path: Path, out: Path, *extra: str) -> dict[str, object]:
    from flows.cli.main import main

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(["aggregate", str(path), "--columns", "orig_id,!amt_worker_ids,response", "--gold", "gold",
                     "--out", str(out), *extra])
    assert code == 0, f"hitflow aggregate exited {code}"
    shown: dict[str, object] = json.loads(printed.getvalue())
    return shown


def snow_replay_cli(name: str) -> str:
    """Replayed one judgement at a time with `hitflow aggregate --adaptive`'s defaults, at least full-overlap
    majority vote's accuracy (with hitflow's deterministic ties and with ties counted at random) using at most half
    the judgements."""
    import pandas as pd

    from bench.snow_sets import SETS, gold_of, majority_vote_ties_half, path_of, read_set

    path = path_of(next(s for s in SETS if s.name == name))
    if path is None:
        return f"skipped: Snow 2008's {name} labels are absent"
    frame = read_set(path)
    with tempfile.TemporaryDirectory() as tmp:
        full = _aggregate(path, Path(tmp, "mv", "answers.csv"), "--method", "mv")
        shown = _aggregate(path, Path(tmp, "adaptive", "answers.csv"), "--adaptive")
        answers = pd.read_csv(Path(tmp, "adaptive", "answers.csv"), dtype={"item_id": str, "label": str})
    assert shown["judgements_total"] == len(frame) and shown["judgements_used"] == answers["judgements_used"].sum()
    share = float(shown["share_used"])  # type: ignore[arg-type]
    assert share <= 0.5, f"{name}: the replay used {share:.1%} of the labels"
    answered = answers.set_index("item_id")["label"]
    gold = gold_of(frame)
    accuracy = float((answered == gold.reindex(answered.index)).mean())
    mv, ties_half = float(full["accuracy"]), majority_vote_ties_half(frame)  # type: ignore[arg-type]
    assert accuracy >= mv - 5e-5 and accuracy >= ties_half, \
        f"{name}: adaptive {accuracy:.4f} < majority vote {mv:.4f} / {ties_half:.4f} (ties at random)"
    return f"adaptive {accuracy:.4f} with {share:.1%}; majority vote {mv:.4f}, ties at random {ties_half:.4f}"


def fifth_of_gold(name: str) -> str:
    """With a fifth of the gold as controls (each fifth in turn), the calibrated confidence of the other gold items
    has a lower log-loss than the model's own on the same items: tests/test_calibration_fifth_of_gold.py's folds."""
    import numpy as np

    from postprocess.answers.calibration import log_loss
    from tests.test_calibration_fifth_of_gold import _folds, _on

    try:
        folds = _folds(name)
    except BaseException as error:  # pytest.skip: a Snow set absent
        if type(error).__name__ == "Skipped":
            return f"skipped: {error}"
        raise
    added = float(np.mean([log_loss(*_on(calibrated, rest)[:2]) - log_loss(*_on(plain, rest)[:2])
                           for plain, calibrated, rest in folds]))
    assert added < 0, f"{name}: a fifth of the gold as controls adds {added:.4f} nats an item"
    return f"log-loss of the other gold items {added:+.4f} nats an item"


def budget_gain(seed: int) -> str:
    """Half the judgements spent by expected gain are right on at least six more of 120 items than half spent
    evenly (each item's first five) and within 4 points of every label's majority vote (seed 3: 4 items under with
    rounds of a twentieth of the items, 3 with rounds of a quarter; seeds 1-6 together 27 and 28)."""
    from postprocess.answers.adaptive import DEFAULT_RULE, replay, saving
    from postprocess.answers.aggregation import aggregate
    from tests.test_adaptive_gain import _crowd, _right

    frame = _crowd(seed)
    gold = frame.drop_duplicates("item_id").set_index("item_id")["gold"]
    labels = frame.drop(columns="gold")
    result = replay(labels, DEFAULT_RULE)
    share = float(saving(result, labels)["share_used"])
    assert share <= 0.5, f"seed {seed}: the replay used {share:.1%} of the labels"
    right = _right(result.answers, gold)
    even = _right(aggregate(labels.groupby("item_id").head(5), DEFAULT_RULE.method).answers, gold)
    mv = _right(aggregate(labels, "mv").answers, gold)
    assert right >= even + 6, f"seed {seed}: {right} right by expected gain, {even} by even overlap"
    assert right >= mv - 0.04 * len(gold), f"seed {seed}: {right} right, majority vote {mv} of {len(gold)}"
    return f"{right} of {len(gold)} right with {share:.1%}; even overlap {even}, majority vote {mv}"


RUN_ARENA_PROBE = """
import ctypes, sys
from flows.cli.main import main
code = main(["run", sys.argv[1], "--no-prefect", "--limit", "10", "--db", sys.argv[2], "--out", sys.argv[3]])
sys.stdout.flush()
ctypes.CDLL(None).malloc_stats()  # one "Arena N:" block per arena, on stderr
print("EXIT", code)
"""


def run_arenas() -> str:
    """Its posting threads and the simulator's connection threads made up to 16 arenas, whose holes held the
    39,181-image run's peak (flows/core/run/malloc_arenas.py): a whole `hitflow run` keeps to two."""
    import ctypes

    from tests.small_configs import small_vizwiz

    if not hasattr(ctypes.CDLL(None), "malloc_stats"):
        return "skipped: not glibc, no malloc arenas to cap"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = small_vizwiz(folder)
        done = subprocess.run([sys.executable, "-c", RUN_ARENA_PROBE, str(config), str(folder / "h.db"),
                               str(folder / "out")], capture_output=True, text=True, cwd=ROOT, timeout=600,
                              env={**os.environ, "HITFLOW_STAGING": str(folder / "staging")})
        assert done.stdout.strip().endswith("EXIT 0"), done.stdout[-2000:] + done.stderr[-2000:]
        assert (folder / "out" / "vizwiz_captions" / "dataset.csv").exists()  # posted and collected: threads ran
    arenas = sum(line.startswith("Arena ") for line in done.stderr.splitlines())
    assert 1 <= arenas <= 2, f"{arenas} malloc arenas"
    return f"{arenas} malloc arena(s)"


CHECKS: dict[str, Callable[[], str]] = {
    "item_blind_floor": item_blind_floor,
    "straight_lining_ceiling": straight_lining_ceiling,
    **{f"snow_replay_cli[{n}]": functools.partial(snow_replay_cli, n) for n in ("rte", "temp")},
    **{f"fifth_of_gold[{n}]": functools.partial(fifth_of_gold, n) for n in ("rte", "temp", "image10", "binary3")},
    **{f"budget_gain[{seed}]": functools.partial(budget_gain, seed) for seed in (1, 3)},
    "run_arenas": run_arenas,
}
