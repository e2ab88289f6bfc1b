"""The links route's session: the simulator (whose crowd opens the links), or an endpoint confirmed
with ``live``. The route calls no platform's API (its task server serves the pages, and nobody is
paid through a platform), so its session carries no client.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flows.core.run_context import Session, Target
from flows.platforms.targets import check_target, sim_clock, sim_ground_truth, sim_wait, simulator


@contextmanager
def links_session(target: str, endpoint_url: str, live: bool, seed: int | None, crowd: Path | None,
                  sim_state: Path | None) -> Iterator[Session]:
    check_target(target, endpoint_url, live)
    if target == "sim":
        with simulator(endpoint_url, seed, crowd, sim_state) as t:
            yield Session(t, None, sim_wait(t), lambda: sim_ground_truth(t), sim_clock(t))
        return
    yield Session(Target("endpoint", endpoint_url), None, time.sleep, None)
