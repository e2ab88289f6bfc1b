"""The seed's time band stays exact under its name: ``time_outlier_method = "seed"`` is mu +/- 1.95 sigma of
all the batch's assignments, both sides (../shared/seeds/003_*: "a statistical outlier in time-to-submit
(taking either too little or too much time) by 1.95 times the standard deviation for all the results"),
reached by the config key and by ``hitflow qc --time-outlier-method seed``; the default, ``seed_slow_apart``,
takes the fast side without the slow workers, so one parked HIT does not hide a speeder."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from flows.cli.qc_options import TIME_OUTLIER_METHODS
from flows.custom.scaffold import scaffold
from qc.runner import run_rules
from qc.timing_rules import METHODS

# 30 workers who take 250-320 s, one who parked a HIT for 3 hours, one speeder at 40 s
TIMES = {**{f"W{k:02}": 250.0 + (k * 37) % 71 for k in range(30)}, "PARKED": 10800.0, "SPEEDER": 40.0}
CAPTION = "A red bicycle leaning against a garden fence in the morning sun."


def _batch() -> pd.DataFrame:
    return pd.DataFrame([{"assignment_id": f"A{w}", "worker_id": w, "image_id": f"i{k}", "caption": CAPTION,
                          "is_precanned": False, "work_time_s": t} for k, (w, t) in enumerate(TIMES.items())])


def _by_rule(flags: pd.DataFrame) -> dict[str, set[str]]:
    return {rule: set(flags.loc[flags["rule"] == rule, "worker_id"]) for rule in ("time_outlier", "time_outlier_slow")}


def test_the_seeds_band_is_mu_and_sigma_of_all_assignments_both_sides() -> None:
    flags = run_rules(_batch(), {"time_outlier_method": "seed"}, ["time_outlier"])
    assert _by_rule(flags) == {"time_outlier": set(), "time_outlier_slow": {"PARKED"}}
    times = pd.Series(list(TIMES.values()))
    mu, sigma = times.mean(), times.std(ddof=1)
    # the flag names the bound it crossed, and the band's mu and sigma (of every assignment) in its detail
    assert flags.iloc[0]["threshold"] == f"above {mu + 1.95 * sigma:.1f}s"
    assert flags.iloc[0]["detail"].endswith(f"batch mu {mu:.1f}s sigma {sigma:.1f}s")
    assert mu - 1.95 * sigma < TIMES["SPEEDER"]  # the parked HIT's hours widen the band below the speeder


def test_the_default_takes_the_fast_side_without_the_slow_worker() -> None:
    for params in ({}, {"time_outlier_method": "seed_slow_apart"}):
        flags = run_rules(_batch(), params, ["time_outlier"])
        assert _by_rule(flags) == {"time_outlier": {"SPEEDER"}, "time_outlier_slow": {"PARKED"}}


def test_the_cli_and_the_config_reach_the_seeds_band(tmp_path: Path) -> None:
    subs = tmp_path / "subs.csv"
    _batch().drop(columns="is_precanned").to_csv(subs, index=False)
    found = {}
    for method in ("seed", "seed_slow_apart"):
        out = tmp_path / f"{method}.csv"
        assert main(["qc", str(subs), "--out", str(out), "--time-outlier-method", method]) == 0
        found[method] = _by_rule(pd.read_csv(out, dtype=str, keep_default_na=False))
    assert found["seed"] == {"time_outlier": set(), "time_outlier_slow": {"PARKED"}}
    assert found["seed_slow_apart"] == {"time_outlier": {"SPEEDER"}, "time_outlier_slow": {"PARKED"}}
    scaffold("band", tmp_path)  # a campaign config whose [qc] names the seed's band
    config = tmp_path / "config" / "band.toml"
    text = re.sub(r'(?m)^time_outlier_method = "\w+"', 'time_outlier_method = "seed"', config.read_text())
    assert 'time_outlier_method = "seed"' in text  # the starter names its band; the user changes it
    config.write_text(text, encoding="utf-8")
    out = tmp_path / "config.csv"
    assert main(["qc", str(subs), "--out", str(out), "--config", str(config)]) == 0
    assert _by_rule(pd.read_csv(out, dtype=str, keep_default_na=False)) == found["seed"]


def test_the_cli_offers_every_method() -> None:
    assert set(TIME_OUTLIER_METHODS) == set(METHODS)


@pytest.mark.parametrize("method", ["seed", "robust_both"])
def test_a_slow_worker_is_never_a_speeder(method: str) -> None:
    flags = run_rules(_batch(), {"time_outlier_method": method}, ["time_outlier"])
    assert "PARKED" not in _by_rule(flags)["time_outlier"]
