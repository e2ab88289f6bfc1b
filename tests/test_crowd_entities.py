"""MTurk's crowd-entity-annotation, as its reference documents it
(sms-ui-template-crowd-entity-annotation.html): attributes ``name``, ``header``, ``labels`` (a JSON array
of ``{label, shortDisplayName, fullDisplayName}``), ``text``; output ``{"entities": [{"label",
"startOffset", "endOffset"}]}`` under the element's name. Read as one field, its spans checked against the
element's own text and labels, answered by the simulated crowd with names of the item's text, and a
page in the documented shape (the element alone, no crowd-form) imported and run end to end. The
fixtures are written for these tests, not copied."""

from __future__ import annotations

import csv
import html
import json
import random
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.pages.crowd_elements import flatten_task_answers, task_answers, unreadable_crowd_elements
from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import answer_xml, form_fields, parse_answer_xml
from flows.sim.people.entity_spans import entities, names
from qc.form_constraints import check_form

WILD = Path(__file__).parent / "pages_wild"
TEXT = "Nadia Petrova opened a bakery in Porto with help from Harbour Bank."
LABELS = ("[{'label': 'person', 'shortDisplayName': 'per', 'fullDisplayName': 'Person'}, "
          "{'label': 'place', 'shortDisplayName': 'pla', 'fullDisplayName': 'Place'}, "
          "{'label': 'company', 'shortDisplayName': 'com', 'fullDisplayName': 'Company'}]")
ELEMENT = f'<crowd-form><crowd-entity-annotation name="names_0" header="Mark names" labels="{LABELS}" ' \
          f'text="{TEXT}"><short-instructions>Mark names.</short-instructions></crowd-entity-annotation></crowd-form>'


def spec() -> dict:
    return form_spec(form_fields(ELEMENT))


def test_the_element_is_one_field_with_its_labels_and_text() -> None:
    fields = form_fields(ELEMENT)
    assert [(f.name, f.kind, f.options) for f in fields] == \
        [("names_0", "crowd-entity-annotation", ["person", "place", "company"])]
    assert unreadable_crowd_elements(ELEMENT) == []
    rule = spec()["fields"][0]
    assert rule["type"] == "annotations" and rule["text"] == TEXT and not rule["required"]


def test_labels_passed_through_to_json_from_an_item_column_are_read() -> None:
    """A Ground Truth page writes ``labels="{{ task.input.labels | to_json | escape }}"``; an item file's
    column holds the array as JSON text, so the attribute is that text as a JSON string."""
    column = json.dumps([{"label": "person"}, {"label": "place"}])
    page = ELEMENT.replace(f'labels="{LABELS}"', f'labels="{html.escape(json.dumps(column))}"')
    assert [f.options for f in form_fields(page)] == [["person", "place"]]


def test_the_documented_output_reads_back_and_passes_the_pages_rules() -> None:
    answer = {"entities": [{"endOffset": 13, "label": "person", "startOffset": 0},
                           {"endOffset": 38, "label": "place", "startOffset": 33}]}
    flat = flatten_task_answers(json.dumps([{"names_0": answer}]))  # the taskAnswers frame, keyed by name
    assert json.loads(flat["names_0"]) == answer
    assert TEXT[0:13] == "Nadia Petrova" and TEXT[33:38] == "Porto"
    posted = task_answers(flat, form_fields(ELEMENT))  # what the stand-in posts for it, the same shape
    assert json.loads(posted["taskAnswers"]) == [{"names_0": answer}]
    read = parse_answer_xml(answer_xml({"taskAnswers": posted["taskAnswers"]}))
    assert check_form(spec(), read) == []
    assert check_form(spec(), {"names_0": '{"entities": []}'}) == []  # "nothing to mark" is an answer


@pytest.mark.parametrize("value, rule", [
    ('{"entities": [{"label": "person", "startOffset": 0, "endOffset": 99}]}', "malformed"),  # past the text
    ('{"entities": [{"label": "person", "startOffset": 5, "endOffset": 5}]}', "malformed"),  # an empty span
    ('{"entities": [{"label": "person", "startOffset": "0", "endOffset": 5}]}', "malformed"),
    ('{"entities": [{"label": "person", "startOffset": 0, "endOffset": 13}, '
     '{"label": "place", "startOffset": 6, "endOffset": 20}]}', "malformed"),  # overlapping spans
    ('{"entities": {"label": "person"}}', "malformed"),
    ("not json", "malformed"),
    ('{"entities": [{"label": "animal", "startOffset": 0, "endOffset": 5}]}', "not_an_option"),
])
def test_a_malformed_answer_breaks_the_pages_rules(value: str, rule: str) -> None:
    assert [p["rule"] for p in check_form(spec(), {"names_0": value})] == [rule]


