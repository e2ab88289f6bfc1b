"""The target choice every platform shares; the simulator is reached only here."""

from __future__ import annotations

import json
import random
import threading
import urllib.error
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flows.core.db_url import is_postgres_url
from flows.core.errors import ClosedEndpointError, ConfigError, PlatformError
from flows.core.run.run_context import Target
from flows.platforms.clock_line import MAX_LIST_BYTES, call, post_json
from flows.platforms.sim_probe import is_simulator


def check_target(target: str, endpoint_url: str, live: bool) -> None:
    """Refuse closed, unknown or unconfirmed targets before anything starts."""
    resolve_target(target, endpoint_url)
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
    """The embedded simulator's marketplace file beside the ledger, shared by the folder's campaigns."""
    folder = Path("runs") / "sim" if is_postgres_url(db_path) else Path(db_path).parent / "sim"
    default = crowd_file_used(None)
    own = crowd if crowd is not None and crowd.resolve() != default.resolve() else None
    named = folder / (f"marketplace-{own.stem}-seed{seed}.db" if own else f"marketplace-seed{seed}.db")
    before = folder / f"{(crowd or default).stem}-seed{seed}.db"
    return before if before.is_file() and not named.exists() else named


@contextmanager
def simulator(endpoint_url: str, seed: int | None, crowd: Path | None,
              state: Path | None = None, start: float | None = None) -> Iterator[Target]:
    """The simulator at ``endpoint_url`` (verified), or one in this process for the duration."""
    if endpoint_url:
        if not is_simulator(endpoint_url):
            raise ConfigError(f"{endpoint_url} does not answer as a hitflow simulator (GET /_sim/health); "
                              "for any other endpoint pass --target mturk --endpoint-url URL --live")
        yield Target("sim", endpoint_url.rstrip("/"))
        return
    from flows.sim.service.server import SimServer

    if state is None:
        with SimServer(seed=seed, crowd_file=crowd, start=start) as sim:
            yield Target("sim", sim.url)
        return
    with _shared_simulator(seed, crowd, state, start) as sim:
        yield Target("sim", sim.url, str(state))


@contextmanager
def held_briefly() -> Iterator[None]:
    """Simulator files opened in the block are held briefly (a review page lets go when idle): a run waits."""
    from flows.sim.service.state_lock import HELD_BRIEFLY

    token = HELD_BRIEFLY.set(True)
    try:
        yield
    finally:
        HELD_BRIEFLY.reset(token)


_SHARED: dict[Path, list[Any]] = {}  # state file -> [its SimServer, sessions using it]
_SHARED_LOCK = threading.Lock()


@contextmanager
def _shared_simulator(seed: int | None, crowd: Path | None, state: Path, start: float | None) -> Iterator[Any]:
    """Sessions of one process on the same state file share one simulator (a file has one owner)."""
    from flows.sim.service.server import SimServer

    key = state.resolve()
    with _SHARED_LOCK:
        entry = _SHARED.get(key)
        if entry is None:
            entry = _SHARED[key] = [SimServer(seed=seed, crowd_file=crowd, state=state, start=start).start(), 0]
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


def sim_wait(t: Target) -> Callable[[float], None]:
    """Waiting on the simulator: its virtual clock moves on, nobody sleeps."""
    def wait(seconds: float) -> None:
        advance_sim_clock(t, seconds)

    return wait


def sim_clock(t: Target) -> Callable[[], float]:
    """The simulator's clock (its virtual now)."""
    return lambda: advance_sim_clock(t, 0)


@contextmanager
def simulator_server(speed: float) -> Iterator[str]:
    """A simulator as an HTTP server of its own while the block runs; yields its URL."""
    from flows.sim.service.server import SimServer

    with SimServer(speed=speed) as server:
        yield server.url


def crowd_file_used(crowd_file: Path | None) -> Path:
    """The crowd file the simulator loads: the one given, else its built-in demo crowd."""
    from flows.sim.people.crowd_keys import DEFAULT_CROWD

    return crowd_file or DEFAULT_CROWD


