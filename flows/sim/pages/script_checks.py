"""Word minimums a page states but no control declares ("at least 100 words"), so simulated workers write enough."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from flows.core.pages.mturk_forms import FormField

SAID = re.compile(r"(?:at least|minimum of|minimum|no fewer than|not less than|min\.?)\s+(\d{1,4})\s+words|"
                  r"(\d{1,4})\s*(?:-|\s)\s*words?\s+(?:minimum|or more|at least)", re.I)
COUNTED = re.compile(r"split\([^()]*(?:\([^()]*\)[^()]*)*\)(?:\.filter\([^()]*(?:\([^()]*\)[^()]*)*\))?\.length\s*"
                     r"(<=?)\s*(\d{1,4})")
MOST = 2000  # no page asks a person for more words than this
# SAID tries both its readings at every character of a page (re.I leaves the engine no first letter to skip to):
# it is read only in the runs of characters a match of it can hold (RUN's) around a "word" (each match holds one)
RUN = re.compile(r"[\w\s.\-]*")
WORD = re.compile("word", re.I)  # as SAID's "words?" reads it
BACK = 256  # characters looked back at first for the start of a run


@lru_cache(maxsize=32)  # once a page, as page_contexts keeps it (the same pages: no more text held)
def word_minimum(html: str) -> int:
    """The fewest words the page's own checks or instructions ask for in its free text; 0 when none."""
    found = [int(m[1] or m[2]) for start, end in said_runs(html) for m in SAID.finditer(html, start, end)]
    found += [int(m[2]) + (1 if m[1] == "<=" else 0) for m in COUNTED.finditer(html)]
    found = [n for n in found if 1 < n <= MOST]
    return max(found) if found else 0


def said_runs(html: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of RUN's characters that holds a "word": SAID matches there and nowhere else (a
    match lies in one run, and the runs are apart, so reading them finds what reading the whole page finds)."""
    end = 0
    for word in WORD.finditer(html):
        if word.start() < end:
            continue  # in the run just read
        start = _run_start(html, word.start(), end)
        end = _run_end(html, word.start())
        yield start, end


def _run_start(html: str, at: int, floor: int) -> int:
    """Where the run of RUN's characters that reaches ``at`` starts (never before ``floor``)."""
    back = BACK
    while True:
        low = max(floor, at - back)
        before = html[low:at][::-1]
        held = _run_end(before, 0)
        if held < len(before) or low == floor:
            return at - held
        back *= 4


def _run_end(text: str, at: int) -> int:
    """Where the run of RUN's characters from ``at`` ends."""
    run = RUN.match(text, at)
    return run.end() if run else at  # (a run of none matches too)


def checked_boxes(fields: list[FormField]) -> list[str]:
    """The free-text boxes a page-wide word minimum is about: its text areas, else its text inputs."""
    areas = [f.name for f in fields if f.kind == "textarea" and "readonly" not in f.attrs]
    return areas or [f.name for f in fields if f.kind == "text" and not f.value and "readonly" not in f.attrs]
