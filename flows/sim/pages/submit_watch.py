"""Whether a Submit press was taken or refused, read from a mark the page keeps (``MARK_SCRIPT``), not from timing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
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
    """The page's mark: '', "refused" or "submitted" (also while navigating away: a form that posted)."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        return str(page.evaluate(f"() => window.{MARK} || ''"))
    except PlaywrightError:  # the execution context was destroyed by the form's navigation
        return "submitted"


def posted_request(page: Any, posts: list[Any]) -> Any | None:
    """The POST the last Submit press made, or None once the page refused it or no POST came within the wait."""
    started = time.monotonic()
    while not posts:
        mark = submit_mark(page)
        if mark == "refused":
            return None
        if time.monotonic() - started > (SUBMITTED_WAIT_S if mark else UNMARKED_WAIT_S):
            return None
        page.wait_for_timeout(POLL_MS)
    return posts[0]


SHOWN_JS = "() => document.body ? document.body.innerText.split('\\n').map(s => s.trim()).filter(Boolean) : []"
# what a refused press told the worker: the browser's own message on an invalid box, else lines the press made
# appear; the box is the invalid one, else the one the page's script focused
TOLD_JS = """(before) => {
  const bad = document.querySelector('input:invalid, textarea:invalid, select:invalid');
  const at = document.activeElement;
  const box = bad || (at && at.name && at.matches('input, textarea, select') ? at : null);
  const old = new Set(before);
  const fresh = (document.body ? document.body.innerText.split('\\n') : []).map(s => s.trim())
    .filter(s => s && !old.has(s));
  return [box ? box.name : '', bad ? bad.validationMessage : fresh.join(' ').slice(0, 300)];
}"""


@contextmanager
def alerts_read(page: Any) -> Iterator[list[str]]:
    """The words of the page's alert()s while one worker has it, each closed as a person clicks OK."""
    said: list[str] = []

    def read(dialog: Any) -> None:
        said.append(dialog.message)
        dialog.dismiss()
    page.on("dialog", read)
    try:
        yield said
    finally:
        page.remove_listener("dialog", read)


def refusal(page: Any, before: list[str], alerts: list[str]) -> tuple[str, str]:
    """(the box the refusal points to or '', what the page said): its alert, else the browser's or the page's own
    message that the refused press showed."""
    box, message = page.evaluate(TOLD_JS, before)
    return str(box), (alerts[-1] if alerts else str(message)).strip()