def test_names_are_found_with_the_kind_their_words_suggest() -> None:
    found = {TEXT[a:b]: kind for a, b, kind in names(TEXT)}
    assert found == {"Nadia Petrova": "person", "Porto": "location", "Harbour Bank": "organization"}
    assert names("Weather was mild on the coast all week.") == []  # an everyday first word is no name
    kinds = {t[a:b]: k for t in ["The Orchard Institute hired Leo Marsh in Tallinn."] for a, b, k in names(t)}
    assert kinds == {"Orchard Institute": "organization", "Leo Marsh": "person", "Tallinn": "location"}


def test_simulated_workers_mark_the_texts_names_with_the_elements_labels() -> None:
    labels = ["person", "place", "company"]
    careful = [json.loads(entities(TEXT, labels, "honest", True, random.Random(s)))["entities"] for s in range(40)]
    marked = [(TEXT[e["startOffset"]:e["endOffset"]], e["label"]) for es in careful for e in es]
    assert ("Nadia Petrova", "person") in marked and ("Porto", "place") in marked
    assert {label for _, label in marked} <= set(labels)
    complete = sum(len(es) == 3 for es in careful) / len(careful)
    assert 0.5 < complete < 1.0  # honest noise: a name missed now and then, most answers whole
    for s in range(40):  # every answer, rushed or contrarian too, passes the element's own rules
        for profile, care in (("honest", False), ("contrarian", True), ("speeder", False)):
            value = entities(TEXT, labels, profile, care, random.Random(s))
            assert check_form(spec(), {"names_0": value}) == []
    assert entities(TEXT, labels, "honest", True, random.Random(7)) == \
        entities(TEXT, labels, "honest", True, random.Random(7))


def test_labels_that_mean_no_known_kind_are_shared_by_the_crowd() -> None:
    picks = {entities(TEXT, ["alpha", "beta"], "honest", True, random.Random(s)) for s in range(30)}
    per_span: dict[tuple[int, int], set[str]] = {}
    for p in picks:
        for e in json.loads(p)["entities"]:
            per_span.setdefault((e["startOffset"], e["endOffset"]), set()).add(e["label"])
    assert per_span and all(len(v) == 1 for v in per_span.values())  # every careful worker: one label a name


def test_a_page_in_the_documented_shape_imports_and_runs_end_to_end(tmp_path: Path, monkeypatch, capsys) -> None:
    assert main(["new", "ner", "--from", str(WILD / "entity_annotation.liquid.html"), "--dir", str(tmp_path)]) == 0
    assert 'extends "_crowd_page.html.j2"' in (tmp_path / "config" / "ner.html.j2").read_text()
    sentences = [TEXT, "The Orchard Institute hired Leo Marsh in Tallinn.", "Ivo Kranjc sailed from Split to Venice.",
                 "Weather was mild on the coast all week."]  # no name: "nothing to mark" is the honest answer
    with (tmp_path / "config" / "ner_items.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["item_id", "sentence"], *[[f"s{n}", t] for n, t in enumerate(sentences)]])
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/ner.toml", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "fields found: names" in out and "PROBLEM" not in out
    assert main(["run", "config/ner.toml", "--no-prefect"]) == 0
    data = pd.read_csv(tmp_path / "runs" / "ner" / "dataset.csv", keep_default_na=False, dtype=str)
    assert set(data["field"]) == {"names"} and len(data) >= 9
    texts = dict(enumerate(sentences))
    for row in data.itertuples():
        text = texts[int(row.item_id[1:])]
        for e in json.loads(row.value)["entities"]:
            assert 0 <= e["startOffset"] < e["endOffset"] <= len(text) and e["label"] in ("person", "place", "company")
    marked = {texts[int(r.item_id[1:])][e["startOffset"]:e["endOffset"]] for r in data.itertuples()
              for e in json.loads(r.value)["entities"]}
    assert {"Nadia Petrova", "Leo Marsh", "Venice"} <= marked
    responses = pd.read_csv(tmp_path / "runs" / "ner" / "responses.csv", keep_default_na=False, dtype=str)
    nothing = responses[responses["value"].map(lambda v: v.startswith("{") and json.loads(v) == {"entities": []})]
    assert len(nothing) >= 2 and not nothing["reasons"].str.contains("empty_answer").any()


def test_an_empty_list_of_marks_is_an_answer_and_no_marks_at_all_is_not() -> None:
    from qc.custom_rules import has_value

    assert has_value('{"entities": []}', "annotations")  # the element's own "nothing to mark"
    assert not has_value("{}", "annotations") and not has_value("", "annotations")  # nothing posted for it
    assert not has_value('{"entities": []}')  # a script-built JSON field of blanks stays empty
