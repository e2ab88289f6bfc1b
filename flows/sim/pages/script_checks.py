"""Word minimums a page states but no control declares ("at least 100 words"), so simulated workers write enough."""

from __future__ import annotations

import re
from functools import lru_cache

from flows.core.pages.mturk_forms import FormField

SAID = re.compile(r"(?:at least|minimum of|minimum|no fewer than|not less than|min\.?)\s+(\d{1,4})\s+words|"
                  r"(\d{1,4})\s*(?:-|\s)\s*words?\s+(?:minimum|or more|at least)", re.I)
COUNTED = re.compile(r"split\([^()]*(?:\([^()]*\)[^()]*)*\)(?:\.filter\([^()]*(?:\([^()]*\)[^()]*)*\))?\.length\s*"
                     r"(<=?)\s*(\d{1,4})")
MOST = 2000  # no page asks a person for more words than this


@lru_cache(maxsize=32)  # once a page, as page_contexts keeps it (the same pages: no more text held)
def word_minimum(html: str) -> int:
    """The fewest words the page's own checks or instructions ask for in its free text; 0 when none."""
    found = [int(m[1] or m[2]) for m in SAID.finditer(html)]
    found += [int(m[2]) + (1 if m[1] == "<=" else 0) for m in COUNTED.finditer(html)]
    found = [n for n in found if 1 < n <= MOST]
    return max(found) if found else 0


def checked_boxes(fields: list[FormField]) -> list[str]:
    """The free-text boxes a page-wide word minimum is about: its text areas, else its text inputs."""
    areas = [f.name for f in fields if f.kind == "textarea" and "readonly" not in f.attrs]
    return areas or [f.name for f in fields if f.kind == "text" and not f.value and "readonly" not in f.attrs]
