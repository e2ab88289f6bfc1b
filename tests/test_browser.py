"""Task pages in a real Chromium (Debian's), driven by Playwright like a worker would.

Without /usr/bin/chromium these tests skip loudly, except under CI=true, where that fails.
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from flows.core.pages.mturk_forms import html_question, parse_answer_xml
from flows.core.pages.templates import render, sample_context
from qc.submit_rules import CANNED_TEXT, SubmitRules, violations

pytestmark = pytest.mark.browser
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
GOOD = ["A silver slow cooker with its lid on sits on a kitchen counter.",
        "A box of frozen cheese penne pasta is held up in a hand.",
        "A person in striped pants sits with a hand resting on a hip.",
        "A red snack wrapper with white letters lies on a wooden table.",
        "A flat screen television shows two people talking on a stand."]


def post_page(client, context: dict[str, Any], template: str = "caption.html.j2") -> str:
    html = render(template, context)
    return client.create_hit(Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=3600,
                             LifetimeInSeconds=86400, MaxAssignments=1, AutoApprovalDelayInSeconds=3600,
                             Question=html_question(html))["HIT"]["HITId"]


def open_hit(page, sim, hit_id: str, worker: str = "ABROWSER1") -> None:
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId={worker}")
    page.wait_for_selector("#caption_0")


def fill_item(page, i: int, text: str, text_present: str = "yes") -> None:
    page.fill(f"#caption_{i}", text)
    page.check(f"input[name=text_present_{i}][value={text_present}]")


def test_worker_does_the_whole_task(sim, client, page) -> None:
    ctx = sample_context("caption")
    ctx["items"] = [i for i in ctx["items"] if i["image_id"].isdigit()] * 2
    ctx["items"] = ctx["items"][:5]
    hit_id = post_page(client, ctx)
    open_hit(page, sim, hit_id)
    typed = []
    for i in range(5):
        if i == 2:
            page.click(f"button.canned[data-target=caption_{i}]")
            page.check(f"input[name=text_present_{i}][value=no]")
            typed.append(CANNED_TEXT)
        else:
            page.type(f"#caption_{i}", GOOD[i], delay=0)
            page.check(f"input[name=text_present_{i}][value=yes]")
            typed.append(GOOD[i])
        if i < 4:
            page.click(f"button.next[data-index='{i}']")
            assert page.is_visible(f"#item-{i + 1}")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "caption_page.png"), full_page=True)
    page.click("#submit-btn")
    page.wait_for_selector("text=Thank you")
    mine = [a for a in client.list_assignments_for_hit(HITId=hit_id)["Assignments"] if a["WorkerId"] == "ABROWSER1"]
    answers = parse_answer_xml(mine[0]["Answer"])
    assert [answers[f"caption_{i}"] for i in range(5)] == typed
    assert [answers[f"text_present_{i}"] for i in range(5)] == ["yes", "yes", "no", "yes", "yes"]
    for i in range(5):
        start, end = int(answers[f"start_ms_{i}"]), int(answers[f"end_ms_{i}"])
        assert 1_700_000_000_000 < start <= end


REFUSED = [("A red mug sits on a desk", "at least 8 words"),
           ("A dog sits on the grass. A cat watches it from the fence.", "one sentence"),
           ("This is a red mug of coffee on a wooden desk.", "Do not start with"),
           ("It’s a red mug of coffee sitting on a wooden desk.", "Do not start with"),
           ("", "Please write a description")]


def test_next_is_refused_while_a_rule_fails(sim, client, page) -> None:
    """Each failing text on one page (a page a case costs Chromium ~0.5 s of CPU): its message is
    cleared first, so what is read is this text's refusal, not the one before."""
    open_hit(page, sim, post_page(client, sample_context("caption")))
    for text, rule_words in REFUSED:
        page.evaluate("document.getElementById('error_0').textContent = ''")
        fill_item(page, 0, text)
        page.click("button.next[data-index='0']")
        assert not page.is_visible("#item-1"), text
        assert rule_words in page.text_content("#error_0"), text
    fill_item(page, 0, GOOD[0])
    page.click("button.next[data-index='0']")
    assert page.is_visible("#item-1")


