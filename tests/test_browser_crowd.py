"""hitflow's stand-in for MTurk's crowd HTML elements in a real Chromium: it draws usable controls
for every element of a crowd-form page, refuses to submit while a constraint fails, and posts the
one ``taskAnswers`` field MTurk's crowd-form posts, which the server reads back into one value per
element that passes the page's own rules."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from flows.config import load_config
from flows.custom.custom_task import custom_page, custom_spec
from flows.custom.scaffold import scaffold
from flows.platforms.mturk_forms import html_question
from flows.taskserver.task_pages import page_items
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
    assert (answer["title_0"], answer["scene_0"], answer["light_0"], answer["issues_0"], answer["quality_0"]) == \
        ("Bus in the rain", "outdoor", "dim", "blurry", "4")
    assert answer["comment_0"] == "" and answer["image_id_0"] == "photo-1"
    box = json.loads(answer["objects_0"])["boundingBoxes"][0]
    assert box["label"] == "person" and box["width"] > 50 and box["height"] > 40
    assert json.loads(answer["centre_0"])["keypoints"][0]["label"] == "centre"
