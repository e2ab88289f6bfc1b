"""hitflow's stand-in for MTurk's crowd HTML elements in a real Chromium: it draws usable controls
for every element of a crowd-form page, refuses to submit while a constraint fails, and posts the
one ``taskAnswers`` field MTurk's crowd-form posts, which the server reads back into one value per
element that passes the page's own rules."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import html_question
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_page, custom_spec
from flows.custom.scaffold import scaffold
from qc.form_constraints import check_form
from tests.test_browser_flickr import mine

pytestmark = pytest.mark.browser
PAGES = Path(__file__).parent / "pages"


@pytest.fixture
def crowd_hit(tmp_path: Path, client) -> tuple[str, dict]:
    scaffold("crowd", tmp_path)
    shutil.copy(PAGES / "crowd_photo.html.j2", tmp_path / "config" / "crowd.html.j2")
    cfg = load_config(tmp_path / "config" / "crowd.toml")
    rows = [{"item_id": "photo-1", "file_name": "", "url": "", "payload": json.dumps(
        {"image_url": "https://ivc.ischool.utexas.edu/a.jpg", "note": "A red bus in the rain."})}]
    html = custom_page(cfg, page_items(rows))
    assert "assets.crowd.aws" not in html  # our stand-in, not MTurk's script
    hit_id = client.create_hit(Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=3600,
                               LifetimeInSeconds=86400, MaxAssignments=1, AutoApprovalDelayInSeconds=3600,
                               Question=html_question(html))["HIT"]["HITId"]
    return hit_id, custom_spec(cfg, page_items(rows))


def drag(page, selector: str, start: tuple[int, int], end: tuple[int, int]) -> None:
    page.wait_for_function("(s) => document.querySelector(s).naturalWidth > 0", arg=selector)
    page.locator(selector).scroll_into_view_if_needed()  # the mouse reaches only what is on screen
    box = page.locator(selector).bounding_box()
    page.mouse.move(box["x"] + start[0], box["y"] + start[1])
    page.mouse.down()
    page.mouse.move(box["x"] + end[0], box["y"] + end[1])
    page.mouse.up()


def test_the_stand_in_renders_every_element_and_posts_task_answers(sim, client, page, crowd_hit) -> None:
    hit_id, spec = crowd_hit
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=ACROWD01")
    page.wait_for_selector("crowd-input[name=title_0] input")
    page.click("#submit-btn")  # required answers missing: refused, nothing posted
    assert page.inner_text("#form-error") and not client.list_assignments_for_hit(HITId=hit_id)["Assignments"]
    page.fill("crowd-input[name=title_0] input", "Bus in the rain")
    page.fill("crowd-text-area[name=description_0] textarea", "A red double-decker bus drives through heavy rain.")
    page.check("crowd-image-classifier[name=scene_0] input[value=outdoor]")
    page.check("crowd-radio-button[value=dim] input")
    page.check("crowd-checkbox[value=blurry] input")
    page.eval_on_selector("crowd-slider[name=quality_0] input",
                          "(r) => { r.value = '4'; r.dispatchEvent(new Event('input')); }")
    drag(page, "crowd-bounding-box[name=objects_0] img", (20, 30), (120, 110))
    drag(page, "crowd-keypoint[name=centre_0] img", (50, 60), (50, 60))
    page.click("#submit-btn")
    page.wait_for_load_state()
    answer = mine(client, hit_id, "ACROWD01")
    assert check_form(spec, answer) == [], answer
    assert not {k for k in answer if k.startswith("crowd-")}  # only the page's own names are posted
    assert (answer["title_0"], answer["scene_0"], answer["light_0"], answer["issues_0"], answer["quality_0"]) == \
        ("Bus in the rain", "outdoor", "dim", "blurry", "4")
    assert answer["comment_0"] == "" and answer["image_id_0"] == "photo-1"
    box = json.loads(answer["objects_0"])["boundingBoxes"][0]
    assert box["label"] == "person" and box["width"] > 50 and box["height"] > 40
    assert json.loads(answer["centre_0"])["keypoints"][0]["label"] == "centre"


def test_the_task_server_serves_the_crowd_page_under_its_csp_and_stores_every_element(tmp_path: Path, page) -> None:
    """Prolific's route: the stand-in runs under the task server's content security policy (no
    violation), and the taskAnswers it posts is stored as one answer per element."""
    from flows.campaigns.campaign_plan import Run, plan_items
    from flows.core.ledger.store import Store
    from flows.platforms.mturk import adapter as mturk
    from flows.taskserver.task_server import TaskSite
    from flows.taskserver.task_server_thread import TaskServer

    scaffold("crowd", tmp_path)
    shutil.copy(PAGES / "crowd_photo.html.j2", tmp_path / "config" / "crowd.html.j2")
    (tmp_path / "config" / "crowd_items.csv").write_text(
        "item_id,image_url,note\nphoto-1,https://ivc.ischool.utexas.edu/a.jpg,A red bus in the rain.\n",
        encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "crowd.toml")
    store = Store(tmp_path / "h.db")
    plan_items(Run(cfg, store, None, mturk.Target("sim", "http://unused")))
    store.set_batch(cfg.name, 1, status="published")
    store.table("studies").insert({"study_id": "s" * 24, "campaign": cfg.name, "batch": 1, "status": "ACTIVE",
                                   "places": 5, "created_at": 0.0}, pk=("campaign", "study_id"))
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    page.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="done"))
    with TaskServer(TaskSite(store.path, {cfg.name: cfg}, secret=b"s" * 32)) as server:
        page.goto(f"{server.url}/task/{cfg.name}?PROLIFIC_PID=p1&STUDY_ID={'s' * 24}&SESSION_ID=x1")
        page.wait_for_selector("crowd-input[name=title_0] input")
        page.fill("crowd-input[name=title_0] input", "Bus in the rain")
        page.fill("crowd-text-area[name=description_0] textarea", "A red bus drives through heavy rain at dusk.")
        page.check("crowd-image-classifier[name=scene_0] input[value=outdoor]")
        drag(page, "crowd-bounding-box[name=objects_0] img", (10, 10), (90, 80))
        # the completion redirect as the browser asks for it (a route does not take a redirect; a headless shell's
        # frame shows the unreachable page as chrome-error://, not at Prolific's address)
        with page.expect_request(lambda r: r.url.startswith("https://app.prolific.com/") and r.is_navigation_request()):
            page.click("#submit-btn")
    stored = {r["field"]: r["value"] for r in store.rows("SELECT field, value FROM answers WHERE item_id = 'photo-1'")}
    assert not refused, refused
    assert stored["title"] == "Bus in the rain" and stored["scene"] == "outdoor" and stored["light"] == ""
    assert json.loads(stored["objects"])["boundingBoxes"][0]["label"] == "person"
    assert set(stored) >= {"title", "description", "scene", "light", "issues", "quality", "comment", "objects",
                           "centre"}


def test_a_group_of_named_buttons_posts_per_button_and_reads_as_the_chosen_option(tmp_path: Path, sim, client,
                                                                                   page) -> None:
    """MTurk's reference names each crowd-radio-button: the stand-in posts one entry per button, as
    MTurk does ({"sharp_0": {"sharp": false}, "blurry_0": {"blurry": true}}), read back as the choice."""
    from flows.core.pages.radio_buttons import button_groups, merge_buttons

    scaffold("doc", tmp_path)
    (tmp_path / "config" / "doc.html.j2").write_text(
        '{% extends "_crowd_page.html.j2" %}{% block item %}<p>{{ item.note }}</p><crowd-radio-group>'
        '<crowd-radio-button name="sharp_{{ i }}" value="sharp">Sharp</crowd-radio-button>'
        '<crowd-radio-button name="blurry_{{ i }}" value="blurry">Blurry</crowd-radio-button>'
        '</crowd-radio-group>{% endblock %}', encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "doc.toml")
    rows = [{"item_id": "photo-1", "file_name": "", "url": "", "payload": json.dumps({"note": "A red bus."})}]
    hit_id = client.create_hit(Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=3600,
                               LifetimeInSeconds=86400, MaxAssignments=1, AutoApprovalDelayInSeconds=3600,
                               Question=html_question(custom_page(cfg, page_items(rows))))["HIT"]["HITId"]
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=ACROWD02")
    page.check("crowd-radio-button[value=sharp] input")
    page.check("crowd-radio-button[value=blurry] input")
    # MTurk's buttons reflect checked as their attribute, which a page's own check may look for
    assert page.evaluate("[...document.querySelectorAll('crowd-radio-button[checked]')].map(b => b.getAttribute("
                         "'value'))") == ["blurry"]
    page.click("#submit-btn")
    page.wait_for_load_state()
    answer = mine(client, hit_id, "ACROWD02")
    assert (answer["sharp_0"], answer["blurry_0"]) == ("", "blurry")  # posted per button
    spec = custom_spec(cfg, page_items(rows))
    merged = merge_buttons(answer, button_groups(spec["fields"]))
    assert merged["choice_0"] == "blurry" and check_form(spec, merged) == []
