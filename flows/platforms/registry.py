"""The one place that maps a platform's name (``--platform``) to its module, and opens its session."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from pathlib import Path
from typing import cast

from flows.core.errors import ConfigError
from flows.core.run.run_context import Session
from flows.platforms import PLATFORMS
from flows.platforms.interface import Platform, PlatformFacts
from flows.platforms.words import RouteWords


def platform_for(name: str) -> Platform:
    """The platform called ``name`` (imported when first asked for); an unknown name is a config error."""
    if name not in PLATFORMS:
        raise ConfigError(f"unknown platform {name!r}; use one of {', '.join(PLATFORMS)}")
    return cast(Platform, import_module(f"flows.platforms.{name}.platform"))


def platform_facts(name: str) -> PlatformFacts:
    """The named platform's facts without importing its client (~0.4 s of CPU), or :class:`UnknownPlatform`."""
    if name not in PLATFORMS:
        return UnknownPlatform(name)
    return cast(PlatformFacts, import_module(f"flows.platforms.{name}.facts"))


class UnknownPlatform:
    """A ledger row's platform this hitflow does not know: shown with nothing posted, rather than failing."""

    SENDS_DECISIONS = WHOLE_MINUTES = False
    WORDS = RouteWords("unit", "units", "response", "responses",
                       "SELECT count(*) AS n, NULL AS places FROM items WHERE campaign = ? AND batch = ? AND 1 = 0")

    def __init__(self, name: str):
        self.NAME = name
        self.LABEL = f"unknown platform {''.join(c for c in name if c.isprintable())[:40]!r}"


@contextmanager
def open_session(target: str = "sim", endpoint_url: str = "", live: bool = False, seed: int | None = 1,
                 crowd: Path | None = None, platform: str = "mturk",
                 sim_state: Path | None = None, sim_start: float | None = None) -> Iterator[Session]:
    """A session: ``sim`` in process (or at ``endpoint_url``), or a paying endpoint with ``live``."""
    with platform_for(platform).open_session(target, endpoint_url, live, seed, crowd, sim_state, sim_start) as session:
        yield session
