"""``page_straight_lining`` (qc/page_straight_lining.py): one answer to every question of a page on one scale,
judged over the worker's pages against how often the crowd's pages are that flat. A page of one item asks five
1-5 ratings (clarity, accuracy, detail, tone, usefulness); crowds are built directly."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from qc.page_straight_lining import page_evidence
from qc.runner import run_rules

ASPECTS = ["clarity", "accuracy", "detail", "tone", "usefulness"]


def crowd(seed: int, pages: int, flat_liner: bool = True) -> pd.DataFrame:
    """Four honest raters a page from a crowd of twelve (the item's quality, each aspect its own lean, each
    rater their own; an item that is plainly good or bad gets one rating throughout now and then), and a
    straight-liner who gives every aspect the rating they give the item overall (which follows the item)."""
    rng = random.Random(seed)
    raters = {f"h{k}": rng.uniform(-0.5, 0.5) for k in range(12)}
    rows = []
    for i in range(pages):
        quality = rng.uniform(1, 5)
        aspects = {a: rng.gauss(0, 0.8) for a in ASPECTS}
        for worker in rng.sample(sorted(raters), 4) + (["flat"] if flat_liner else []):
            overall = round(min(5, max(1, quality + rng.gauss(0, 0.5))))
            for a in ASPECTS:
                score = overall if worker == "flat" else round(min(5, max(1, quality + aspects[a] + raters[worker]
                                                                             + rng.gauss(0, 0.5))))
                rows.append({"assignment_id": f"{worker}-{i}", "worker_id": worker, "image_id": f"i{i}",
                             "field": a, "answer": str(score), "options": 5})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("seed", range(5))
def test_a_straight_liner_is_flagged_after_a_few_pages_and_honest_raters_are_not(seed: int) -> None:
    flags = run_rules(crowd(seed, pages=10), {}, ("page_straight_lining",))
    assert list(flags["worker_id"]) == ["flat"]
    assert "one answer to every question on one scale on 10 of 10 pages" in flags["detail"].iloc[0]


def test_honest_raters_are_never_flagged_over_long_campaigns() -> None:
    for seed in range(10):
        evidence = page_evidence(crowd(seed, pages=80, flat_liner=False), {})
        assert max(e for e, *_ in evidence.values()) < 100


def test_too_few_questions_on_one_scale_is_no_page_to_judge() -> None:
    two = crowd(0, pages=10)
    two = two[two["field"].isin(ASPECTS[:2])]
    assert page_evidence(two, {}) == {}