def simulated_crowd(crowd_file: Path | None, seed: int) -> tuple[list[Any], dict[str, Any]]:
    """The simulator's crowd: the people the links route invites when no real invitees are named."""
    from flows.sim.people import crowd
    from flows.sim.people.crowd_keys import DEFAULT_CROWD

    workers, bank = crowd.load_crowd(crowd_file or DEFAULT_CROWD, seed=seed)
    return random.Random(seed).sample(workers, len(workers)), bank


def simulate_invitees(links: dict[str, str], people: tuple[list[Any], dict[str, Any]], seed: int, round_no: int,
                      start: float, at: Callable[[float], None] | None, done: frozenset[str]) -> dict[str, int]:
    """Simulated invitees of ``links`` not ``done`` submit over HTTP on round ``round_no``; each HTTP status."""
    from flows.sim.pages.volunteers import volunteer_round

    workers, bank = people
    by_id = {w.worker_id: w for w in workers}
    return volunteer_round({n: u for n, u in links.items() if n in by_id}, by_id, bank, seed, start, at, round_no, done)


CLOSED_MESSAGE = ("Amazon Mechanical Turk closed permanently on 2026-09-30; its {which} endpoint is gone. "
                  "Use --target sim (the built-in simulator) or --endpoint-url URL for an MTurk-compatible "
                  "endpoint; Prolific and self-hosted links are the live routes.")


def check_endpoint(url: str) -> None:
    lowered = url.lower()
    if "mturk-requester-sandbox" in lowered:
        raise ClosedEndpointError(CLOSED_MESSAGE.format(which="sandbox"))
    if "mturk-requester" in lowered and "amazonaws.com" in lowered:
        raise ClosedEndpointError(CLOSED_MESSAGE.format(which="production"))


def resolve_target(name: str, endpoint_url: str = "") -> None:
    """Refuse MTurk's own endpoints by name or URL before anything is built."""
    if name in ("production", "mturk-production", "live"):
        raise ClosedEndpointError(CLOSED_MESSAGE.format(which="production"))
    if name in ("sandbox", "mturk-sandbox"):
        raise ClosedEndpointError(CLOSED_MESSAGE.format(which="sandbox"))
    if endpoint_url:
        check_endpoint(endpoint_url)


CLOCK_TIMEOUT_S = 330  # the clock waits up to 300 s for its browser workers' pages (browser_worker.py SETTLE_S)


def advance_sim_clock(target: Target, seconds: float) -> float:
    """Move the simulator's virtual clock on; only meaningful for the simulator."""
    try:  # on the thread's kept connection: a run makes thousands of these calls
        body = post_json(f"{target.endpoint_url}/_sim/clock", json.dumps({"advance_seconds": seconds}).encode(),
                         CLOCK_TIMEOUT_S)
    except TimeoutError as exc:  # one line, not "unexpected TimeoutError": what was posted stays in the ledger
        raise PlatformError(f"the simulator's clock did not move within {CLOCK_TIMEOUT_S} s (its browser workers "
                            "still at the pages?); run again: the HITs already posted are adopted, not posted "
                            "twice") from exc
    except urllib.error.URLError as exc:  # refused, an error status, not an HTTP reply: one line, not a path's
        raise PlatformError(f"the simulator's clock call failed ({_reply(str(exc.reason).encode())}): is it still "
                            "running at the endpoint URL? Run again: the HITs already posted are adopted") from exc
    try:
        return float(json.loads(body)["now"])
    except (ValueError, KeyError, TypeError, IndexError, RecursionError) as exc:  # {} from a fake simulator
        raise PlatformError(f"the simulator answered its clock call without a time ({_reply(body)}): is the "
                            "endpoint URL hitflow's simulator (hitflow sim)? Run again against one") from exc


def _reply(body: bytes) -> str:
    """A reply as a one-line excerpt: printable characters only, at most 60."""
    text = body[:200].decode("utf-8", errors="replace")
    return "".join(c for c in text if c.isprintable())[:60] or "an empty reply"


