"""``item_blind`` on the real crowds with expert gold in ../shared/data (Snow et al. 2008's RTE, TEMP and WSD;
bench/item_blind_odds.py --real prints the same figures and the false alarms of 30-item campaigns drawn from
them): no worker of gold accuracy 0.8 or more flagged, and those it flags less accurate than the others."""

from __future__ import annotations

import math

import pytest

from bench import item_blind_odds, snow_sets


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
