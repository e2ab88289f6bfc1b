"""Text telemetry (docs/telemetry.md) in a real Chromium on the VizWiz caption page, served by the task
server: real keystrokes, real clipboard events (Ctrl+C / Ctrl+V with clipboard permissions), a reload
midway, and the record read back from the ledger after the page's own submit says exactly what was done;
no clipboard text and no key identity is stored anywhere (ledger, logs, the page's sessionStorage)."""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flows.campaigns.task_pages import task_page
from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import html_question, parse_answer_xml
from flows.custom.scaffold import scaffold
from flows.taskserver.task_server import invite_link
from tests.conftest import IMAGE_HOSTS, PLACEHOLDER
from tests.published_site import published_site
from tests.test_browser_flickr import mine

pytestmark = pytest.mark.browser
PAGES = Path(__file__).parent / "pages"
HALF = "A red mug sits"
FULL = "A red mug with a white handle sits on a wooden kitchen table."
EXTERNAL = "A shiny silver kettle stands beside a bowl of green apples on a counter."
INSTRUCTION = "Describe all parts of the image that may be important to a person who is blind."
TYPED = ["A small brown dog sleeps on a blue blanket near the window.",
         "A hand holds a can of tomato soup above a kitchen sink."]
SENTINEL = "Zanzibar quokka sentinel 7f3e9 pasted from outside the page today."
REPLACEMENT = "A white cat naps on the arm of a grey sofa in the sun."


@pytest.fixture
def served(tmp_path: Path) -> Iterator[dict[str, Any]]:
    with published_site(tmp_path, secret=b"t" * 32) as site:
        yield site


@pytest.fixture
def tab(browser, served: dict[str, Any]):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=served["url"])
    pg = context.new_page()
    for host in IMAGE_HOSTS:
        pg.route(host, lambda route: route.fulfill(status=200, content_type="image/svg+xml", body=PLACEHOLDER))
    yield pg
    context.close()


def from_outside(tab, text: str) -> None:
    """Text on the clipboard as another program would put it: no copy event on this page."""
    tab.evaluate("(t) => navigator.clipboard.writeText(t)", text)


def next_item(tab, i: int) -> None:
    tab.check(f"input[name=text_present_{i}][value=no]")
    tab.click(f"button.next[data-index='{i}']")
    tab.wait_for_selector(f"#caption_{i + 1}", state="visible")


def stored(served: dict[str, Any], field: str) -> str:
    rows = served["store"].rows("SELECT value FROM answers WHERE field = ?", [field])
    assert len(rows) == 1, rows
    return str(rows[0]["value"])


def submit(tab) -> None:
    tab.check("input[name=text_present_4][value=no]")
    tab.click("#submit-btn")
    tab.wait_for_selector("text=Your answers were saved")


def test_the_ledger_says_what_chromium_did(served: dict[str, Any], tab) -> None:
    link = invite_link(served["site"].secret, served["url"], served["cfg"].name, "ann")
    tab.goto(link)
    tab.click("#caption_0")
    tab.keyboard.type(HALF)
    tab.reload()  # midway: the record and its clock continue, what was typed before still counts
    tab.wait_for_selector("#caption_0")
    kept = tab.input_value("#caption_0")
    tab.click("#caption_0")
    tab.keyboard.press("End")
    tab.keyboard.type(FULL[len(kept):] if FULL.startswith(kept) else FULL)
    next_item(tab, 0)
    from_outside(tab, EXTERNAL)
    tab.click("#caption_1")
    tab.keyboard.press("Control+V")
    next_item(tab, 1)
    # In-page copy: select an instruction with the mouse's selection, Ctrl+C, paste it as the caption.
    tab.evaluate("""(t) => { const li = [...document.querySelectorAll('#item-2 li')].find(e => e.textContent === t);
                             const r = document.createRange(); r.selectNodeContents(li);
                             getSelection().removeAllRanges(); getSelection().addRange(r); }""", INSTRUCTION)
    tab.keyboard.press("Control+C")
    tab.click("#caption_2")
    tab.keyboard.press("Control+V")
    next_item(tab, 2)
    for i, text in zip((3, 4), TYPED, strict=True):
        tab.click(f"#caption_{i}")
        tab.keyboard.type(text + ("xq" if i == 3 else " Soup"))
        if i == 3:
            tab.keyboard.press("Backspace")
            tab.keyboard.press("Backspace")
            next_item(tab, 3)
        else:  # select the last five characters and cut them
            for _ in range(5):
                tab.keyboard.press("Shift+ArrowLeft")
            tab.keyboard.press("Control+X")
    submit(tab)

    record = json.loads(stored(served, "hitflow_telemetry"))
    f = record["f"]
    assert record["v"] == 1 and record["loads"] == 2 and record["vis"] == []  # a reload is no tab switch
    assert f["caption_0"]["typed"] == len(HALF) + len(FULL) - len(kept) and f["caption_0"]["paste_n"] == 0
    assert f["caption_0"]["len"] == len(FULL) and f["caption_0"]["first_ms"] is not None
    assert f["caption_0"]["keys"] >= f["caption_0"]["typed"]
    assert f["caption_1"]["typed"] == 0 and f["caption_1"]["paste_x"] == len(EXTERNAL)
    assert [p[1:] for p in f["caption_1"]["paste"]] == [[len(EXTERNAL), "x"]] and f["caption_1"]["paste_p"] == 0
    assert [p[1:] for p in f["caption_2"]["paste"]] == [[len(INSTRUCTION), "p"]]
    assert (f["caption_2"]["paste_p"], f["caption_2"]["paste_x"], f["caption_2"]["copy"]) == (len(INSTRUCTION), 0, 0)
    for i, text in zip((3, 4), TYPED, strict=True):
        entry = f[f"caption_{i}"]
        extra = 2 if i == 3 else 5  # "xq" typed, then two Backspaces; " Soup" typed, then cut
        assert (entry["typed"], entry["del"], entry["paste_n"]) == (len(text) + extra, extra, 0)
        assert (entry["len"], entry["cut"], entry["copy"]) == (len(text), 0 if i == 3 else 1, 0)
    times = [t for name in f for t, _ in f[name]["focus"]] + [p[0] for name in f for p in f[name]["paste"]]
    assert all(isinstance(t, int) and t >= 0 for t in times)
    assert f["caption_1"]["paste"][0][0] > f["caption_0"]["first_ms"]  # one clock across the reload
    captions = parse_answer_xml(served["store"].rows("SELECT answer_xml FROM assignments")[0]["answer_xml"])
    assert captions["caption_1"] == EXTERNAL and captions["caption_2"] == INSTRUCTION


