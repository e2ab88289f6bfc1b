"""An annotation answer holds at most ``MAX_MARKS`` marks (qc/mark_agreement.py compares
them pairwise). An honest person who drew more was rejected though no page had told them of the cap: the
rule was enforced by the server alone. Now hitflow's own widget (hit_templates/crowd_elements.js) refuses the
1,001st mark, reading the cap from the submit-rule spec its page carries, so more is tampering and rejected;
a page whose widget is the requester's own (its template replaced hitflow's script) set no such limit, so
more is held for a person, never rejected, and its marks are compared with nobody's all the same."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.core.config.config import load_config
from flows.core.pages.templates import TEMPLATE_DIR, page_items
from flows.custom.custom_task import custom_page, custom_spec
from flows.custom.scaffold import scaffold
from qc.custom_rules import CUSTOM_POLICY
from qc.decisions import decide
from qc.form_constraints import Spec, check_form, describe_rules, split_held
from qc.mark_agreement import marks_of
from qc.runner import run_rules
from qc.worker_values import MAX_MARKS

PAGE = """{% extends "_crowd_page.html.j2" %}{% block item %}
<crowd-keypoint name="spots_{{ i }}" src="{{ item.url | safe_url }}" header="Click every spot"
  labels="['spot']"></crowd-keypoint>
<crowd-entity-annotation name="words_{{ i }}" header="Mark every word" labels="['word']" text="{{ item.text }}"
  initial-value="{{ item.marked }}"></crowd-entity-annotation>
{% endblock %}"""
# a requester's page drawing the elements with a widget of its own (here a stand-in that draws nothing)
OWN_WIDGET = PAGE + "{% block scripts %}<script>/* the requester's own annotation widget */</script>{% endblock %}"
TEXT = "w " * (MAX_MARKS + 1)  # one more word than the cap, each one mark


def spans(n: int) -> str:
    """The first ``n`` words marked, as the element's initial-value lists them."""
    return json.dumps([{"label": "word", "startOffset": 2 * k, "endOffset": 2 * k + 1} for k in range(n)])


def entities(n: int, label: str = "word") -> str:
    """The element's answer with the first ``n`` words marked."""
    return json.dumps({"entities": [{**s, "label": label} for s in json.loads(spans(n))]})


def rendered(root: Path, source: str, marked: int = 0, **extra: Any) -> tuple[str, Spec]:
    """The campaign's page for one item (its words ``marked`` already) and the spec QC checks it by."""
    scaffold("marks", root)
    (root / "config" / "marks.html.j2").write_text(source, encoding="utf-8")
    cfg = load_config(root / "config" / "marks.toml")
    items = page_items([{"item_id": "p1", "file_name": "", "url": "",
                         "payload": json.dumps({"text": TEXT, "marked": spans(marked)})}])
    return custom_page(cfg, items, **extra), custom_spec(cfg, items)


def caps(spec: Spec) -> dict[str, Any]:
    return {f["name"]: f.get("max_marks") for f in spec["fields"] if f["type"] == "annotations"}


def test_hitflows_widget_reads_its_cap_from_the_spec_its_page_carries(tmp_path: Path) -> None:
    page, spec = rendered(tmp_path, PAGE)
    carried = json.loads(re.search(r'<script type="application/json" id="submit-rules">(.*?)</script>', page,
                                   re.S).group(1))
    assert carried == spec and caps(spec) == {"spots_0": MAX_MARKS, "words_0": MAX_MARKS}
    script = (TEMPLATE_DIR / "crowd_elements.js").read_text(encoding="utf-8")
    assert "f.max_marks" in script and not re.search(r"\b1,?000\b", script)  # the spec's number, not its own
    assert f"at most {MAX_MARKS:,} marks" in describe_rules(spec)[0]  # the dry run says so


def test_a_page_with_its_own_widget_promises_no_cap(tmp_path: Path) -> None:
    page, spec = rendered(tmp_path, OWN_WIDGET)
    assert "hitflow-crowd-elements" not in page and caps(spec) == {"spots_0": None, "words_0": None}


