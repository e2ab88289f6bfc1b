"""The short chaos suite (the long one is ``make bench-chaos``): kill -9 of ``hitflow run`` processes
against ``hitflow sim serve``'s simulator, then resume; and a run under throttling, server errors
and lost replies, with its ledger in SQLite and in PostgreSQL. Each is checked against the platform
and an uninterrupted run with the same seed. On Prolific and the invite links (their simulated
people on the same simulator) a killed and resumed run's outputs equal the uninterrupted run's.

The simulator runs on a thread of the test's process (bench.chaos_runner.sim_thread), where the kills do not
reach it; the runs not killed (the resumes after the kills, the faulty runs, the uninterrupted runs but the
shared MTurk one) run through the CLI's main() there (bench.chaos_runner.run_here). The runs killed with
SIGKILL, and the shared MTurk one, are processes forked from a server that imported the project once
(tests/forked_hitflow.py, the session's ``hitflow_forks``): each its own process, killed by its pid."""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path

import pandas as pd
import pytest

from bench.chaos import STEPS, Campaign, Reference, clean_run, faulty_campaign, killed_campaign
from bench.chaos_runner import ENV, ROOT, Launch, sim_thread
from bench.chaos_schedule import GRANT, lost_block_campaign
from tests.forked_hitflow import ForkServer

PERFECT = {"duplicate_hits": 0, "lost_answers": 0, "duplicated_answers": 0, "double_decisions": 0,
           "overpaid": "0.00", "dataset_differences": 0, "files_not_byte_identical": []}


@pytest.fixture(scope="module")
def launch(hitflow_forks: ForkServer) -> Launch:
    return hitflow_forks.launcher(ENV, ROOT)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory, launch: Launch) -> Reference:
    # a process of its own, forked from the fork server, an interpreter of its own: the runs compared with it
    # here (a resume, the faulty runs) are made in the test's process, so its bytes and theirs come from
    # interpreters with different hash seeds (a set's order that leaked into an output would show)
    return clean_run(tmp_path_factory.mktemp("chaos") / "clean", limit=20, sim=sim_thread, launch=launch)


@pytest.mark.slow
def test_killed_at_random_moments_then_resumed_equals_an_uninterrupted_run(clean, tmp_path: Path,
                                                                          launch: Launch) -> None:
    rng = random.Random(2026)
    steps = sorted(rng.sample(STEPS, 3), key=STEPS.index)  # three different steps, in the order a run meets them
    result = killed_campaign(tmp_path, clean, steps, rng, limit=20, sim=sim_thread, here=True, launch=launch)
    assert sum(result.pop("kills").values()) >= 2  # the run was really killed (a step can pass unseen)
    assert {k: result[k] for k in PERFECT} == PERFECT
    assert result["spent"] == str(clean.spent)


def test_throttling_server_errors_and_lost_replies_change_nothing(clean, tmp_path: Path) -> None:
    result = faulty_campaign(tmp_path, clean, limit=20, lose_rate="0.05", sim=sim_thread, here=True)
    assert {k: result[k] for k in PERFECT} == PERFECT
    assert result["spent"] == str(clean.spent)


def test_throttling_server_errors_and_lost_replies_change_nothing_on_postgresql(clean, pg_url: str,
                                                                              tmp_path: Path) -> None:
    # The same faults with the ledger in PostgreSQL (skipped, saying why, where no server can start)
    result = faulty_campaign(tmp_path, clean, limit=20, lose_rate="0.05", ledger=pg_url, sim=sim_thread,
                             here=True)
    assert {k: result[k] for k in PERFECT} == PERFECT
    assert result["spent"] == str(clean.spent)


# Links: a kill in "collect" lands in the simulated invitees' round (some submitted, some not). Prolific:
# its participants come from inside the simulator, during the run's calls; those at the pages when the
# run (and its task server) dies leave, as real ones would, so byte equality holds for kills after collect.
ROUTE_KILLS = {"links": ["publish", "collect", "block"], "prolific": ["review", "block", "postprocess"]}


@pytest.mark.slow
@pytest.mark.parametrize("platform", sorted(ROUTE_KILLS))
def test_killed_then_resumed_on_prolific_and_links_writes_the_uninterrupted_runs_bytes(tmp_path: Path,
                                                                                     platform: str,
                                                                                     launch: Launch) -> None:
    clean = clean_run(tmp_path / "clean", limit=20, platform=platform, sim=sim_thread, here=True)
    result = killed_campaign(tmp_path / "killed", clean, ROUTE_KILLS[platform], random.Random(45), limit=20,
                             platform=platform, sim=sim_thread, here=True, launch=launch)
    assert sum(result.pop("kills").values()) >= 2  # the run was really killed
    assert (result["dataset_differences"], result["files_not_byte_identical"]) == (0, [])


@pytest.mark.slow
def test_a_prolific_run_killed_while_people_are_at_its_pages_is_found_again_at_the_same_address(
        tmp_path: Path, launch: Launch) -> None:
    # The study's link names the killed run's task server; a published study's link cannot change.
    # The resumed run's server listened on a new port: every later participant returned the study
    # and the batch ended with no work ("batch 1 got no work"), five resumes in a row.
    with sim_thread() as url:
        c = Campaign(url, tmp_path, 20, platform="prolific", here=True, launch=launch)
        assert [c.kill_during("collect", random.Random(n)) for n in range(2)] == ["collect", "collect"]
        assert c.run_to_end(1) == 1
    dataset = pd.read_csv(tmp_path / "vizwiz_captions" / "dataset.csv")
    assert (dataset.groupby("batch").size() >= 20).all() and sorted(set(dataset["batch"])) == [1, 2, 3, 4, 5]


def test_a_late_block_killed_then_granted_with_its_reply_lost_resumes_to_the_uninterrupted_run(tmp_path: Path,
                                                                                            launch: Launch) -> None:
    # A caption top-up's late review killed as it blocks a worker (before MTurk grants it), the resume
    # killed as MTurk grants it (its reply lost), the next resume killed while the next batch is collected.
    # The resumed runs never sent that block (its work was decided, so no longer late): another dataset,
    # fewer blocks and less spent than the uninterrupted run (make bench-chaos: seed 107, 50 items).
    clean = clean_run(tmp_path / "clean", limit=20, sim=partial(sim_thread, 8), here=True)
    result = lost_block_campaign(tmp_path / "killed", clean, seed=8, limit=20, launch=launch)
    assert result["killed_at"] == [f"before {GRANT}", f"after {GRANT}", "after ListAssignmentsForHIT"]
    assert {k: result[k] for k in PERFECT} == PERFECT
    assert result["spent"] == str(clean.spent)
    assert result["grants_repeated"] == 0  # the grant made with its reply lost is adopted, not made again
