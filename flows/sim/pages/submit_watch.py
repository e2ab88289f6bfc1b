"""Whether a browser worker's press of Submit was taken or refused, read from the page itself rather than
from how long its POST took: on a slow or busy host the POST of an accepted submit may come seconds
later, and a wall-clock limit would call that a refusal, so an honest worker would give the page back.

The page keeps one mark (``MARK_SCRIPT``, run before the page's own scripts): "submitted" once its form
was submitted (the submit event not cancelled, or ``form.submit()`` called), "refused" when the page's
own listener cancelled it (a script's own submit event too), the browser's validation stopped it, or the
click on Submit was cancelled.
The last of these wins, so a page that refuses and then submits from a timer counts as submitted."""

from __future__ import annotations

import time
from typing import Any

MARK = "__hitflowSubmit"
MARK_SCRIPT = f"""(() => {{
  const mark = (state) => {{ window.{MARK} = state; }};
  const sent = (form) => (form && form.method === "post" ? "submitted" : "");  // hitflow's answers come by POST
  window.addEventListener("submit", (e) => mark(e.defaultPrevented ? "refused" : sent(e.target)));
  window.addEventListener("invalid", () => mark("refused"), true);
  window.addEventListener("click", (e) => {{
    const hit = e.target && e.target.closest && e.target.closest("[type=submit], #submit-btn");
    if (hit && e.defaultPrevented) mark("refused");
  }});
  const submit = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function () {{ mark(sent(this)); return submit.call(this); }};
  const dispatch = EventTarget.prototype.dispatchEvent;  // a script's own submit event (MTurk's crowd-form)
  EventTarget.prototype.dispatchEvent = function (event) {{
    const taken = dispatch.call(this, event);
    if (event && event.type === "submit") mark(taken ? sent(this) || "submitted" : "refused");
    return taken;
  }};
}})();"""
SUBMITTED_WAIT_S = 60.0  # a submit the page took: its POST is waited for this long (real time) on a slow host
UNMARKED_WAIT_S = 1.5  # no mark (a page whose Submit did nothing it can see): the POST gets this long
POLL_MS = 25


def clear_mark(page: Any) -> None:
    """Forget the last press's outcome before the next press."""
    page.evaluate(f"() => {{ window.{MARK} = ''; }}")


def submit_mark(page: Any) -> str:
    """The page's mark: '', "refused" or "submitted"; "submitted" too while the page is navigating
    away (its document, and the mark, gone: a form that posted)."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        return str(page.evaluate(f"() => window.{MARK} || ''"))
    except PlaywrightError:  # the execution context was destroyed by the form's navigation
        return "submitted"


def posted_request(page: Any, posts: list[Any]) -> Any | None:
    """The POST the last press of Submit made, or None when the page refused it: as soon as the page
    says so, or when no POST came within the wait its mark allows."""
    started = time.monotonic()
    while not posts:
        mark = submit_mark(page)
        if mark == "refused":
            return None
        if time.monotonic() - started > (SUBMITTED_WAIT_S if mark else UNMARKED_WAIT_S):
            return None
        page.wait_for_timeout(POLL_MS)
    return posts[0]
