"""The one page a browser's workers take turns at, reset between workers so none sees what an earlier one left."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flows.sim.pages.submit_watch import MARK_SCRIPT
from flows.sim.pages.widget_clicks import CLICKED_SCRIPT

_marked: weakref.WeakSet[Any] = weakref.WeakSet()  # contexts that carry MARK_SCRIPT already
_sessions: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()  # a page's DevTools session


@contextmanager
def worker_page(browser: Any) -> Iterator[tuple[Any, list[Any]]]:
    """A clean page of ``browser`` for one worker, and the POST requests it makes, appended as they come."""
    context = _reset_context(browser)
    page = context.pages[0] if context.pages else context.new_page()
    if page not in _sessions:
        _sessions[page] = context.new_cdp_session(page)
    _sessions[page].send("Page.resetNavigationHistory")  # history.length as on a new page's about:blank
    posts: list[Any] = []

    def seen(request: Any) -> None:
        if request.method == "POST":
            posts.append(request)
    page.on("request", seen)
    try:
        yield page, posts
    finally:
        page.remove_listener("request", seen)
        if not page.is_closed():
            page.unroute_all(behavior="ignoreErrors")


def _reset_context(browser: Any) -> Any:
    """``browser``'s one reusable context, reset (or made anew when Playwright cannot reset it)."""
    reuse: Callable[..., Any] | None = getattr(getattr(browser, "_impl_obj", None), "_new_context_for_reuse", None)
    if reuse is None:  # not a Playwright this knows: a context for each worker, as before
        context = browser.new_context()
    else:
        from playwright._impl._sync_base import mapping  # the sync API's own wrappers of what the driver returns

        context = mapping.from_impl(browser._sync(reuse({})))
    if context not in _marked:
        context.add_init_script(script=MARK_SCRIPT + CLICKED_SCRIPT)  # the press's outcome, the widgets clicked
        _marked.add(context)
    context.clear_permissions()
    return context
