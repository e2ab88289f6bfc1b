"""Which platform a run talks to, and how it waits: the simulator by default."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flows.core.errors import ConfigError
from flows.core.run_context import PlatformClient
from flows.platforms.mturk import adapter as mturk


@dataclass
class Session:
    target: mturk.Target
    client: PlatformClient
    wait: Callable[[float], None]
    truth: Callable[[], list[dict[str, Any]]] | None
    clock: Callable[[], float] = time.time  # the platform's clock: wall time, or the simulator's


def check_target(target: str, endpoint_url: str, live: bool) -> None:
    """Refuse closed, unknown or unconfirmed targets before anything starts."""
    mturk.resolve_target(target, endpoint_url)
    if target == "sim":
        if endpoint_url and not live and not is_simulator(endpoint_url):
            raise ConfigError(f"{endpoint_url} does not answer as a hitflow simulator (GET /_sim/health); calls there "
                              "may reach a real platform: pass --target mturk --endpoint-url URL --live to confirm")
        return
    if target != "mturk":
        raise ConfigError(f"unknown target {target!r}; use sim (default) or mturk --endpoint-url URL")
    if not endpoint_url:
        raise ConfigError("target mturk needs --endpoint-url (MTurk itself closed on 2026-09-30)")
    if not live:
        raise ConfigError(f"{endpoint_url} is not the simulator and may spend real money; "
                          "pass --live to confirm (the budget check still applies)")


def sim_state_path(db_path: str | Path, seed: int, crowd: Path | None) -> Path:
    """Where the embedded simulator keeps its marketplace: next to the ledger, one file per
    crowd and seed (``runs/sim/vizwiz_demo-seed1.db`` for the default ledger)."""
    return Path(db_path).parent / "sim" / f"{(crowd.stem if crowd else 'vizwiz_demo')}-seed{seed}.db"


@contextmanager
def open_session(target: str = "sim", endpoint_url: str = "", live: bool = False, seed: int | None = 1,
                 crowd: Path | None = None, platform: str = "mturk",
                 sim_state: Path | None = None) -> Iterator[Session]:
    """``sim``: an in-process simulator (or the one at ``endpoint_url``); ``mturk``: an
    MTurk-compatible endpoint, which may spend real money and so needs ``live``. With
    ``platform="prolific"`` the same simulator answers Prolific's API (``--target prolific``
    is the real one and needs ``live``). ``sim_state``: the in-process simulator loads and
    keeps its marketplace there (``seed=None``: the seed the file was made with); without it
    the marketplace ends with the session."""
    from flows.platforms import platform_for

    with platform_for(platform).open_session(target, endpoint_url, live, seed, crowd, sim_state) as session:
        yield session


@contextmanager
def mturk_session(target: str, endpoint_url: str, live: bool, seed: int | None, crowd: Path | None,
                  sim_state: Path | None) -> Iterator[Session]:
    """MTurk's API: the simulator, or an MTurk-compatible endpoint confirmed with ``live``."""
    check_target(target, endpoint_url, live)
    if target == "sim":
        with simulator(endpoint_url, seed, crowd, sim_state) as t:
            yield _sim_session(t)
        return
    t = mturk.Target("endpoint", endpoint_url)
    yield Session(t, mturk.make_client(t), time.sleep, None)


def is_simulator(endpoint_url: str) -> bool:
    """Whether ``endpoint_url`` answers ``GET /_sim/health`` as a hitflow simulator."""
    import httpx

    try:
        answer = httpx.get(f"{endpoint_url.rstrip('/')}/_sim/health", timeout=5, follow_redirects=False)
        return answer.status_code == 200 and answer.json().get("service") == "hitflow-simulator"
    except (httpx.HTTPError, ValueError, AttributeError):
        return False


@contextmanager
def simulator(endpoint_url: str, seed: int | None, crowd: Path | None,
              state: Path | None = None) -> Iterator[mturk.Target]:
    """The simulator at ``endpoint_url``, or one started in this process for the duration (an
    endpoint must verify as a simulator)."""
    if endpoint_url:
        if not is_simulator(endpoint_url):
            raise ConfigError(f"{endpoint_url} does not answer as a hitflow simulator (GET /_sim/health); "
                              "for any other endpoint pass --target mturk --endpoint-url URL --live")
        yield mturk.Target("sim", endpoint_url.rstrip("/"))
        return
    from flows.sim.server import SimServer

    if state is None:
        with SimServer(seed=seed, crowd_file=crowd) as sim:
            yield mturk.Target("sim", sim.url)
        return
    with _shared_simulator(seed, crowd, state) as sim:
        yield mturk.Target("sim", sim.url, str(state))


