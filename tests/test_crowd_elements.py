"""MTurk's crowd HTML elements are first-class: read for their fields and
constraints, answered by the simulated crowd, and their single ``taskAnswers`` answer flattened into
one dataset column per element name, end to end on the simulator from ``hitflow new``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.pages.crowd_elements import flatten_task_answers, task_answers
from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import answer_xml, form_fields, parse_answer_xml
from flows.custom.scaffold import scaffold
from qc.form_constraints import check_form
from tests.small_configs import UNREHEARSED

PAGES = Path(__file__).parent / "pages"
ELEMENTS = {"scene": "crowd-image-classifier", "title": "crowd-input", "description": "crowd-text-area",
            "light": "crowd-radio-group", "issues": "crowd-checkbox", "quality": "crowd-slider",
            "comment": "crowd-text-area", "objects": "crowd-bounding-box", "centre": "crowd-keypoint"}


def test_the_reader_finds_every_element_and_its_constraints() -> None:
    html = (PAGES / "crowd_photo.html.j2").read_text().split("{% block item %}")[1].replace("{{ i }}", "0")
    fields = {f.name.removesuffix("_0"): f for f in form_fields(f"<crowd-form>{html}</crowd-form>")
              if f.attrs.get("data-crowd")}
    assert {n: f.attrs["data-crowd"] for n, f in fields.items()} == ELEMENTS
    rules = {r["name"].removesuffix("_0"): r for r in form_spec(list(fields.values()))["fields"]}
    assert rules["scene"]["options"] == ["indoor", "outdoor", "unclear"] and rules["scene"]["required"]
    assert rules["title"]["maxlength"] == 60 and rules["title"]["required"]
    assert rules["description"]["minlength"] == 20 and rules["description"]["maxlength"] == 300
    assert rules["light"]["options"] == ["bright", "dim"] and rules["issues"]["options"] == ["blurry", "cropped"]
    assert (rules["quality"]["min"], rules["quality"]["max"]) == (1, 5) and not rules["comment"]["required"]
    assert rules["objects"]["options"] == ["person", "vehicle"] and rules["centre"]["type"] == "annotations"
    assert rules["centre"]["options"] == ["centre"]  # crowd-keypoint's labels are labels= (its reference page)


def test_task_answers_round_trip_in_the_documented_shapes() -> None:
    page = ('<crowd-form><crowd-checkbox name="c" value="Red"></crowd-checkbox><crowd-checkbox name="c" value="Green">'
            '</crowd-checkbox><crowd-classifier name="k" categories="[\'a\', \'b\']"></crowd-classifier>'
            '<crowd-slider name="s" min="0" max="9"></crowd-slider><input type="hidden" name="image_id_0" value="x">'
            '</crowd-form>')
    fields = form_fields(page)
    posted = json.loads(task_answers({"c": "Red", "k": "b", "s": "7", "image_id_0": "x"}, fields)["taskAnswers"])
    # crowd-checkbox: {"<name>": {"<value>": bool}}; classifier: {"label": ...}; a slider a number
    assert posted == [{"c": {"Red": True, "Green": False}, "k": {"label": "b"}, "s": 7, "image_id_0": "x"}]
    assert flatten_task_answers(json.dumps(posted)) == {"c": "Red", "k": "b", "s": "7", "image_id_0": "x"}
    assert parse_answer_xml(answer_xml({"taskAnswers": json.dumps(posted)}))["c"] == "Red"


@pytest.mark.parametrize("bad", ["not json", "[1, 2]", '"text"'])
def test_a_malformed_task_answers_is_a_parse_error_not_a_crash(bad: str) -> None:
    import xml.etree.ElementTree as ET

    with pytest.raises(ET.ParseError, match="taskAnswers does not decode"):
        parse_answer_xml(answer_xml({"taskAnswers": bad}))


@pytest.fixture
def crowd_project(tmp_path: Path) -> Path:
    scaffold("crowd", tmp_path)
    shutil.copy(PAGES / "crowd_photo.html.j2", tmp_path / "config" / "crowd.html.j2")
    return tmp_path


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_a_crowd_form_page_runs_end_to_end_with_every_element_a_column(crowd_project: Path, platform: str,
                                                                        monkeypatch, capsys) -> None:
    monkeypatch.chdir(crowd_project)
    assert main(["run", "config/crowd.toml", "--dry-run", *UNREHEARSED]) == 0
    assert "fields found: " + ", ".join(ELEMENTS) in capsys.readouterr().out
    assert main(["run", "config/crowd.toml", "--no-prefect", "--platform", platform]) == 0
    data = pd.read_csv(crowd_project / "runs" / "crowd" / "responses.csv", keep_default_na=False, dtype=str)
    assert set(data["field"]) == set(ELEMENTS) and data["assignment_id"].nunique() >= 3
    honest = data[data["decision"] == "approve"]
    wide = honest.pivot_table(index=["assignment_id", "item_id"], columns="field", values="value", aggfunc="first")
    assert len(wide) >= 6
    assert wide["scene"].isin(["indoor", "outdoor", "unclear"]).all()
    assert wide["light"].isin(["bright", "dim", ""]).all()
    assert wide["title"].str.len().between(1, 60).all() and wide["description"].str.len().between(20, 300).all()
    assert wide["quality"].astype(int).between(1, 5).all()
    # an optional choice is answered by some (how often is each profile's skip rate, too noisy on ~9 rows to assert)
    assert (wide["light"] != "").any()
    assert wide["issues"].map(lambda v: set(filter(None, v.split("|"))) <= {"blurry", "cropped"}).all()
    for value in wide["objects"]:
        boxes = json.loads(value)["boundingBoxes"]
        assert boxes and all(b["label"] in ("person", "vehicle") and b["width"] > 0 for b in boxes)
    assert all(json.loads(v)["keypoints"][0]["label"] == "centre" for v in wide["centre"])
    # the form's own checks hold for every accepted answer (the server re-checks them as invalid_answer)
    item_block = (PAGES / "crowd_photo.html.j2").read_text().split("{% block item %}")[1]
    spec = form_spec(form_fields("<crowd-form>" + item_block.replace("{{ i }}", "0") + "</crowd-form>"))
    for (_, _), row in wide.iterrows():
        assert check_form(spec, {f"{k}_0": v for k, v in row.items()}) == []


def test_crowd_elements_outside_a_crowd_form_are_a_problem(crowd_project: Path, capsys) -> None:
    page = crowd_project / "config" / "crowd.html.j2"
    page.write_text(page.read_text().replace("_crowd_page.html.j2", "_custom_page.html.j2"), encoding="utf-8")
    assert main(["run", str(crowd_project / "config" / "crowd.toml"), "--dry-run"]) == 1
    assert "<crowd-input> (rendered line" in capsys.readouterr().out


def test_radio_buttons_mixing_shared_and_own_names_are_a_problem_not_a_lost_answer(crowd_project: Path,
                                                                                    capsys) -> None:
    """Each button its own name (MTurk's reference) or all one name reads; a mix would lose answers."""
    page = crowd_project / "config" / "crowd.html.j2"
    third = '<crowd-radio-button name="dark_{{ i }}" value="dark">dark</crowd-radio-button></crowd-radio-group>'
    page.write_text(page.read_text().replace("</crowd-radio-group>", third), encoding="utf-8")
    assert main(["run", str(crowd_project / "config" / "crowd.toml"), "--dry-run"]) == 1
    assert "has buttons named dark_0, light_0: give every crowd-radio-button" in capsys.readouterr().out


def test_a_keypoint_with_its_labels_in_keypoints_is_a_problem(crowd_project: Path, capsys) -> None:
    """MTurk's crowd-keypoint reads labels= (sms-ui-template-crowd-keypoint.html); keypoints= leaves no label."""
    page = crowd_project / "config" / "crowd.html.j2"
    page.write_text(page.read_text().replace("labels=\"['centre']\"", "keypoints=\"['centre']\""), encoding="utf-8")
    assert main(["run", str(crowd_project / "config" / "crowd.toml"), "--dry-run"]) == 1
    assert "<crowd-keypoint> 'centre_0' (rendered line" in (out := capsys.readouterr().out)
    assert "lists its labels in keypoints=, which MTurk does not read" in out
