"""Numbers and sliders follow their known truth with each profile's care: a severity
slider whose items file says 0 gets answers near 0, not 6-8 at random; a known answer the simulator cannot
follow (not a finite number, not an option) is one dry-run line each and never crashes the run; one outside
the control's bounds is read at the bound; the dry run's "follow the known answers" counts only what it follows."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from flows.core.config.config import load_config
from flows.custom.custom_task import dry_run_lines
from flows.sim.people.crowd_model import HONEST_PROFILES
from tests.honest_pages import run_shape, shape_config

TRUTH = 'truth = {severity = "gold_severity", offensive = "gold_offensive"}'
TRUE = {"v01": 0, "v02": 10, "v03": 70, "v04": 95, "v05": 0, "v06": 40, "v07": 0, "v08": 25, "v09": 35, "v11": 100,
        "v12": 0}  # v10's 1e309 is no finite number; v11's 150 is read at the slider's maximum


def test_the_dry_run_says_which_known_answers_it_cannot_follow(tmp_path: Path) -> None:
    lines = dry_run_lines(load_config(shape_config(tmp_path, "severity", campaign=TRUTH)))
    said = [line for line in lines if line.startswith("known answer for")]
    assert len(said) == 3, said  # one line each
    assert any("item v10" in line and "'1e309' is not a finite number" in line for line in said)
    assert any("item v11" in line and "read as 100" in line for line in said)
    assert any("item v08" in line and "'maybe' is not one of its options (yes, no)" in line for line in said)
    assert "simulated answers for severity follow the known answers on 11 of 12 items (column gold_severity); " \
           "on the other 1 they are content-blind: accuracy and agreement figures from this rehearsal say nothing " \
           "about those items" in lines
    assert not any(line.startswith("simulated answers for severity are content-blind") for line in lines)  # one word
    offensive = "simulated answers for offensive follow the known answers on 11 of 12"
    assert any(line.startswith(offensive) for line in lines)


def test_a_slider_follows_its_truth_with_each_workers_care(tmp_path: Path) -> None:
    run = run_shape(tmp_path, "severity", {p: 2 for p in HONEST_PROFILES}, campaign=TRUTH)
    assert run["code"] == 0  # 1e309 in the items file crashed every run (OverflowError)
    given: dict[str, list[int]] = {}
    for _w, item, field, value in run["answers"]:
        if field == "severity" and value != "":
            given.setdefault(item, []).append(int(value))
    errors = [abs(v - TRUE[i]) for i, vs in given.items() if i in TRUE for v in vs]
    assert len(errors) >= 30
    assert statistics.median(errors) <= 5  # drawn at random over 0-100 the median error is about 30
    zeros = [v for i, vs in given.items() if TRUE.get(i) == 0 for v in vs]
    # honest care ~0.86: of 12 answers on true zeros, 7 or fewer near zero has chance 0.018 (binomial), 9 has 0.23
    assert sum(v <= 8 for v in zeros) >= 0.6 * len(zeros), zeros
    assert all(0 <= v <= 100 for vs in given.values() for v in vs)
    truth = json.loads((tmp_path / "runs" / "severity" / "sim_items.json").read_text(encoding="utf-8"))
    known = {r["item_id"]: r for r in truth if r["field"] == "severity"}
    assert known["v11"]["answer"] == "100" and known["v11"]["source"] == "known"
    assert "v10" not in known or known["v10"]["source"] != "known"