def test_no_clipboard_text_or_key_identity_is_stored_anywhere(served: dict[str, Any], tab, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    link = invite_link(served["site"].secret, served["url"], served["cfg"].name, "bob")
    tab.goto(link)
    from_outside(tab, SENTINEL)
    tab.click("#caption_0")
    tab.keyboard.press("Control+V")
    assert tab.input_value("#caption_0") == SENTINEL
    tab.keyboard.press("Control+A")
    tab.keyboard.type(REPLACEMENT)  # the pasted text is gone from the answer
    for key in ("ArrowLeft", "ArrowLeft", "Home", "End", "F7", "Shift+ArrowLeft", "ArrowRight"):
        tab.keyboard.press(key)
    next_item(tab, 0)
    for i in range(1, 5):
        tab.click(f"#caption_{i}")
        tab.keyboard.type(TYPED[i % 2])
        if i < 4:
            next_item(tab, i)
    session = tab.evaluate("() => JSON.stringify(Object.assign({}, sessionStorage))")
    submit(tab)

    record = stored(served, "hitflow_telemetry")
    first = json.loads(record)["f"]["caption_0"]
    assert first["paste"][0][1:] == [len(SENTINEL), "x"] and first["paste_x"] == len(SENTINEL)
    assert (first["typed"], first["del"], first["len"]) == (len(REPLACEMENT), len(SENTINEL), len(REPLACEMENT))
    assert stored_everywhere(served, caplog.text, session).count("Zanzibar") == 0
    for name in ("ArrowLeft", "Home", "End", "F7", "Shift", "Control", "KeyV", "Backspace", "quokka", REPLACEMENT[:12]):
        assert name not in record and name not in session, name


def stored_everywhere(served: dict[str, Any], logs: str, session: str) -> str:
    """Every byte the ledger holds (its file and write-ahead log, and each table read back), the
    logs, and what the page kept in sessionStorage."""
    store, parts = served["store"], [logs, session]
    for table in store.db.table_names():
        parts += [json.dumps(row, default=str) for row in store.db[table].rows]
    for path in served["db"].parent.glob(served["db"].name + "*"):
        parts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def test_a_crowd_element_page_on_mturk_records_its_elements_in_task_answers(sim, client, browser, tmp_path) -> None:
    """An HTMLQuestion on the simulator built from crowd elements: the recorder finds the boxes
    crowd-input / crowd-text-area draw, names them by their element, and the record travels inside
    the crowd-form's taskAnswers to MTurk's answer XML."""
    scaffold("crowd", tmp_path)
    shutil.copy(PAGES / "crowd_photo.html.j2", tmp_path / "config" / "crowd.html.j2")
    rows = [{"item_id": "photo-1", "file_name": "", "url": "", "payload": json.dumps(
        {"image_url": "https://ivc.ischool.utexas.edu/a.jpg", "note": "A red bus in the rain."})}]
    html = task_page(load_config(tmp_path / "config" / "crowd.toml"), rows)
    hit_id = client.create_hit(Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=3600,
                               LifetimeInSeconds=86400, MaxAssignments=1, AutoApprovalDelayInSeconds=3600,
                               Question=html_question(html))["HIT"]["HITId"]
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=sim.url)
    tab = context.new_page()
    tab.route(IMAGE_HOSTS[0], lambda route: route.fulfill(status=200, content_type="image/svg+xml", body=PLACEHOLDER))
    tab.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=ATELEMETRY1")
    tab.wait_for_selector("crowd-input[name=title_0] input")
    tab.check("crowd-image-classifier[name=scene_0] input[value=outdoor]")
    tab.click("crowd-input[name=title_0] input")
    tab.keyboard.type("Bus in the rain")
    tab.click("crowd-text-area[name=description_0] textarea")
    tab.keyboard.type(TYPED[0])
    from_outside(tab, EXTERNAL)
    tab.click("crowd-text-area[name=comment_0] textarea")
    tab.keyboard.press("Control+V")
    tab.click("#submit-btn")
    tab.wait_for_selector("text=Thank you")
    context.close()
    answer = mine(client, hit_id, "ATELEMETRY1")
    f = json.loads(answer["hitflow_telemetry"])["f"]
    assert (f["title_0"]["typed"], f["title_0"]["len"]) == (len("Bus in the rain"), len("Bus in the rain"))
    assert (f["description_0"]["typed"], f["description_0"]["paste_n"]) == (len(TYPED[0]), 0)
    assert f["comment_0"]["typed"] == 0 and [p[1:] for p in f["comment_0"]["paste"]] == [[len(EXTERNAL), "x"]]
    assert answer["comment_0"] == EXTERNAL and answer["description_0"] == TYPED[0]


