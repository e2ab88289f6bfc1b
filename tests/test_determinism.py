"""One seed, one dataset: two rehearsals with the same seed and inputs, each on a
fresh ledger, output folder and embedded simulator, write the same bytes (dataset, flags, blocked
workers, answers, report), on MTurk's, Prolific's and the invite links' routes (the simulator's
crowd opening the links), with and without Prefect.

The report names its run's folder (the simulator's state file beside the ledger); that path is the
one thing replaced before comparing. The 4,000-image check is ``make bench-determinism``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from flows.driver.campaign_run import run_campaign
from tests.small_configs import small_vizwiz
from tests.unseen_figures import figures_seen  # noqa: F401  (autouse: the compared reports hold PNGs)

CLOCK = "[target]\nsim_start = 2025-03-01T08:00:00Z\n"
COMPARED = ("dataset.csv", "flags.csv", "blocked_workers.csv", "answers.csv", "report.html")


def outputs(root: Path, campaign: str = "vizwiz_captions") -> dict[str, bytes]:
    """The compared files of a finished run under ``root``, its own folder's name replaced."""
    folder = root / "out" / campaign
    return {name: (folder / name).read_bytes().replace(str(root).encode(), b"RUN") for name in COMPARED}


def rehearse(config: Path, root: Path, platform: str = "mturk") -> dict[str, bytes]:
    run_campaign(config, db_path=root / "h.db", out_root=root / "out", limit=20, platform=platform,
                 progress=lambda line: None)
    return outputs(root)


def rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode())))


def assert_same(first: dict[str, bytes], second: dict[str, bytes]) -> None:
    dataset = rows(first["dataset.csv"])
    assert len(dataset) >= 60  # a real run's captions (20 images, 5 or more each, less the rejected), not empty files
    assert rows(first["flags.csv"]) and rows(first["answers.csv"])  # QC flagged something; answers were aggregated
    assert b"data:image/png;base64,iVBORw0KGgo" in first["report.html"]  # the reports compared hold drawn PNGs
    different = {name: first_difference(first[name], second[name]) for name in COMPARED if first[name] != second[name]}
    assert different == {}


def first_difference(a: bytes, b: bytes) -> str:
    """Where two files part (for the failure's message)."""
    for line_a, line_b in zip(a.splitlines(), b.splitlines(), strict=False):
        if line_a != line_b:
            at = next(i for i, (x, y) in enumerate(zip(line_a, line_b, strict=False)) if x != y) if \
                any(x != y for x, y in zip(line_a, line_b, strict=False)) else min(len(line_a), len(line_b))
            return f"{line_a[max(0, at - 120):at + 120]!r} != {line_b[max(0, at - 120):at + 120]!r}"
    return f"{len(a)} bytes != {len(b)} bytes"


@pytest.mark.slow
@pytest.mark.prefect
@pytest.mark.parametrize("platform", ["mturk", "prolific", "links"])
def test_two_rehearsals_with_one_seed_with_and_without_prefect_write_the_same_bytes(
        tmp_path: Path, on_prefect_server: str, platform: str) -> None:
    # One comparison a route: the second rehearsal is the Prefect run, so equal bytes show both that one
    # seed gives one dataset and that Prefect changes nothing (a second plain rehearsal, compared too,
    # ran in the same process with the same hash seed: it showed nothing this one does not)
    from flows.driver.campaign_flow import whole_campaign  # here: only a Prefect test imports it

    # 4 HITs in 2 batches: each step of the route, what comes between batches and each output, compared
    # (5 batches of one HIT made the same steps more times); the virtual clock set in the config (a run of its
    # own in a test of its own before: this run's report says when it started as well)
    config = small_vizwiz(tmp_path, items=20, edits={"batches = 5 ": "batches = 2 ", "[target]\n": CLOCK})
    plain = rehearse(config, tmp_path / "a", platform)
    root = tmp_path / "b"
    state = whole_campaign(config_path=str(config), db_path=str(root / "h.db"), out_root=str(root / "out"),
                            limit=20, platform=platform, return_state=True)
    assert state.is_completed()
    assert_same(plain, outputs(root))
    # the config's virtual clock, not today's date
    assert b"Created 2025-03-01 08:00 UTC; work came in from 2025-03-01" in plain["report.html"]

