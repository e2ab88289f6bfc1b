"""The simulator's browser workers never leave a caller waiting on a browser thread that is gone: a thread whose
Chromium could not start fails its pages at once and the next page starts a new one (the browser tests hung
in order, with no CPU, on a thread an earlier test had left behind)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import flows.sim.pages.browser_thread as browser_thread
from flows.sim.pages.browser_check import available
from flows.sim.pages.browser_worker import posted_by_browser


@pytest.mark.skipif(not available(), reason="needs Playwright (make browser-deps)")
@pytest.mark.timeout(120, method="signal")
def test_a_thread_whose_browser_cannot_start_fails_its_pages_at_once_and_is_replaced(
        monkeypatch: pytest.MonkeyPatch) -> None:
    browser_thread.BrowserThread.close_shared()
    monkeypatch.setattr(browser_thread, "chromium", lambda: Path("/nonexistent/chromium"))
    started, failed = time.monotonic(), list[str]()
    for n in range(3):  # the first page meets the thread as it dies; the next ones a thread started anew
        assert posted_by_browser("<form><input name=a></form>", {"a": "x"}, f"seed{n}", failed=failed) is None
    assert time.monotonic() - started < browser_thread.SETTLE_S / 3  # not the wait for a page (300 s)
    assert len(failed) == 3, failed
    first = browser_thread.BrowserThread._instance
    assert first is not None
    first.thread.join(30)
    assert not first.thread.is_alive() and first.closed
    first.settle(timeout_s=1)  # a dead thread's settle returns at once
    browser_thread.BrowserThread.close_shared()
    assert browser_thread.BrowserThread._instance is None


def test_every_browser_test_has_a_deadline(request: pytest.FixtureRequest) -> None:
    """tests/conftest.py gives each test marked ``browser`` pytest-timeout's deadline."""
    from tests.conftest import BROWSER_DEADLINE_S

    browser_tests = [item for item in request.session.items if item.get_closest_marker("browser")]
    if not browser_tests:
        pytest.skip("no browser test collected beside this one (run it with the suite or -m browser)")
    for item in browser_tests:
        marker = item.get_closest_marker("timeout")
        assert marker is not None and marker.args[0] <= BROWSER_DEADLINE_S, item.nodeid


@pytest.mark.browser
@pytest.mark.skipif(not available(), reason="needs Playwright and Chromium (make browser-deps)")
def test_a_page_whose_browser_hangs_is_ended_and_the_next_page_gets_a_new_browser(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A Playwright call that never comes back holds the thread, every later page and the simulator's
    clock; past the watch's limit that Chromium is killed: the call fails and the next page is worked."""
    import threading

    browser_thread.BrowserThread.close_shared()
    monkeypatch.setattr(browser_thread, "HUNG_S", 2.0)
    monkeypatch.setattr(browser_thread, "WATCH_S", 0.2)
    outcome: list[str] = []
    ended = threading.Event()

    def hang(browser) -> None:
        try:
            browser.new_page().evaluate("() => new Promise(() => {})")  # a promise that never settles
            outcome.append("returned")
        except Exception as exc:
            outcome.append(type(exc).__name__)
        finally:
            ended.set()
    browser_thread.BrowserThread.submit(hang)
    assert ended.wait(60) and outcome and outcome[0] != "returned", outcome
    # the next page gets the usual limit: a new Chromium on a loaded host can take longer than 2 s to start
    monkeypatch.setattr(browser_thread, "HUNG_S", 120.0)
    form = ('<form method="post" action="https://hit.sim.invalid/submit"><input type="hidden" name="a" value="1">'
            '<input type="submit" value="Submit"></form>')
    assert posted_by_browser(form, {}, "after") == {"a": "1"}  # a new Chromium, launched for the next page
    browser_thread.BrowserThread.close_shared()


# Each worker's page leaves what a script can leave for the next (storage, a cookie, a database) and posts
# what it found at load, with the page's clock: the reused page must find none of it, at the same time.
LEAVES = """<form method="post" action="https://hit.sim.invalid/submit"><input type="hidden" name="found">
<input name="a" required><input type="submit" id="submit-btn" value="Submit"></form>
<script>
const found = {local: localStorage.getItem("k"), session: sessionStorage.getItem("k"), cookie: document.cookie,
               now: Date.now(), history: history.length};
const post = () => { document.querySelector("[name=found]").value = JSON.stringify(found); };
post();
indexedDB.databases().then((dbs) => { found.dbs = dbs.length; post(); });
localStorage.setItem("k", "left"); sessionStorage.setItem("k", "left"); document.cookie = "k=left; path=/";
indexedDB.open("left", 1);
</script>"""


@pytest.mark.browser
@pytest.mark.skipif(not available(), reason="needs Playwright and Chromium (make browser-deps)")
def test_workers_take_turns_at_one_page_and_none_sees_what_the_last_one_left() -> None:
    import json

    browser_thread.BrowserThread.close_shared()
    posted = [posted_by_browser(LEAVES, {"a": "typed"}, f"worker{n}") for n in range(3)]
    found = [json.loads(p["found"]) for p in posted if p is not None]
    assert len(found) == 3 and found[0]["local"] is None and found[0]["cookie"] == "" and found[0]["dbs"] == 0
    assert all(f == found[0] for f in found[1:]), json.dumps(found)  # nothing left behind, the clock started anew
    pages: list[int] = []
    browser_thread.BrowserThread.submit(lambda browser: pages.append(sum(len(c.pages) for c in browser.contexts)))
    browser_thread.settle()
    assert pages == [1]  # one page reused, not one opened (a renderer process, ~0.55 s of CPU) a worker
    browser_thread.BrowserThread.close_shared()
