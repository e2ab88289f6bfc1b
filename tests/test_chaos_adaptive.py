"""kill -9 on adaptive overlap's steps at a small scale (the long run is ``make bench-chaos-adaptive``):
``hitflow run`` processes against ``hitflow sim serve``'s simulator (on a thread of the test's process,
bench.chaos_runner.sim_thread), killed between an extension round's intents and their settling and while the
round's work is collected, then resumed (the resume and the uninterrupted run through the CLI's main() in
the test's process, bench.chaos_runner.run_here; the runs killed forked from a server that imported the project
once: tests/forked_hitflow.py). On MTurk the
simulator's own record of the extensions it made must match the ledger's, no judgement it holds may be
missing, and the outputs must be the uninterrupted run's bytes (rows in a fixed order, not the order the
killed and resumed runs happened to store them). On Prolific and links: no extension twice, nothing lost."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench.chaos_adaptive import HOOKED, clean_run, killed_run
from bench.chaos_runner import ENV, ROOT, Launch, sim_thread
from tests.forked_hitflow import ForkServer

ITEMS = 12  # units enough for extension rounds and kills to land in them
NOTHING_WRONG = {"duplicate_extensions": 0, "hits_beyond_ledger": 0, "ledger_extensions_not_made": 0,
                 "hits_below_ledger": 0, "ledger_rows_not_settled": 0, "lost_judgements": 0,
                 "missing_from_dataset": 0}


@pytest.fixture(scope="module")
def launch(hitflow_forks: ForkServer) -> Launch:
    """The runs killed with SIGKILL: processes forked from a server that imported the project once."""
    return hitflow_forks.launcher(ENV, ROOT)


@pytest.mark.slow
def test_killed_on_the_extension_steps_then_resumed_equals_an_uninterrupted_run(tmp_path: Path,
                                                                                launch: Launch) -> None:
    clean = clean_run(tmp_path / "clean", items=ITEMS, seed=1, sim=sim_thread, here=True)
    killed = killed_run(tmp_path / "killed", items=ITEMS, seed=1,
                        plan=["extension intents", "extension collect", "extension intents"], rng=random.Random(7),
                        sim=sim_thread, here=True, launch=launch)
    assert killed["kills_landed"].get("extension intents", 0) >= 1, killed["kills_in_order"]  # really killed there
    assert killed["extensions_in_ledger"] == killed["extensions_on_platform"] == clean["extensions_in_ledger"] > 0
    assert {k: killed[k] for k in NOTHING_WRONG} == NOTHING_WRONG
    assert killed["platform_assignments"] == clean["platform_assignments"] and killed["spent"] == clean["spent"]
    for name in ("answers.csv", "dataset.csv", "dataset.json", "responses.csv"):
        assert output(tmp_path / "killed", name) == output(tmp_path / "clean", name), name


def output(folder: Path, name: str) -> bytes:
    """An output's bytes, its run's folder (named in dataset.json) replaced."""
    return (folder / "runs" / "sentiment" / name).read_bytes().replace(str(folder).encode(), b"RUN")


# Prolific's participants come from inside the simulator during the run's calls, links' invitees live in the
# run; those at the pages when the run dies leave, so later rounds may ask other units than the
# uninterrupted run's (the links route's outputs differ after such a kill too: bench/results-chaos-adaptive.json).
# What must hold: no extension made twice or beyond the ledger, no finished work lost.
ROUTE_PLANS = {"prolific": ["extension intents", "extension collect"], "links": [HOOKED, "anywhere", HOOKED]}
ROUTE_NOTHING_WRONG = {"prolific": ("studies_beyond_ledger", "studies_below_ledger"),
                       "links": ("units_beyond_ledger", "undecided")}


@pytest.mark.slow
@pytest.mark.parametrize("route", sorted(ROUTE_PLANS))
def test_killed_on_the_extension_steps_never_extends_twice_or_loses_work(tmp_path: Path, route: str,
                                                                        launch: Launch) -> None:
    killed = killed_run(tmp_path, items=ITEMS, seed=1, plan=ROUTE_PLANS[route], rng=random.Random(7), route=route,
                        span=4.0, sim=sim_thread, here=True, launch=launch)
    assert sum(killed["kills_landed"].values()) >= 1 and killed["extensions_in_ledger"] > 0, killed
    assert killed["platform_assignments"] > ITEMS * 2  # the min of every unit, and more
    wrong = ("duplicate_extensions", "ledger_rows_not_settled", "lost_judgements", "missing_from_dataset",
             *ROUTE_NOTHING_WRONG[route])
    assert {k: killed[k] for k in wrong} == dict.fromkeys(wrong, 0)