def test_the_record_stays_under_8_kb_whatever_the_worker_does(served: dict[str, Any], tab) -> None:
    """Five captions, each focused and left 60 times and pasted into 30 times, 50 tab switches: the lists
    stop at their caps (focus 40, paste 20, vis 40), the counts go on, the record stays under 8 KB."""
    tab.goto(invite_link(served["site"].secret, served["url"], served["cfg"].name, "cap"))
    size = tab.evaluate("""() => {
        const fire = (el, ev) => el.dispatchEvent(ev);
        for (let i = 0; i < 5; i++) {
            const t = document.getElementById("caption_" + i);
            for (let k = 0; k < 60; k++) {
                fire(t, new FocusEvent("focusin", {bubbles: true}));
                fire(t, new FocusEvent("focusout", {bubbles: true}));
            }
            for (let k = 0; k < 30; k++) {
                const data = new DataTransfer(); data.setData("text/plain", "x".repeat(999));
                fire(t, new ClipboardEvent("paste", {bubbles: true, clipboardData: data}));
            }
        }
        for (let k = 0; k < 50; k++) { document.dispatchEvent(new Event("visibilitychange")); }
        window.hitflowTelemetry.write();
        return document.getElementById("hitflow_telemetry").value.length; }""")
    record = json.loads(tab.input_value("#hitflow_telemetry"))
    assert size < 8192 and len(record["vis"]) == 40
    for entry in record["f"].values():
        assert (len(entry["focus"]), len(entry["paste"]), entry["paste_n"]) == (40, 20, 30)
        assert entry["paste_x"] == 30 * 999


OTHER_EXTERNAL = "A yellow taxi waits at a crossing while people walk past in the rain."


def test_outside_text_passed_from_field_to_field_is_still_from_outside(served: dict[str, Any], tab) -> None:
    """A worker pastes an assistant's caption for image 2 into the first box, cuts it out again, and
    later pastes the same text as the second caption: that text came from outside the page, and a
    copy or cut in a field that took outside text does not make it the page's own ("p" turned one
    pasting field into a laundry for every other: four of five captions "in-page", flagged 1 in 5).
    Copying one's own typed caption to another box stays an in-page paste."""
    tab.goto(invite_link(served["site"].secret, served["url"], served["cfg"].name, "lau"))
    from_outside(tab, OTHER_EXTERNAL)
    tab.click("#caption_0")
    tab.keyboard.press("Control+V")
    tab.keyboard.press("Control+A")
    tab.keyboard.press("Control+X")  # the page has now seen this text cut from one of its fields
    from_outside(tab, EXTERNAL)
    tab.keyboard.press("Control+V")
    next_item(tab, 0)
    from_outside(tab, OTHER_EXTERNAL)  # the assistant's window again, or the cut kept on the clipboard
    tab.click("#caption_1")
    tab.keyboard.press("Control+V")
    next_item(tab, 1)
    tab.click("#caption_2")
    tab.keyboard.type(TYPED[0])
    tab.keyboard.press("Control+A")
    tab.keyboard.press("Control+C")  # one's own words, typed here
    next_item(tab, 2)
    tab.click("#caption_3")
    tab.keyboard.press("Control+V")
    next_item(tab, 3)
    tab.click("#caption_4")
    tab.keyboard.type(TYPED[1])
    submit(tab)

    f = json.loads(stored(served, "hitflow_telemetry"))["f"]
    assert [p[1:] for p in f["caption_0"]["paste"]] == [[len(OTHER_EXTERNAL), "x"], [len(EXTERNAL), "x"]]
    assert [p[1:] for p in f["caption_1"]["paste"]] == [[len(OTHER_EXTERNAL), "x"]]
    assert (f["caption_1"]["paste_x"], f["caption_1"]["paste_p"]) == (len(OTHER_EXTERNAL), 0)
    assert [p[1:] for p in f["caption_3"]["paste"]] == [[len(TYPED[0]), "p"]]  # a typist's own text stays in-page
