"""``item_blind`` on the real crowds with expert gold in ../shared/data (Snow et al. 2008's RTE, TEMP and WSD;
bench/item_blind_odds.py --real prints the same figures and the false alarms of 30-item campaigns drawn from
them): no worker of gold accuracy 0.8 or more flagged, and those it flags less accurate than the others."""

from __future__ import annotations

import math

import pytest

from bench import item_blind_odds, snow_sets
from qc.agreement_odds import REVIEW_ALPHA


@pytest.mark.parametrize("snow", snow_sets.SETS, ids=[s.name for s in snow_sets.SETS])
def test_no_accurate_worker_is_flagged_and_the_flagged_are_less_accurate(snow: snow_sets.SnowSet) -> None:
    path = snow_sets.path_of(snow)
    if path is None:
        pytest.skip(f"the {snow.name} labels are not here: ../shared/data holds none and ${snow.variable} is unset")
    figures = item_blind_odds.whole_crowd(snow_sets.read_set(path))
    assert figures.accurate >= 30  # a crowd where a false alarm could show
    assert figures.accurate_flagged == 0
    assert math.isnan(figures.flagged_accuracy) or figures.flagged_accuracy < figures.others_accuracy - 0.2


def test_campaigns_drawn_from_a_real_crowd_flag_no_accurate_worker() -> None:
    path = snow_sets.path_of(snow_sets.SETS[1])
    if path is None:
        pytest.skip("the RTE labels are not here: ../shared/data holds none and $HITFLOW_RTE_LABELS is unset")
    honest, flagged = item_blind_odds.campaigns(snow_sets.read_set(path), items=30, runs=10)
    assert honest > 500 and flagged == 0


def test_the_review_tier_flags_few_accurate_workers_and_the_flagged_are_less_accurate(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """At the review tier's evidence (4: item_blind_review_alpha 0.25) the whole crowds flag at most one accurate
    worker a set (TEMP: 1 of 56), and 30-item campaigns drawn from RTE under 1% of accurate workers (3 of 781)."""
    monkeypatch.setattr(item_blind_odds, "ALPHA", REVIEW_ALPHA)
    read = [(s, snow_sets.path_of(s)) for s in snow_sets.SETS]
    if any(path is None for _, path in read):
        pytest.skip("the Snow et al. labels are not all here: ../shared/data holds none of them")
    for snow, path in read:
        assert path is not None
        figures = item_blind_odds.whole_crowd(snow_sets.read_set(path))
        assert figures.accurate_flagged <= 1, snow.name
        assert math.isnan(figures.flagged_accuracy) or figures.flagged_accuracy < figures.others_accuracy - 0.2
    rte = snow_sets.path_of(snow_sets.SETS[1])
    assert rte is not None
    honest, flagged = item_blind_odds.campaigns(snow_sets.read_set(rte), items=30, runs=10)
    assert honest > 500 and flagged <= 0.01 * honest
