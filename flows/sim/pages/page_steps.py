"""A page of steps worked as a person does; required controls never shown are what no person could answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

NEXT_WORDS = re.compile(r"^\W*(next|continue|weiter|suivant|siguiente|volgende)\b|^\W*(→|»|>)\W*$", re.I)
MAX_STEPS = 30  # a page of steps longer than this is not walked further (a "Next" that never runs out)
# an element a person sees: it takes room on the page
SHOWN = "const shown = (e) => !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length);"
# the page's required controls by name: (all of them, those a person sees now or sets by a label they see: a star
# or a chip drawn by the <label> of a radio or checkbox the page's CSS hides)
REQUIRED_JS = """() => { const all = Array.from(document.querySelectorAll("form [required][name]"))
    .filter((e) => e.type !== "hidden");
  """ + SHOWN + """
  const set = (e) => shown(e) || (/^(radio|checkbox)$/.test(e.type) && Array.from(e.labels || []).some(shown));
  return [all.map((e) => e.name), all.filter(set).map((e) => e.name)]; }"""


def walk_steps(page: Any, fill: Callable[[set[str]], set[str]]) -> list[str]:
    """Run ``fill``, press each "Next", fill what came in view; returns required controls never seen, in page order."""
    done = fill(set())
    everyone, seen = _required(page, set())
    for _ in range(MAX_STEPS):
        step = _next_control(page)
        if step is None:
            break
        step.click()
        page.clock.run_for(500)  # a step shown after a transition gets its time
        done = fill(done)
        everyone, seen = _required(page, seen)
    return [n for n in dict.fromkeys(everyone) if n not in seen]


def _required(page: Any, seen: set[str]) -> tuple[list[str], set[str]]:
    everyone, shown = page.evaluate(REQUIRED_JS)
    return everyone, seen | set(shown)


def _next_control(page: Any) -> Any | None:
    """The page's visible "Next" / "Continue" (a button, or a link that stays on the page), or None."""
    found = page.get_by_role("button", name=NEXT_WORDS).or_(page.get_by_role("link", name=NEXT_WORDS)).or_(
        page.locator("a:not([href]), [role=button]").filter(has_text=NEXT_WORDS))
    for k in range(found.count()):
        control = found.nth(k)
        href = (control.get_attribute("href") or "#").strip().lower()
        if control.is_visible() and control.is_enabled() and href.startswith(("#", "javascript:")):
            return control
    return None
