"""The import's script probe on the test process's shared Chromium (tests/conftest.py installs it for the session).

A `hitflow new --from page.html` (and a dry run's check of the page's script) asks the rendered page in Chromium
(flows/sim/pages/script_probe.py). In its own process it launches a Playwright driver and a Chromium for that one
page and closes them (~1.6 s of CPU, ~0.3 s of it the page); a test process imports hundreds of pages through
`main()`. Here the same question (``_asked_in``, in a context of its own) goes to the browser workers' thread, whose
Chromium serves every module of the test process (tests/conftest.py closes it at the session's end). The launch itself
stays covered where the import is a process of its own (tests/test_docs_examples.py's pages, the fork server)."""

from __future__ import annotations

import functools
import threading
from typing import Any

from flows.sim.pages import script_probe
from flows.sim.pages.browser_thread import SETTLE_S, BrowserThread


@functools.lru_cache(maxsize=8)  # as script_probe._launched: a page imported again in one process is not asked again
def asked_on_shared_thread(html: str) -> script_probe.Found:
    """``script_probe._launched``'s answer, asked in the shared thread's Chromium instead of one launched for it."""
    done, out = threading.Event(), []

    def job(browser: Any) -> None:
        try:
            out.append(script_probe._asked_in(browser, html) if browser is not None
                       else script_probe.Found(problem="Chromium failed (the browser thread ended)"))
        finally:
            done.set()
    BrowserThread.submit(job)
    if not done.wait(SETTLE_S) or not out:
        return script_probe.Found(problem=f"Chromium failed (no answer within {SETTLE_S:.0f} s)")
    return out[0]
