"""The suite's runs draw no report figure unless their module reads one: most test files run campaigns
whose plots nobody looks at (a run's four to six figures were a quarter or more of its CPU, ~45 s of the
suite's). Every output is still written, with "" where a plot would be, as a dry run's rehearsal writes it.

``figures_unseen_by_default`` (conftest's, session-wide) puts in flows/core/outputs/figures.py's ``UNSEEN``
a variable whose default is True: in every thread, also those a test or the simulator starts with an empty
context (a variable set in the main thread would not reach them). A module that reads a figure (or compares
reports that hold them) imports ``figures_seen``: its runs get the project's own variable back, and draw as a
user's do; its forked ``hitflow`` commands draw too (``figures_drawn``, tests/forked_hitflow.py)."""

from __future__ import annotations

import contextvars
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.figures_unseen_site.unseen_finder import FIGURES, UnseenOnceImported

UNSEEN = contextvars.ContextVar("figures_unseen", default=True)  # in place of the project's (default False)
SEEN: list[contextvars.ContextVar[bool]] = []  # the project's, once replaced
SITE = Path(__file__).resolve().parent / "figures_unseen_site"


def unseen_by_default(figures: Any) -> None:
    """``figures``' runs draw nothing from now on, unless a run (or ``figures_seen``) says otherwise."""
    if figures.UNSEEN is not UNSEEN:
        SEEN[:] = [figures.UNSEEN]
        figures.UNSEEN = UNSEEN


def figures_unseen(env: dict[str, str]) -> dict[str, str]:
    """``env`` for a process a test starts whose Python processes (it and what it starts) draw no report figure:
    the folder whose ``sitecustomize`` makes them unseen first on ``PYTHONPATH``."""
    return {**env, "PYTHONPATH": os.pathsep.join(p for p in (str(SITE), env.get("PYTHONPATH", "")) if p)}


def figures_drawn() -> bool:
    """Whether a run started here now draws its figures (a forked command is told so)."""
    figures = sys.modules.get(FIGURES)
    if figures is None:  # not imported yet: drawn unless this session makes them unseen once it is
        return not any(isinstance(finder, UnseenOnceImported) for finder in sys.meta_path)
    return not figures.UNSEEN.get()


@pytest.fixture(scope="session", autouse=True)
def figures_unseen_by_default() -> Iterator[None]:
    """Autouse in conftest: before any module's fixtures, for the whole session."""
    finder = UnseenOnceImported(unseen_by_default)
    if FIGURES in sys.modules:
        unseen_by_default(sys.modules[FIGURES])
    else:
        sys.meta_path.insert(0, finder)
    yield
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
    if SEEN and FIGURES in sys.modules:
        sys.modules[FIGURES].UNSEEN = SEEN[0]  # type: ignore[attr-defined]


@pytest.fixture(scope="module", autouse=True)
def figures_seen(figures_unseen_by_default: None) -> Iterator[None]:
    """Autouse where imported: the module's runs draw their figures, as a user's do (the project's variable,
    in every thread), from before its own campaign fixtures run until after its last test."""
    from flows.core.outputs import figures

    replaced = figures.UNSEEN
    figures.UNSEEN = SEEN[0] if SEEN else replaced
    try:
        yield
    finally:
        figures.UNSEEN = replaced
