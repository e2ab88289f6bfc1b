"""Half the gold of each real crowd in ../shared/data as controls, each half in turn, the other half scored: the
calibration keeps the model's ranking (on RTE's first half it set the slope on ln c to 0), its ECE15 is at most
max(0.05, the noise floor's 95th percentile), and the summary's own estimate of it holds there."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bench.snow_sets import SETS, path_of, read_set
from flows.answers.answers_files import summary
from postprocess.answers.aggregation import aggregate_scored
from postprocess.answers.beta_calibration import fold_of
from postprocess.answers.reliability import FINE_BINS, ece, noise_floor


@pytest.fixture(scope="module", params=[s for s in SETS if s.name != "wsd"], ids=lambda s: s.name)
def halves(request: pytest.FixtureRequest) -> list[tuple[dict[str, object], pd.DataFrame, pd.Series]]:
    path = path_of(request.param)
    if path is None:
        pytest.skip(f"needs Snow et al. 2008's {request.param.name} set (../shared/data beside the project)")
    frame = read_set(path)
    labels, gold = frame.drop(columns="gold"), frame.drop_duplicates("item_id").set_index("item_id")["gold"]
    items = np.array(sorted(gold.index))
    half = fold_of(pd.Series(items), 2)
    out = []
    for h in (0, 1):
        controls = pd.DataFrame({"item_id": items[half == h], "answer": gold.reindex(items[half == h]).to_numpy()})
        result, checked = aggregate_scored(labels, "auto", controls=controls)
        out.append((summary(result, None, checked), result.answers, gold.reindex(items[half != h])))
    return out


def test_the_fit_keeps_the_models_ranking(halves: list[tuple[dict[str, object], pd.DataFrame, pd.Series]]) -> None:
    for said, _, _ in halves:
        fit = said["calibration_fit"]
        assert fit["moved"] and fit["a"] >= 0.25  # type: ignore[index]


def test_the_other_half_is_calibrated_and_the_estimate_holds(
        halves: list[tuple[dict[str, object], pd.DataFrame, pd.Series]]) -> None:
    for said, answers, rest in halves:
        got = answers.set_index("item_id").reindex(rest.index)
        conf = got["confidence"].to_numpy(float)
        scored = ece(conf, got["label"].astype(str).to_numpy() == rest.astype(str).to_numpy(), FINE_BINS)
        assert scored <= max(0.05, noise_floor(conf)["ece_15"]["p95"])
        on_controls = said["calibration_on_controls"]
        assert scored <= on_controls["ece_15_at_most"]  # type: ignore[index]
        assert abs(scored - on_controls["ece_15"]) < 0.01  # type: ignore[index]
