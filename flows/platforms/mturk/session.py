"""MTurk's session: its API on the simulator, or an MTurk-compatible endpoint confirmed with ``live``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flows.core.run.run_context import Session, Target
from flows.platforms.mturk import adapter as mturk
from flows.platforms.targets import check_target, sim_clock, sim_ground_truth, sim_wait, simulator


@contextmanager
def mturk_session(target: str, endpoint_url: str, live: bool, seed: int | None, crowd: Path | None,
                  sim_state: Path | None, sim_start: float | None = None) -> Iterator[Session]:
    """MTurk's API: the simulator, or an MTurk-compatible endpoint confirmed with ``live``."""
    check_target(target, endpoint_url, live)
    if target == "sim":
        with simulator(endpoint_url, seed, crowd, sim_state, sim_start) as t:
            yield sim_session(t)
        return
    t = Target("endpoint", endpoint_url)
    yield Session(t, mturk.make_client(t), time.sleep, None)


def sim_session(t: Target) -> Session:
    return Session(t, mturk.make_client(t), sim_wait(t), lambda: sim_ground_truth(t), sim_clock(t))
