"""The Flickr8k pages in a real Chromium: the description page holds a worker to one sentence
under 100 characters with nothing blank; the qualification test page wants every answer, and
what it submits scores as the key says."""

from __future__ import annotations

import pandas as pd
import pytest

from flows.core.inputs.answer_key import load_key
from flows.core.pages.mturk_forms import parse_answer_xml
from flows.core.pages.templates import sample_context
from qc.qualification import score_answers
from tests.test_browser import ARTIFACTS, post_page

pytestmark = pytest.mark.browser
SENTENCES = ["A dog runs along a sandy beach.", "Two children play soccer on a field.",
             "A man in a red jacket climbs a rock wall.", "A woman rides a bicycle down a city street.",
             "A brown horse grazes in a green pasture."]


def mine(client, hit_id: str, worker: str) -> dict[str, str]:
    found = [a for a in client.list_assignments_for_hit(HITId=hit_id)["Assignments"] if a["WorkerId"] == worker]
    assert found, f"{worker} submitted nothing"
    return parse_answer_xml(found[0]["Answer"])


def test_description_page_enforces_the_seed_rules(sim, client, page) -> None:
    ctx = sample_context("describe")
    ctx["items"] = [i for i in ctx["items"] if i["url"].startswith("https")][:4] * 2
    ctx["items"] = [{**item, "image_id": f"{item['image_id']}-{k}"} for k, item in enumerate(ctx["items"][:5])]
    hit_id = post_page(client, ctx, "describe.html.j2")
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=AFLICKR1")
    page.wait_for_selector("#caption_0")
    assert "single sentence under 100 characters" in page.inner_text("#guidelines")
    page.click("button.next[data-index='0']")  # blank: refused
    assert page.is_visible("#item-0") and page.inner_text("#error_0")
    page.fill("#caption_0", "A dog " + "runs " * 25 + "on a beach.")
    page.click("button.next[data-index='0']")
    assert page.is_visible("#item-0") and "100" in page.inner_text("#error_0")
    page.fill("#caption_0", "A dog runs. It is happy.")
    page.click("button.next[data-index='0']")
    assert page.is_visible("#item-0")
    for i, text in enumerate(SENTENCES):
        page.fill(f"#caption_{i}", text)
        assert page.inner_text(f"#count_{i}") == str(len(text))
        if i < 4:
            page.click(f"button.next[data-index='{i}']")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "describe_page.png"), full_page=True)
    page.click("#submit-btn")
    page.wait_for_selector("text=Thank you")
    answers = mine(client, hit_id, "AFLICKR1")
    assert [answers[f"caption_{i}"] for i in range(5)] == SENTENCES


def test_qualification_page_needs_every_answer_and_scores_by_the_key(sim, client, page) -> None:
    ctx = sample_context("qualification")
    key = load_key()
    hit_id = post_page(client, ctx, "qualification.html.j2")
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=AQUALIFY1")
    page.wait_for_selector("#q-0")
    page.check("input[name=answer_0][value=incorrect]")
    page.click("#submit-btn")
    assert "39 question(s) still need an answer" in page.inner_text("#error")
    truth = dict(zip(key["item_id"], key["answer"], strict=True))
    wrong = {"spelling-02", "grammar-05", "judging-03"}  # answered against the key on purpose
    flip = {"correct": "incorrect", "incorrect": "correct", "1": "2", "2": "1"}
    for item in ctx["items"]:
        answer = flip[truth[item["item_id"]]] if item["item_id"] in wrong else truth[item["item_id"]]
        page.check(f"input[name=answer_{item['index']}][value='{answer}']")
    page.screenshot(path=str(ARTIFACTS / "qualification_page.png"), full_page=True)
    page.click("#submit-btn")
    page.wait_for_selector("text=Thank you")
    answers = mine(client, hit_id, "AQUALIFY1")
    rows = pd.DataFrame([{"worker_id": "AQUALIFY1", "item_id": answers[f"image_id_{i['index']}"],
                          "answer": answers[f"answer_{i['index']}"]} for i in ctx["items"]])
    scores, problems = score_answers(rows, key, 80)
    assert problems.empty
    assert scores.loc[0, "score"] == pytest.approx(100 * 37 / 40)
    assert scores.loc[0, "judging_score"] == pytest.approx(90.0)