def _sim_list(body: bytes, what: str) -> list[dict[str, Any]]:
    try:
        value = json.loads(body)
    except (ValueError, RecursionError) as exc:
        value = exc
    if not isinstance(value, list):
        raise PlatformError(f"the simulator's {what} are not a JSON list ({_reply(body)}): is the endpoint URL "
                            "hitflow's simulator (hitflow sim)?")
    return value


def _sim_call(target: Target, method: str, route: str, body: bytes | None, timeout: float) -> bytes:
    """A call to the simulator's ``route`` within clock_line's bounds; a failure (timeout, error status) is one line."""
    try:
        return call(method, f"{target.endpoint_url}{route}", body, timeout, MAX_LIST_BYTES)
    except (TimeoutError, urllib.error.URLError) as exc:  # HTTPError too
        raise PlatformError(f"the simulator's {method} {route.split('?')[0]} failed ({type(exc).__name__}, "
                            f"{timeout:.0f} s allowed): is the endpoint hitflow's simulator (hitflow sim)?") from exc


def sim_ground_truth(target: Target, query: str = "") -> list[dict[str, Any]]:
    """The simulated crowd's profiles; ``query="platform=prolific"``: the Prolific panel, under its ids."""
    return _sim_list(_sim_call(target, "GET", "/_sim/workers" + (f"?{query}" if query else ""), None, 30), "workers")


def give_sim_known_answers(target: Target, rows: list[dict[str, str]], campaign: str) -> None:
    """The requester's known answers (``item_id, field, answer``) for ``campaign``'s pages (campaign_scope.py)."""
    _sim_call(target, "POST", "/_sim/truth", json.dumps({"scope": campaign, "answers": rows}).encode(), 60)


def add_known_to_crowd(people: tuple[list[Any], dict[str, Any]], rows: list[dict[str, str]]) -> None:
    """The same answers for an in-process crowd (the links route's invitees): into its bank."""
    from flows.sim.people.known_answers import add_known

    add_known(people[1], rows)


def crowd_item_truth(people: tuple[list[Any], dict[str, Any]]) -> list[dict[str, Any]]:
    """The latent answers an in-process crowd (the links route's invitees) gave its choices."""
    from flows.sim.people.latent_choices import item_truth

    return item_truth(people[0])


def sim_item_truth(target: Target, campaign: str | None = None) -> list[dict[str, Any]]:
    """The latent answer (``item_id, field, answer``) of every choice shown on ``campaign``'s pages."""
    query = f"?{urllib.parse.urlencode({'scope': campaign})}" if campaign is not None else ""
    return _sim_list(_sim_call(target, "GET", f"/_sim/items{query}", None, 30), "items")


def sim_uncaptioned(crowd_file: Path, item_ids: list[str]) -> list[str]:
    """The items whose image the crowd's bank holds no caption of (written content-blind)."""
    from flows.sim.people.crowd import load_crowd
    from flows.sim.people.unseen_images import uncaptioned

    bank = load_crowd(crowd_file)[1]
    return [item for item in item_ids if uncaptioned(item, bank)]


def sim_unseen_on_page(crowd_file: Path, page_html: str) -> list[str]:
    """The items of a rendered page whose image the crowd's caption bank does not hold, as its workers read them."""
    from flows.sim.people.crowd import load_crowd
    from flows.sim.people.unseen_images import unseen_on_page

    return unseen_on_page(page_html, load_crowd(crowd_file)[1])


def sim_browser_missing() -> str:
    """'' when the simulator's browser workers can run on this machine, else why not and the fix."""
    from flows.sim.pages.browser_check import missing
    return missing()


def sim_browser_trial(page_html: str) -> tuple[str, str]:
    """How an honest simulated worker fared with the rendered page in Chromium: (what stops every worker, what
    stopped the simulated one only and wants a person's check), '' each where it submitted."""
    from flows.sim.pages.browser_trial import trial_outcome
    outcome = trial_outcome(page_html)
    return outcome.problem, outcome.warning


def sim_script_requires(page_html: str, browser: Any = None) -> Any:
    """What the rendered page's own script refuses to submit blank (flows/sim/pages/script_probe.py's Found)."""
    from flows.sim.pages.script_probe import script_requires
    return script_requires(page_html, browser)