_SHARED: dict[Path, list[Any]] = {}  # state file -> [its SimServer, sessions using it]
_SHARED_LOCK = threading.Lock()


@contextmanager
def _shared_simulator(seed: int | None, crowd: Path | None, state: Path) -> Iterator[Any]:
    """Sessions of one process on the same state file (two campaigns in one Prefect process)
    share one simulator: a state file has one owner at a time."""
    from flows.sim.server import SimServer

    key = state.resolve()
    with _SHARED_LOCK:
        entry = _SHARED.get(key)
        if entry is None:
            entry = _SHARED[key] = [SimServer(seed=seed, crowd_file=crowd, state=state).start(), 0]
        elif seed is not None and entry[0].market.seed != seed:
            raise ConfigError(f"simulator state {state} is open here with seed {entry[0].market.seed}, not {seed}")
        entry[1] += 1
    try:
        yield entry[0]
    finally:
        with _SHARED_LOCK:
            entry[1] -= 1
            if entry[1] == 0:
                del _SHARED[key]
                entry[0].stop()


def _sim_session(t: mturk.Target) -> Session:
    def wait(seconds: float) -> None:  # virtual time: the simulator's clock moves, nobody sleeps
        mturk.advance_sim_clock(t, seconds)

    return Session(t, mturk.make_client(t), wait, lambda: mturk.sim_ground_truth(t),
                   lambda: mturk.advance_sim_clock(t, 0))


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
                     crowd: Path | None, sim_state: Path | None) -> Iterator[Session]:
    from flows.platforms.prolific import adapter as prolific

    check_prolific_target(target, endpoint_url, live)
    if target == "prolific":
        url = endpoint_url or prolific.PROLIFIC_URL
        yield Session(mturk.Target("prolific", url), prolific.make_client(url, simulator=False), time.sleep, None)
        return
    with simulator(endpoint_url, seed, crowd, sim_state) as t:
        yield _prolific_sim(t)


def _prolific_sim(t: mturk.Target) -> Session:
    from flows.platforms.prolific import adapter as prolific

    def truth() -> list[dict[str, Any]]:  # the crowd and the panel's newcomers, under their Prolific ids
        return mturk.sim_ground_truth(t, query="platform=prolific")

    plain = _sim_session(t)
    return Session(mturk.Target("sim", t.endpoint_url, t.state), prolific.make_client(t.endpoint_url, simulator=True),
                   plain.wait, truth, plain.clock)


@contextmanager
def simulator_server(speed: float) -> Iterator[str]:
    """A simulator as an HTTP server of its own, for as long as the block runs; yields its URL
    (``serve-schedules`` keeps one up so every scheduled run talks to the same marketplace)."""
    from flows.sim.server import SimServer

    with SimServer(speed=speed) as server:
        yield server.url


def simulated_crowd(crowd_file: Path | None, seed: int) -> tuple[list[Any], dict[str, Any]]:
    """The simulator's crowd (its workers in a seeded mix of profiles, and their caption bank):
    the people the links route invites when no real invitees are named."""
    from flows.sim import crowd
    from flows.sim.server import DEFAULT_CROWD

    workers, bank = crowd.load_crowd(crowd_file or DEFAULT_CROWD, seed=seed)
    return random.Random(seed).sample(workers, len(workers)), bank


def simulate_invitees(links: dict[str, str], people: tuple[list[Any], dict[str, Any]], seed: int) -> dict[str, int]:
    """Each simulated invitee among ``links`` opens their link, fills the page over HTTP and
    submits, as a browser would; the HTTP status each got."""
    from flows.sim.volunteers import volunteer_round

    workers, bank = people
    by_id = {w.worker_id: w for w in workers}
    return volunteer_round({n: u for n, u in links.items() if n in by_id}, by_id, bank, seed)
