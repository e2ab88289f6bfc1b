"""Crowd elements written and answered as MTurk's element reference documents them:
a crowd-radio-group whose buttons each carry their own name (the reference's sample output is one
entry per button, ``[{"btn1": {"yes": true}, "btn2": {"no": false}}]``) is one answer field valued the
chosen option; the other elements' documented output shapes read back. The fixtures are written for
these tests in the documented shapes (sms-ui-template-<element>.html), not copied."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.pages.crowd_elements import flatten_task_answers, task_answers, unreadable_crowd_elements
from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import answer_xml, form_fields, parse_answer_xml
from flows.core.pages.radio_buttons import button_groups, merge_buttons
from flows.custom.scaffold import scaffold
from qc.form_constraints import check_form

# The reference's shape: a group with no attributes, each button named and valued on its own.
DOCUMENTED_GROUP = ('<crowd-form><crowd-radio-group>'
                    '<crowd-radio-button name="btn1" value="yes">Yes</crowd-radio-button>'
                    '<crowd-radio-button name="btn2" value="no">No</crowd-radio-button>'
                    '</crowd-radio-group></crowd-form>')


def test_a_group_of_named_buttons_is_one_field_answered_per_button() -> None:
    fields = form_fields(DOCUMENTED_GROUP)
    assert [(f.name, f.kind, f.options) for f in fields] == [("btn", "radio", ["yes", "no"])]
    assert unreadable_crowd_elements(DOCUMENTED_GROUP) == []
    posted = json.loads(task_answers({"btn": "yes"}, fields)["taskAnswers"])
    assert posted == [{"btn1": {"yes": True}, "btn2": {"no": False}}]  # the reference's sample output
    rules = form_spec(fields)["fields"]
    read = merge_buttons(parse_answer_xml(answer_xml({"taskAnswers": json.dumps(posted)})), button_groups(rules))
    assert read == {"btn": "yes"} and check_form(form_spec(fields), read) == []


def test_the_documented_sample_output_reads_as_the_chosen_option() -> None:
    rules = form_spec(form_fields(DOCUMENTED_GROUP))["fields"]
    for sample, chosen in [('[{"btn1": {"yes": false}, "btn2": {"no": true}}]', "no"),
                           ('[{"btn1": {"yes": false}, "btn2": {"no": false}}]', "")]:
        assert merge_buttons(flatten_task_answers(sample), button_groups(rules)) == {"btn": chosen}
    both = merge_buttons(flatten_task_answers('[{"btn1": {"yes": true}, "btn2": {"no": true}}]'), button_groups(rules))
    assert check_form({"kind": "form", "fields": rules}, both) != []  # two options of one group is not an answer


@pytest.mark.parametrize("names, field", [
    (("blurry_0", "clear_0", "unusable_0"), "choice_0"),  # the item index kept, so the answer stays with its item
    (("btn1", "btn2", "btn3"), "btn"),
])
def test_the_group_field_name(names: tuple[str, ...], field: str) -> None:
    buttons = "".join(f'<crowd-radio-button name="{n}" value="v{k}">v</crowd-radio-button>'
                      for k, n in enumerate(names))
    assert [f.name for f in form_fields(f"<crowd-form><crowd-radio-group>{buttons}</crowd-radio-group></crowd-form>")] \
        == [field]
    named = f'<crowd-form><crowd-radio-group id="sharpness_0">{buttons}</crowd-radio-group></crowd-form>'
    assert [f.name for f in form_fields(named)] == ["sharpness_0"]


def test_a_group_mixing_shared_and_own_names_is_still_a_problem() -> None:
    page = ('<crowd-form><crowd-radio-group><crowd-radio-button name="a" value="1"></crowd-radio-button>'
            '<crowd-radio-button name="a" value="2"></crowd-radio-button><crowd-radio-button name="b" value="3">'
            '</crowd-radio-button></crowd-radio-group></crowd-form>')
    assert any("has buttons named a, b" in p for p in unreadable_crowd_elements(page))


def test_every_documented_output_shape_reads_back() -> None:
    """One answer in each element's documented output shape, as an MTurk results file would carry it."""
    answer = [{
        "title": "A red kite over a beach",  # crowd-input: the text
        "notes": "Two people.\nOne dog.",  # crowd-text-area: the text, line breaks kept
        "tick": {"on": True},  # crowd-checkbox with no value: "on"
        "colours": {"red": True, "green": False, "blue": True},  # crowd-checkbox group sharing a name
        "scene": {"label": "Outdoor"},  # crowd-classifier
        "animal": {"label": "Dog"},  # crowd-image-classifier
        "tags": {"labels": ["Sky", "Sea"]},  # the -multi-select variants
        "boxes": {"boundingBoxes": [{"label": "kite", "left": 10, "top": 20, "width": 30, "height": 40}],
                  "inputImageProperties": {"width": 640, "height": 480}},  # crowd-bounding-box
    }]
    flat = flatten_task_answers(json.dumps(answer))
    assert {k: v for k, v in flat.items() if k != "boxes"} == {
        "title": "A red kite over a beach", "notes": "Two people.\nOne dog.", "tick": "on", "colours": "red|blue",
        "scene": "Outdoor", "animal": "Dog", "tags": "Sky|Sea"}
    assert json.loads(flat["boxes"]) == answer[0]["boxes"]


PAGE = """{% extends "_crowd_page.html.j2" %}
{% block item %}
<p>{{ item.note }}</p>
<crowd-text-area name="description_{{ i }}" label="Describe the photo" required min-length="10"></crowd-text-area>
<crowd-radio-group>
  <crowd-radio-button name="sharp_{{ i }}" value="sharp">Sharp</crowd-radio-button>
  <crowd-radio-button name="blurry_{{ i }}" value="blurry">Blurry</crowd-radio-button>
</crowd-radio-group>
{% endblock %}
"""


def test_a_documented_group_runs_end_to_end_stored_as_the_chosen_option(tmp_path: Path, monkeypatch,
                                                                         capsys) -> None:
    scaffold("doc", tmp_path)
    (tmp_path / "config" / "doc.html.j2").write_text(PAGE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/doc.toml", "--dry-run"]) == 0
    assert "fields found: description, choice" in capsys.readouterr().out
    assert main(["run", "config/doc.toml", "--no-prefect"]) == 0
    data = pd.read_csv(tmp_path / "runs" / "doc" / "responses.csv", keep_default_na=False, dtype=str)
    assert set(data["field"]) == {"description", "choice"}
    choices = data[data["field"] == "choice"]
    assert len(choices) == data[data["field"] == "description"].shape[0] >= 6
    assert choices["value"].isin(["sharp", "blurry", ""]).all() and (choices["value"] != "").mean() > 0.5
