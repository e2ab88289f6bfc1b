"""Whether the simulator's browser workers can run here, and their stderr lines (once, not per page)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Debian's (make browser-deps); HITFLOW_CHROMIUM names another. Its headless shell where installed (a third of the CPU)
CHROMIUM = Path("/usr/bin/chromium")
HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
TRIES = 3  # submits a browser worker tries before giving the HIT back


def chromium() -> Path:
    named = os.environ.get("HITFLOW_CHROMIUM")
    return Path(named) if named else HEADLESS_SHELL if HEADLESS_SHELL.is_file() else CHROMIUM


def missing() -> str:
    """'' when browser workers can run here, else why not and the fix (one line)."""
    if not chromium().is_file():
        return f"no Chromium at {chromium()} (install it with `make browser-deps`, or set HITFLOW_CHROMIUM)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (`pip install playwright`, then `make browser-deps`)"
    return ""


def available() -> bool:
    return not missing()


_said: set[str] = set()


def say_once(line: str, key: str = "") -> None:
    """``line`` on stderr unless it (or another under ``key``) was said already in this process."""
    if (key or line) not in _said:
        _said.add(key or line)
        sys.stderr.write(line + "\n")


def failure(exc: Exception) -> str:
    """Playwright's errors carry a multi-line call log: its first line says what failed."""
    return f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0][:200]}"


def say_failed(exc: Exception | str) -> None:
    """One line on stderr for a page a browser worker could not work; the same failure again is not repeated."""
    say_once(f"hitflow sim: a browser worker's page failed ({exc if isinstance(exc, str) else failure(exc)})")


# what a bad profile does that a page's own checks refuse: the refusal is the worker's, not the page's
BEHAVIOUR = {"rule_breaker": "left required fields empty, as the profile does"}


def say_refused(where: str, profile: str = "", told: list[str] | None = None) -> None:
    """One line, once for ``where`` (a HIT type, a study), for workers who filled the page but could not submit:
    the page's defect if honest, their own if bad; each gives its place back, as a person who gives up does.
    ``told``: the box, the words of the page's last refusal and what the box held, where it named them."""
    from flows.sim.people.crowd_model import BAD_PROFILES

    if profile in BAD_PROFILES:  # once for all bad profiles: the first one's behaviour is the example
        did = BEHAVIOUR.get(profile, f"answered as a {profile} does")
        say_once(f"hitflow sim: simulated bad workers give {where} back when the page refuses their submit {TRIES} "
                 f"times (a {profile}: the worker {did}): the page's own check at work, unless a line says honest "
                 "workers do too", key=f"bad:{where}")
        return
    say_once(f"hitflow sim: honest browser workers give {where} back: the page refused the submit {TRIES} times or "
             f"never let them press it{refused_at(told or [])} (its own check, or a required field its controls "
             "never fill; or a value the simulated worker cannot write, the simulator's limit, not the page's); open "
             "the page in Chromium and submit it as a person would", key=f"honest:{where}")  # (each typed their own)


def refused_at(told: list[str]) -> str:
    """", saying "..." about box x (typed as "...")" for a refusal that said something, else ''; ``told``: the box,
    the message and what the box held (retyping.heard)."""
    box, message, typed = [*told, "", "", ""][:3]
    if not message and not box:
        return ""
    said = f', saying "{message}"' if message else ""
    return said + (f" about the box {box}" + (f' (typed as "{typed}")' if typed else "") if box else "")
