"""Prolific's session: its API on the simulator (``sim``), or Prolific itself (``prolific``, only with ``live``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flows.core.errors import ConfigError
from flows.core.run.run_context import Session, Target
from flows.platforms.prolific import adapter as prolific
from flows.platforms.targets import check_target, sim_clock, sim_ground_truth, sim_wait, simulator


def check_prolific_target(target: str, endpoint_url: str, live: bool) -> None:
    """Prolific's API on the simulator (``sim``), or Prolific itself (``prolific``, only with ``live``)."""
    if target == "sim":
        check_target(target, endpoint_url, live)
        return
    if target != "prolific":
        raise ConfigError(f"with --platform prolific the target is sim (default) or prolific, not {target!r}")
    if not live:
        raise ConfigError("--target prolific publishes real studies and pays real participants; pass --live "
                          "to confirm (the budget and hourly-pay checks still apply). Prolific has no sandbox: "
                          "rehearse with --target sim")


@contextmanager
def prolific_session(target: str, endpoint_url: str, live: bool, seed: int | None,
                     crowd: Path | None, sim_state: Path | None, sim_start: float | None = None) -> Iterator[Session]:
    check_prolific_target(target, endpoint_url, live)
    if target == "prolific":
        url = endpoint_url or prolific.PROLIFIC_URL
        yield Session(Target("prolific", url), prolific.make_client(url, simulator=False), time.sleep, None)
        return
    with simulator(endpoint_url, seed, crowd, sim_state, sim_start) as t:
        yield _prolific_sim(t)


def _prolific_sim(t: Target) -> Session:
    def truth() -> list[dict[str, Any]]:  # the crowd and the panel's newcomers, under their Prolific ids
        return sim_ground_truth(t, query="platform=prolific")

    return Session(Target("sim", t.endpoint_url, t.state), prolific.make_client(t.endpoint_url, simulator=True),
                   sim_wait(t), truth, sim_clock(t))