def keypoints(n: int) -> str:
    return json.dumps({"inputImageProperties": {"width": 640, "height": 480},
                       "keypoints": [{"label": "spot", "x": k % 600, "y": k // 600} for k in range(n)]})


def decision(spec: Spec, answers: dict[str, str]) -> tuple[pd.Series, pd.DataFrame]:
    """One response's decision by the custom pages' policy, its problems split as the QC step does
    (flows/custom/custom_review.py): enforced ones as ``invalid_answer``, held ones as ``malformed``."""
    problems, held = split_held(check_form(spec, answers))
    response = pd.DataFrame([{"assignment_id": "A1", "worker_id": "W1", "image_id": "", "caption": "",
                              "work_time_s": 600.0, "answered": 2, "fields": 2, "malformed": held,
                              "problems": "; ".join(f"{p['field']}: {p['rule']}" for p in problems)}])
    flags = run_rules(response, {}, ("invalid_answer", "empty_answer"))
    return decide(flags, response, CUSTOM_POLICY).iloc[0], flags


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Spec]:
    return {"ours": rendered(tmp_path_factory.mktemp("ours"), PAGE)[1],
            "own widget": rendered(tmp_path_factory.mktemp("own"), OWN_WIDGET)[1]}


def test_past_the_cap_on_hitflows_page_is_rejected_as_tampering(specs: dict[str, Spec]) -> None:
    made, flags = decision(specs["ours"], {"spots_0": keypoints(MAX_MARKS + 1), "words_0": entities(0)})
    assert (made["action"], made["reasons"], made["review"]) == ("reject", "invalid_answer", False)
    assert flags["detail"].tolist() == ["spots_0: too_many_marks"]


def test_past_the_cap_on_a_page_that_set_none_is_held_for_a_person(specs: dict[str, Spec]) -> None:
    made, flags = decision(specs["own widget"], {"spots_0": keypoints(MAX_MARKS + 1), "words_0": entities(0)})
    assert (made["action"], made["review"]) == ("approve", True)  # approved only if a person says so
    assert flags["rule"].tolist() == ["malformed_answer"] and f"more than {MAX_MARKS:,} marks" in flags["detail"][0]
    assert marks_of(keypoints(MAX_MARKS + 1)) is None  # and still compared with nobody's (the cost bound)


def test_at_the_cap_both_pages_approve_and_tampering_elsewhere_still_rejects(specs: dict[str, Spec]) -> None:
    for spec in specs.values():
        made, _ = decision(spec, {"spots_0": keypoints(MAX_MARKS), "words_0": entities(MAX_MARKS)})
        assert (made["action"], made["review"]) == ("approve", False)
    # over the cap where the page set none, but another field broke a rule the page did enforce: rejected
    made, _ = decision(specs["own widget"], {"spots_0": keypoints(MAX_MARKS + 1),
                                             "words_0": entities(1, "verb")})
    assert (made["action"], made["review"]) == ("reject", False)


SPOTS = 3  # the keypoints' cap in the browser test below


@pytest.mark.browser
def test_the_widget_stops_at_the_cap_and_the_submit_check_refuses_more(tmp_path: Path, page) -> None:
    html, _ = rendered(tmp_path, PAGE, marked=MAX_MARKS + 1, assignment_id="A1", submit_url="/never")
    # the keypoints' cap is the one the page's spec carries (above): 3 clicks to reach, not 1,000 (~2 s of CPU)
    spots = f'"input": "crowd-keypoint", "max_marks": {MAX_MARKS}'
    assert spots in html
    page.set_content(html.replace(spots, f'"input": "crowd-keypoint", "max_marks": {SPOTS}'))
    page.eval_on_selector("crowd-keypoint .crowd-marks", """(frame, clicks) => {
        for (let n = 0; n < clicks; n++) {
            for (const type of ["mousedown", "mouseup"]) {
                frame.dispatchEvent(new MouseEvent(type, {bubbles: true, cancelable: true, clientX: 10 + n % 300,
                                                          clientY: 10 + Math.floor(n / 300)}));
            }
        }}""", SPOTS + 1)
    assert page.locator("crowd-keypoint .crowd-mark").count() == SPOTS
    said = page.locator("crowd-keypoint .crowd-marks-full")
    assert said.is_visible() and f"at most {SPOTS} marks" in said.inner_text()
    page.click("crowd-keypoint button")  # "Remove the last mark": room again, the message goes
    assert page.locator("crowd-keypoint .crowd-mark").count() == SPOTS - 1 and said.inner_text() == ""
    page.click("#submit-btn")  # the entity field came with one mark too many (initial-value)
    error = page.inner_text("#form-error")
    assert "Mark every word" in error and f"at most {MAX_MARKS:,} marks" in error and "Click every spot" not in error
    assert page.url == "about:blank"  # nothing was posted
