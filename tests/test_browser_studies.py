"""The evaluation pages in a real Chromium: the page's script and the server's check agree on
every rule; the severity page wants every slider moved and the screen answered, shows stimuli in
a fresh order and records it; "No caption is correct" excludes every other sentence."""

from __future__ import annotations

import pytest

from flows.core.pages.mturk_forms import parse_answer_xml
from flows.core.pages.templates import sample_context
from qc.judgement_spec import check_answers
from tests.judgement_questions import AGE, MANY, SLIDER
from tests.test_browser import ARTIFACTS, post_page
from tests.test_browser_flickr import mine

pytestmark = pytest.mark.browser

ONE = {"name": "q_0", "type": "one", "options": ["1", "2", "3", "4"]}
CATS = {"name": "categories_0", "type": "many", "options": ["age", "gender"], "min": 0,
        "needs": {"name": "congruent_0", "value": "incongruent", "min": 1},
        "forbids": {"name": "congruent_0", "value": "congruent"}}
CASES = [
    (ONE, {}), (ONE, {"q_0": ""}), (ONE, {"q_0": "3"}), (ONE, {"q_0": "7"}),
    (MANY, {"sel_0": ""}), (MANY, {"sel_0": "s1|s2"}), (MANY, {"sel_0": "none"}), (MANY, {"sel_0": "none|s1"}),
    (MANY, {"sel_0": "s9"}),
    (CATS, {"congruent_0": "incongruent", "categories_0": ""}), (CATS, {"congruent_0": "incongruent",
                                                                        "categories_0": "age"}),
    (CATS, {"congruent_0": "congruent", "categories_0": "gender"}), (CATS, {"congruent_0": "congruent"}),
    (SLIDER, {"score_0": "50", "moved_score_0": "0"}), (SLIDER, {"score_0": "50", "moved_score_0": "1"}),
    (SLIDER, {"score_0": "101", "moved_score_0": "1"}), (SLIDER, {"score_0": "", "moved_score_0": "1"}),
    (AGE, {"age": "34"}), (AGE, {"age": "12"}), (AGE, {"age": "30.5"}), (AGE, {"age": "abc"}), (AGE, {}),
]


def test_page_script_and_server_agree_on_every_rule(sim, client, page) -> None:
    hit_id = post_page(client, sample_context("expert_rating"), "expert_rating.html.j2")
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=AJUDGE1")
    page.wait_for_selector("#item-0")
    for question, values in CASES:
        in_page = page.evaluate("([q, v]) => window.hitflowJudgement.broken(q, v)", [question, values])
        on_server = check_answers({"questions": [question]}, values)
        assert in_page == (on_server[0]["rule"] if on_server else ""), (question["name"], values)


def test_severity_page_screens_shuffles_and_wants_sliders_moved(sim, client, page) -> None:
    ctx = sample_context("severity_rating")
    hit_id = post_page(client, ctx, "severity_rating.html.j2")
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=AJUDGE2")
    page.wait_for_selector("#item-0")
    assert "<script>" in page.inner_text("body")  # hostile sample text shows as text
    page.click("#submit-btn")
    assert "move the slider" in page.inner_text("#error_score_0").lower()
    assert page.inner_text("#error_age") and page.inner_text("#form-error")
    n = len(ctx["items"])
    for i in range(n - 1):  # every slider but the last
        page.evaluate("(i) => { const r = document.getElementById('score_' + i); r.value = String(10 + i); "
                      "r.dispatchEvent(new Event('input')); }", i)
    page.fill("input[name=age]", "31")
    for name, value in (("gender", "female"), ("education", "university"), ("proficiency", "native"),
                        ("colour_blind", "no")):
        page.select_option(f"select[name={name}]", value)
    page.click("#submit-btn")
    assert page.inner_text(f"#error_score_{n - 1}")  # the untouched slider still blocks the submit
    page.evaluate(f"document.getElementById('score_{n - 1}').dispatchEvent(new Event('input'))")
    page.screenshot(path=str(ARTIFACTS / "severity_page.png"), full_page=False)
    page.click("#submit-btn")
    page.wait_for_load_state()
    answer = mine(client, hit_id, "AJUDGE2")
    calibration = [i for i, item in enumerate(ctx["items"]) if item["role"] == "calibration"]
    stimuli = [i for i in range(n) if i not in calibration]
    assert [answer[f"position_{i}"] for i in calibration] == [str(i) for i in calibration]
    assert sorted(int(answer[f"position_{i}"]) for i in stimuli) == list(range(len(stimuli)))
    assert answer["score_1"] == "11" and answer["moved_score_1"] == "1" and answer["age"] == "31"
    assert check_answers(ctx["rules"], answer) == []
    assert int(answer["page_end_ms"]) >= int(answer["page_start_ms"])


def test_no_caption_is_correct_excludes_the_others(sim, client, page) -> None:
    ctx = sample_context("crowd_selection")
    hit_id = post_page(client, ctx, "crowd_selection.html.j2")
    page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=AJUDGE3")
    page.wait_for_selector("#item-0")
    first = ctx["items"][0]["sentences"][0]["id"]
    page.check(f"input[name=selected_0][value={first}]")
    page.check("input[name=selected_0][value=none]")
    assert not page.is_checked(f"input[name=selected_0][value={first}]")
    assert page.is_disabled(f"input[name=selected_0][value={first}]")
    page.click("#submit-btn")
    assert "answer" in page.inner_text("#error_selected_1").lower()  # the second image is required too
    page.check(f"input[name=selected_1][value={ctx['items'][1]['sentences'][2]['id']}]")
    page.click("#submit-btn")
    page.wait_for_load_state()
    answer = parse_answer_xml(client.list_assignments_for_hit(HITId=hit_id)["Assignments"][0]["Answer"])
    assert answer["selected_0"] == "none" and answer["selected_1"] == ctx["items"][1]["sentences"][2]["id"]