def test_max_chars_from_config_reaches_the_page(sim, client, page) -> None:
    ctx = sample_context("caption")
    ctx["rules"] = {**ctx["rules"], "max_chars": 40}
    open_hit(page, sim, post_page(client, ctx))
    fill_item(page, 0, GOOD[0])
    page.click("button.next[data-index='0']")
    assert not page.is_visible("#item-1") and "under 40 characters" in page.text_content("#error_0")


def test_preview_cannot_submit(sim, client, page) -> None:
    hit_id = post_page(client, sample_context("caption"))
    page.goto(f"{sim.url}/mturk/preview?hitId={hit_id}&assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE")
    assert page.is_visible("#preview-banner")
    assert page.is_disabled("#submit-btn")
    before = sim.market.hits[hit_id].assignment_ids[:]
    page.evaluate("document.getElementById('hit-form').requestSubmit()")
    assert sim.market.hits[hit_id].assignment_ids == before


PARITY = ["A red mug sits on a desk", "A red mug sits on a wooden desk", "A dog sits. A cat watches the dog now.",
          "It’s a red mug of coffee sitting on a wooden desk.", "It's a red mug of coffee on a wooden desk.",
          "   This is a red mug of coffee on a wooden desk.", "... !!! ??? --- ,,, ;;; ::: ***",
          "A RED MUG OF COFFEE SITS ON A WOODEN DESK.", CANNED_TEXT, CANNED_TEXT.rstrip("."), "", "   ",
          "Theimage of a red mug sitting on the wooden desk now.", "Itself a red mug, sitting on the desk all day.",
          "A dog sits on the grass.A cat watches from the fence nearby today.",
          "Mr. Smith holds a red mug near a desk.",
          "A très jolie café table with two cups and a small plate.",
          # where JavaScript and Python part ways by default (tests/test_submit_parity.py has hundreds more)
          "🐶" * 30, "\ufeffThis is a red mug on a wooden desk today.", "\u200b\u00a0", "\x1c\x1f",
          "A dog sits.\u2028A cat watches the dog now.", "a||b 1_8 0x12 a b c d e", "ab\r\ncd " * 6,
          "It's\U0001d400 a red mug of coffee on a wooden desk."]


def test_page_and_server_verdicts_match(sim, client, page) -> None:
    open_hit(page, sim, post_page(client, sample_context("caption")))
    for spec in (SubmitRules(), SubmitRules(min_words=5, max_chars=45, banned_prefixes=("A ",))):
        page_spec = spec.to_page_spec()
        for text in PARITY:
            in_browser = page.evaluate("([t, s]) => window.hitflowRules.violations(t, s).map(v => v[0])",
                                       [text, page_spec])
            in_python = [v[0] for v in violations(text, spec)]
            assert in_browser == in_python, (spec, text)


HOSTILE = ['<script>window.pwned=1</script>', '<img src=x onerror="window.pwned=1">', "\"'><b id=bold>bold</b>",
           "W" * 4000]


def test_hostile_text_renders_inert(sim, client, page) -> None:
    """Every hostile text on one page, an item each: none of them runs or adds markup."""
    ctx = sample_context("caption")
    assert len(ctx["items"]) >= len(HOSTILE)
    for i, hostile in enumerate(HOSTILE):
        ctx["items"][i] = {"image_id": hostile, "file_name": hostile, "url": "javascript:window.pwned=1"}
    open_hit(page, sim, post_page(client, ctx))
    assert page.evaluate("window.pwned") is None
    assert page.query_selector("#bold") is None
    assert page.query_selector("img[onerror]") is None
    for i, hostile in enumerate(HOSTILE):
        alt = page.get_attribute(f"#item-{i} img", "alt") or ""
        assert hostile in alt, i
        assert urllib.parse.urlparse(page.get_attribute(f"#item-{i} img", "src") or "").scheme != "javascript"
