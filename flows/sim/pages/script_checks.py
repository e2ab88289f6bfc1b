"""A page's own submit checks that no control declares, read as a person reads them: a
script that refuses a summary under 100 words, and instructions that say "at least 100 words". A person
writes 100 words; so does a simulated worker, in its own item's words (flows/sim/people/summaries.py).

Read from the page's visible text ("at least N words", "a minimum of N words", "N words or more") and its
scripts (a word count, ``value.split(...).length < N``, or its message). Only word minimums are read:
a check the simulator cannot read stays a check the simulated crowd may fail, and the dry run's trial
says so in those words, never that no person can pass it (flows/sim/pages/browser_trial.py).
"""

from __future__ import annotations

import re

from flows.core.pages.mturk_forms import FormField

SAID = re.compile(r"(?:at least|minimum of|minimum|no fewer than|not less than|min\.?)\s+(\d{1,4})\s+words|"
                  r"(\d{1,4})\s*(?:-|\s)\s*words?\s+(?:minimum|or more|at least)", re.I)
COUNTED = re.compile(r"split\([^()]*(?:\([^()]*\)[^()]*)*\)(?:\.filter\([^()]*(?:\([^()]*\)[^()]*)*\))?\.length\s*"
                     r"(<=?)\s*(\d{1,4})")
MOST = 2000  # no page asks a person for more words than this


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
