"""The first security review in Chromium: a hostile ``turkSubmitTo`` in the page's URL neither runs
script nor takes the answers elsewhere, on a task-server page and on an MTurk HTMLQuestion page
served by the simulator. The pages still work under their Content-Security-Policy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest

from flows.core.pages.mturk_forms import parse_answer_xml
from flows.core.pages.templates import sample_context
from tests.test_browser import GOOD, fill_item, post_page
from tests.test_security_server import STUDY, serve

pytestmark = pytest.mark.browser
HOSTILE = ["javascript:alert(document.domain)//", "https://evil.example", "https://evil.example/mturk",
           "//evil.example", "https://www.mturk.com.evil.example"]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[dict[str, Any]]:
    yield from serve(tmp_path)


def watch(page: Any) -> dict[str, list[str]]:
    """Record every dialog (script ran) and every request to a host that is not ours."""
    seen: dict[str, list[str]] = {"dialogs": [], "evil": []}
    page.on("dialog", lambda d: (seen["dialogs"].append(d.message), d.dismiss()))
    page.on("request", lambda r: seen["evil"].append(r.url)
            if (urlsplit(r.url).hostname or "").endswith("evil.example") else None)
    page.route("**/*evil.example*/**", lambda route: route.fulfill(status=200, body="stolen"))
    page.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="<p>Prolific done</p>",
                                                                           content_type="text/html"))
    return seen


def do_caption_page(page: Any) -> None:
    for i in range(5):
        fill_item(page, i, GOOD[i])
        if i < 4:
            page.click(f"button.next[data-index='{i}']")
    page.click("#submit-btn")


@pytest.mark.parametrize("hostile", [*HOSTILE, "https://www.mturk.com"])  # MTurk's own host: not for this page
def test_task_server_page_ignores_a_hostile_turk_submit_to(served: dict[str, Any], page: Any, hostile: str) -> None:
    seen = watch(page)
    query = urlencode({"PROLIFIC_PID": "pw1", "STUDY_ID": STUDY, "SESSION_ID": "pw-sess", "turkSubmitTo": hostile,
                       "assignmentId": "x", "hitId": ""})
    page.goto(f"{served['url']}/task/{served['cfg'].name}?{query}")
    page.wait_for_selector("#caption_0")
    # the submit's redirect to Prolific, as the browser asks for it: its route is not taken by a redirect, and a
    # headless shell's frame shows the unreachable page as chrome-error://, not at Prolific's address
    with page.expect_request(lambda r: r.url.startswith("https://app.prolific.com/") and r.is_navigation_request()):
        do_caption_page(page)
    assert seen == {"dialogs": [], "evil": []}
    stored = served["store"].rows("SELECT answer_xml FROM assignments WHERE assignment_id = 'pw-sess'")
    assert [parse_answer_xml(stored[0]["answer_xml"])[f"caption_{i}"] for i in range(5)] == GOOD


@pytest.mark.parametrize("hostile", HOSTILE[:2])
def test_mturk_page_posts_only_to_a_known_submit_host(sim, client, page: Any, hostile: str) -> None:
    seen = watch(page)
    ctx = sample_context("caption")
    ctx["items"] = ([i for i in ctx["items"] if i["image_id"].isdigit()] * 2)[:5]
    hit_id = post_page(client, ctx)
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=AEVIL1")  # the simulator's own turkSubmitTo
    page.wait_for_selector("#caption_0")
    assignment = page.evaluate("new URLSearchParams(location.search).get('assignmentId')")
    page.goto(f"{sim.url}/mturk/preview?" + urlencode({"hitId": hit_id, "assignmentId": assignment,
                                                       "workerId": "AEVIL1", "turkSubmitTo": hostile}))
    page.wait_for_selector("#caption_0")
    assert page.evaluate("document.getElementById('hit-form').action") == f"{sim.url}/mturk/externalSubmit"
    do_caption_page(page)
    page.wait_for_selector("text=Thank you")
    assert seen == {"dialogs": [], "evil": []}
    mine = client.list_assignments_for_hit(HITId=hit_id)["Assignments"]
    assert [parse_answer_xml(mine[0]["Answer"])[f"caption_{i}"] for i in range(5)] == GOOD


def test_known_submit_hosts_are_still_used(sim, client, page: Any) -> None:
    ctx = sample_context("caption")
    ctx["items"] = ([i for i in ctx["items"] if i["image_id"].isdigit()] * 2)[:5]
    hit_id = post_page(client, ctx)
    for host in ("https://www.mturk.com", "https://workersandbox.mturk.com/"):
        page.goto(f"{sim.url}/mturk/preview?" + urlencode({"hitId": hit_id, "assignmentId": "A1",
                                                           "turkSubmitTo": host}))
        page.wait_for_selector("#caption_0")
        action = page.evaluate("document.getElementById('hit-form').action")
        assert action == host.rstrip("/") + "/mturk/externalSubmit"
