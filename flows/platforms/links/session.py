"""The links route's session: the simulator, or an endpoint confirmed with ``live``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flows.core.run.run_context import Session, Target
from flows.platforms.targets import check_target, sim_clock, sim_ground_truth, sim_wait, simulator


@contextmanager
def links_session(target: str, endpoint_url: str, live: bool, seed: int | None, crowd: Path | None,
                  sim_state: Path | None, sim_start: float | None = None) -> Iterator[Session]:
    check_target(target, endpoint_url, live)
    if target == "sim":
        with simulator(endpoint_url, seed, crowd, sim_state, sim_start) as t:
            if endpoint_url:  # a served simulator's clock runs by itself (`hitflow sim serve --speed`)
                yield Session(t, None, sim_wait(t), lambda: sim_ground_truth(t), sim_clock(t))
                return
            # An embedded simulator's clock moves only while a run waits; the people here answer on the wall clock.
            yield Session(t, None, time.sleep, lambda: sim_ground_truth(t), time.time)
        return
    yield Session(Target("endpoint", endpoint_url), None, time.sleep, None)
