""""At least one of these boxes", each box its own field: a page whose script refuses a submit with none of
several separately named checkboxes ticked (MTurk's crowd-checkbox shape, bench/crowd_probe/review_aspects.html,
and plain boxes sharing a name prefix, tests/pages/required/aspects.html). The run at import finds the group
and marks each box ``data-one-of="<group>_{{ i }}"``; the spec holds it as a ``one_of`` group, and a response
with none ticked is a skipped required answer: never approved, on MTurk and on Prolific."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import form_fields
from flows.custom.submit_probe import one_of_name
from qc.form_constraints import check_form, describe_groups, problems_text
from qc.skipped_required import blank_fields
from tests.test_crowd_probe import submits
from tests.test_required_as_page import PAGES

CROWD_PAGES = Path(__file__).resolve().parents[1] / "bench" / "crowd_probe"
ASPECTS = ("food", "drink", "service", "price", "place", "wait", "nothing")
PLAIN = ("a_food", "a_drink", "a_service", "a_price", "a_none")
BOXES = """<input type="checkbox" name="x_food" data-one-of="x_0">
<input type="checkbox" name="x_wine" data-one-of="x_0">
<input type="checkbox" name="odd"><input type="text" name="note">"""


def marked(body: str) -> dict[str, str]:
    """Each field of the item block -> its data-one-of ("" when none)."""
    out = {}
    for tag in re.findall(r"<(?:input|crowd-[a-z-]+)\b[^>]*>", body):
        name = re.search(r'name="([^"]+)_\{\{ i \}\}"', tag)
        group = re.search(r'data-one-of="([^"]+)"', tag)
        if name:
            out[name[1]] = group[1] if group else ""
    return out


def test_a_group_with_none_answered_is_a_skipped_required_answer_and_one_answered_is_not() -> None:
    spec = form_spec(form_fields(BOXES))
    assert spec["one_of"] == [{"name": "x_0", "fields": ["x_food", "x_wine"]}]
    blank = check_form(spec, {"x_food": "", "x_wine": "", "odd": "on", "note": "fine"})
    assert blank_fields(problems_text(blank)) == ["x_0"]
    assert not check_form(spec, {"x_food": "", "x_wine": "on", "odd": "", "note": ""})
    assert describe_groups(spec) == ["x_0 (group): required, at least one of x_food, x_wine"]
    assert "one_of" not in form_spec(form_fields(BOXES.replace('data-one-of="x_0"', "")))


def test_a_group_is_named_by_the_class_its_boxes_share_else_by_their_names_common_start() -> None:
    tags = ['<input class="aspect big" name="food_{{ i }}">', '<input class="aspect" name="drink_{{ i }}">']
    assert one_of_name(tags, ["food", "drink"], set()) == "aspect"
    unshared = [tags[0], tags[1].replace("aspect", "wide")]
    assert one_of_name(unshared, ["topic_food", "topic_drink"], set()) == "topic"
    assert one_of_name(unshared, ["food", "fun"], set()) == "f_group"  # too short a start to name a group alone
    assert one_of_name(tags, ["food", "drink"], {"aspect_{{ i }}"}) == "aspect_group"  # never a field's name


@pytest.mark.browser
def test_the_crowd_shape_becomes_a_group_its_page_still_enforces(probing, browser) -> None:
    body, notes, page = probing((CROWD_PAGES / "review_aspects.html").read_text(encoding="utf-8"))
    assert marked(body) == {**dict.fromkeys(ASPECTS, "aspect_{{ i }}"), "extra": ""}
    assert any('data-one-of="aspect_{{ i }}"' in n for n in notes)
    spec = form_spec(form_fields(page))
    assert [g["fields"] for g in spec["one_of"]] == [[f"{a}_0" for a in ASPECTS]]
    none = dict.fromkeys((f"{a}_0" for a in ASPECTS), "")
    assert submits(browser, page) and submits(browser, page, {**none, "wait_0": "on"})
    assert not submits(browser, page, none)  # hitflow's stand-in shows the ticks as MTurk's elements do


@pytest.mark.browser
def test_plain_boxes_sharing_a_prefix_become_a_group_and_unchecked_ones_stay_optional(probing) -> None:
    body, _notes, _page = probing((PAGES / "aspects.html").read_text(encoding="utf-8"))
    assert marked(body) == {**dict.fromkeys(PLAIN, "a_group_{{ i }}"), "go": "", "flag_item": ""}
    body, _notes, _page = probing((PAGES / "aspects_unchecked.html").read_text(encoding="utf-8"))
    assert set(marked(body).values()) == {""}
