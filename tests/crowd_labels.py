"""Synthetic crowd labels with a known truth, shaped like the simulator's choices: each worker right
with their own accuracy, a slip half the time their habitual confusion, else a random label."""

from __future__ import annotations

import numpy as np
import pandas as pd

LABELS = ["A", "B", "C"]


def crowd_frame(seed: int, items: int = 600, per_item: int = 2) -> tuple[pd.DataFrame, pd.Series]:
    """Workers of accuracy 0.55-0.95, each with a habitual confusion (as the simulator's), two labels an item."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.55, 0.95, 25)
    habit = rng.integers(1, 3, 25)
    truth = rng.integers(0, 3, items)
    rows = []
    for i in range(items):
        for w in rng.choice(25, per_item, replace=False):
            slip = rng.random() >= skill[w]
            label = (truth[i] + (habit[w] if rng.random() < 0.5 else rng.integers(0, 3))) % 3 if slip else truth[i]
            rows.append({"item_id": f"i{i}", "worker_id": f"w{w}", "label": LABELS[label]})
    return pd.DataFrame(rows), pd.Series([LABELS[t] for t in truth], index=[f"i{i}" for i in range(items)])
