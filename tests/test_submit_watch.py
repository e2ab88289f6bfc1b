"""A browser worker's Submit is judged by what the page did with it, not by how fast its POST came: a
refusal is seen at once whatever the wait, and a submit the page took is waited for well past the
moment a busy host would have missed it."""

from __future__ import annotations

import random
import threading

import pytest

from flows.sim.pages import submit_watch
from flows.sim.pages.browser_worker import work_page
from tests.conftest import CHROMIUM

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(), reason=f"needs {CHROMIUM} (make browser-deps)")]

FORM = ('<!DOCTYPE html><html><body><form id="f" method="post" action="https://hit.sim.invalid/submit">'
        '<input type="hidden" name="answer" id="answer" value="">{inputs}<input type="submit" value="Submit">'
        "</form><script>{script}</script></body></html>")
SESSION = {"assignmentId": "A1", "hitId": "H1", "workerId": "W1"}


def worked(browser, inputs: str = "", script: str = "") -> dict[str, str] | None:
    return work_page(browser, FORM.format(inputs=inputs, script=script), SESSION, {}, random.Random(1))


@pytest.fixture
def no_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Waits no test could sit out: a refusal that came back was seen, not timed out."""
    monkeypatch.setattr(submit_watch, "SUBMITTED_WAIT_S", 1e6)
    monkeypatch.setattr(submit_watch, "UNMARKED_WAIT_S", 1e6)


def test_a_submit_the_pages_script_cancels_is_refused_without_waiting(browser, no_deadline) -> None:
    script = 'document.getElementById("f").addEventListener("submit", function (e) { e.preventDefault(); });'
    assert worked(browser, script=script) is None


def test_a_required_field_left_empty_is_refused_by_the_browsers_own_check(browser, no_deadline) -> None:
    assert worked(browser, inputs='<input type="text" name="why" required>') is None


def test_a_cancelled_click_on_submit_is_refused(browser, no_deadline) -> None:
    script = ('document.querySelector("[type=submit]").addEventListener("click", function (e) '
              "{ e.preventDefault(); });")
    assert worked(browser, script=script) is None


def test_a_page_that_refuses_then_submits_from_a_timer_is_taken(browser, no_deadline) -> None:
    script = ('var f = document.getElementById("f"), once = false;'
              'f.addEventListener("submit", function (e) { if (once) return; once = true; e.preventDefault();'
              '  setTimeout(function () { document.getElementById("answer").value = "late"; f.submit(); }, 1000); });')
    assert worked(browser, script=script) == {"answer": "late"}


def test_a_plain_submit_is_taken(browser, no_deadline) -> None:
    script = 'document.getElementById("f").addEventListener("submit", function () { answer.value = "built"; });'
    assert worked(browser, script=script) == {"answer": "built"}


def test_a_submitted_page_waits_for_a_post_longer_than_an_unmarked_one(page, monkeypatch) -> None:
    monkeypatch.setattr(submit_watch, "UNMARKED_WAIT_S", 0.05)
    page.set_content("<p>sent</p>")
    posts: list[object] = []
    page.evaluate(f"() => {{ window.{submit_watch.MARK} = 'submitted'; }}")
    late = threading.Timer(0.5, posts.append, ["the POST"])  # as a busy host reports it, well after the click
    late.start()
    assert submit_watch.posted_request(page, posts) == "the POST"
    page.evaluate(f"() => {{ window.{submit_watch.MARK} = ''; }}")
    assert submit_watch.posted_request(page, []) is None  # no mark and no POST: given up after the short wait


def test_a_scripts_own_submit_event_is_read_as_the_page_left_it(browser, no_deadline) -> None:
    """MTurk's crowd-form (hitflow's stand-in) sends a submit event of its own from a button: one cancelled
    is a refusal; one let through, then ``form.submit()``, is taken."""
    inputs = '<button type="button" id="submit-btn">Submit</button>'
    script = ('var f = document.getElementById("f"); f.onsubmit = function () { return answer.value !== ""; };'
              'document.getElementById("submit-btn").addEventListener("click", function () {'
              '  if (f.dispatchEvent(new Event("submit", {cancelable: true}))) { f.submit(); } });')
    assert worked(browser, inputs=inputs, script=script) is None
    filled = script.replace('answer.value !== ""', "(answer.value = 'ok')")
    assert worked(browser, inputs=inputs, script=filled) == {"answer": "ok"}


def test_a_trial_the_browser_never_finished_says_so_rather_than_blaming_the_page(browser, monkeypatch) -> None:
    """A busy browser thread (an earlier page still at work) is not a page that refused its submit."""
    from flows.sim.pages import browser_trial, browser_worker

    monkeypatch.setattr(browser_worker, "SETTLE_S", 0.0)  # the answer is not waited for at all
    said = browser_trial.trial_outcome.__wrapped__(FORM.format(inputs="", script="")).problem
    assert "did not finish the page within 0 s" in said and "refused" not in said
    browser_worker.BrowserThread.close_shared()  # the page is worked, then the thread ends with it
