"""The short chaos suite (the long one is ``make bench-chaos``): kill -9 of ``hitflow run`` against
``hitflow sim serve`` in its own process, then resume; and a run under throttling, server errors
and lost replies, with its ledger in SQLite and in PostgreSQL. Each is checked against the platform
and an uninterrupted run with the same seed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench.chaos import STEPS, Reference, clean_run, faulty_campaign, killed_campaign

PERFECT = {"duplicate_hits": 0, "lost_answers": 0, "duplicated_answers": 0, "double_decisions": 0,
           "overpaid": "0.00", "dataset_differences": 0, "files_not_byte_identical": []}


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    return clean_run(tmp_path_factory.mktemp("chaos") / "clean", limit=20)


@pytest.mark.slow
def test_killed_at_random_moments_then_resumed_equals_an_uninterrupted_run(clean, tmp_path: Path) -> None:
    rng = random.Random(2026)
    steps = sorted(rng.sample(STEPS, 3), key=STEPS.index)  # three different steps, in the order a run meets them
    result = killed_campaign(tmp_path, clean, steps, rng, limit=20)
    assert sum(result.pop("kills").values()) >= 2  # the run was really killed (a step can pass unseen)
    assert {k: result[k] for k in PERFECT} == PERFECT
    assert result["spent"] == str(clean.spent)


def test_throttling_server_errors_and_lost_replies_change_nothing(clean, tmp_path: Path) -> None:
    result = faulty_campaign(tmp_path, clean, limit=20, lose_rate="0.05")
    assert {k: result[k] for k in PERFECT} == PERFECT
    assert result["spent"] == str(clean.spent)


def test_throttling_server_errors_and_lost_replies_change_nothing_on_postgresql(clean, pg_url: str,
                                                                              tmp_path: Path) -> None:
    # The same faults with the ledger in PostgreSQL (skipped, saying why, where no server can start)
    result = faulty_campaign(tmp_path, clean, limit=20, lose_rate="0.05", ledger=pg_url)
    assert {k: result[k] for k in PERFECT} == PERFECT
    assert result["spent"] == str(clean.spent)
