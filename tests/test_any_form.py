"""Any page's form: the rules its controls declare, checked as a browser does, and simulated workers
who fill every control within them, in their profile's manner."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import form_fields
from flows.sim.mturk.question_form import question_form_answer, question_form_fields
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.people import crowd
from flows.sim.people.crowd_model import PROFILE_DEFAULTS, Worker
from flows.sim.people.pattern_text import matching_text
from qc.form_constraints import check_field, check_form

ROOT = Path(__file__).resolve().parents[1]
EVERY_CONTROL = """<form action="/submit">
<h1>Rate the photos</h1><p>Look at each photo and answer every question.</p>
{items}
<input type="submit" value="Send"></form>"""
ITEM = """<section><h2>Photo {i}</h2><img src="https://example.org/{i}.jpg" alt="photo">
<p>{text}</p>
<input type="hidden" name="image_id_{i}" value="{item}">
<label>Describe:</label><textarea name="description_{i}" required minlength="25" maxlength="140"></textarea>
<input type="radio" name="has_text_{i}" value="yes" required><input type="radio" name="has_text_{i}" value="no">
<input type="checkbox" name="problems_{i}" value="blurry"><input type="checkbox" name="problems_{i}" value="dark">
<input type="checkbox" name="consent_{i}" value="agree" required>
<select name="setting_{i}" required><option value="">choose</option><option value="indoor">in</option>
<option value="outdoor">out</option></select>
<input type="number" name="people_{i}" min="1" max="9" step="2" required>
<input type="range" name="confidence_{i}" min="10" max="50" step="5">
<input type="text" name="code_{i}" pattern="[A-Z]{{3}}-[0-9]{{2}}" required>
<input type="email" name="contact_{i}">
<input type="hidden" name="kept_{i}" value="as-set">
</section>"""
TEXTS = ["A red bus parked beside a brick station in heavy rain.", "Two children fly a green kite on a windy beach.",
         "A grey cat sleeps on a folded blue blanket by the window."]


def page(texts: list[str] = TEXTS) -> str:
    return EVERY_CONTROL.format(items="".join(ITEM.format(i=i, text=t, item=f"item-{i}") for i, t in enumerate(texts)))


def worker(profile: str, n: int = 0) -> Worker:
    return Worker(f"W{profile}{n}", profile, dict(PROFILE_DEFAULTS[profile]), 1000, 99, skill=0.9)


def fill(w: Worker, html: str, bank: dict[str, crowd.BankEntry] | None = None, seed: int = 0) -> dict[str, str]:
    return fill_form(w, form_fields(html), page_rules(html), 0, 100, bank or {}, random.Random(seed), html=html)


# --- the rules a page's controls declare ------------------------------------------------------

def test_spec_reads_every_control_type_and_constraint() -> None:
    spec = {f["name"]: f for f in form_spec(form_fields(page()))["fields"]}
    assert spec["description_0"] == {"name": "description_0", "type": "text", "input": "textarea", "required": True,
                                     "minlength": 25, "maxlength": 140}
    assert spec["has_text_0"]["type"] == "one" and spec["has_text_0"]["options"] == ["yes", "no"]
    assert spec["problems_0"]["type"] == "many" and spec["problems_0"]["required_options"] == []
    assert spec["consent_0"]["required_options"] == ["agree"]
    assert spec["setting_0"] == {"name": "setting_0", "type": "one", "required": True,
                                 "options": ["indoor", "outdoor"]}  # its blank placeholder is no answer
    assert (spec["people_0"]["min"], spec["people_0"]["max"], spec["people_0"]["step"]) == (1.0, 9.0, 2.0)
    assert spec["confidence_0"]["required"] is False and spec["confidence_0"]["base"] == 10.0
    assert spec["code_0"]["pattern"] == "[A-Z]{3}-[0-9]{2}"
    assert spec["contact_0"]["input"] == "email"
    assert "kept_0" not in spec and "image_id_0" not in spec  # hidden fields are left as set, not answered


@pytest.mark.parametrize(("rule", "value", "broken"), [
    ({"type": "text", "required": True}, "", "required"),
    ({"type": "text", "required": False, "minlength": 5}, "", ""),  # empty passes all but required
    ({"type": "text", "minlength": 5}, "abcd", "too_short"),
    ({"type": "text", "minlength": 2}, "\U0001F600", ""),  # one emoji is two UTF-16 code units
    ({"type": "text", "maxlength": 3}, "a\r\nb", ""),  # a submitted CRLF counts once
    ({"type": "text", "maxlength": 3}, "abcd", "too_long"),
    ({"type": "text", "pattern": "[A-Z]{3}"}, "ABCD", "pattern"),  # the whole value must match
    ({"type": "text", "pattern": "[A-Z]{3}"}, "ABC", ""),
    ({"type": "text", "pattern": "(unclosed"}, "x", ""),  # a pattern that does not compile is ignored
    ({"type": "text", "input": "email"}, "not-an-address", "format"),
    ({"type": "one", "required": True, "options": ["a", "b"]}, "", "required"),
    ({"type": "one", "required": False, "options": ["a", "b"]}, "c", "not_an_option"),
    ({"type": "one", "required": False, "options": ["a", "b"]}, "a|b", "not_an_option"),  # one per group
    ({"type": "many", "options": ["a", "b"], "required_options": ["b"]}, "a", "too_few"),
    ({"type": "many", "options": ["a", "b"], "min": 1}, "", "required"),  # none ticked: the question skipped
    ({"type": "many", "options": ["a", "b", "c"], "min": 2}, "a", "too_few"),
    ({"type": "many", "options": ["a", "b", "c"], "max": 2}, "a|b|c", "too_many"),
    ({"type": "number", "required": True}, "", "required"),
    ({"type": "number", "min": 1, "max": 9}, "ten", "not_a_number"),
    ({"type": "number", "min": 1, "max": 9}, "10", "out_of_range"),
    ({"type": "number", "min": 1, "max": 9, "step": 2, "base": 1}, "4", "step"),
    ({"type": "number", "min": 1, "max": 9, "step": 2, "base": 1}, "5", ""),
    ({"type": "number", "min": 0, "step": "any", "base": 0}, "0.137", ""),
])
def test_each_constraint_is_checked_as_a_browser_does(rule: dict, value: str, broken: str) -> None:
    assert check_field({"name": "f", **rule}, value) == broken


def test_check_form_reports_every_broken_field_not_only_the_first() -> None:
    spec = form_spec(form_fields(page()))
    problems = check_form(spec, {})
    broken = {p["field"] for p in problems}
    assert {"description_0", "has_text_2", "consent_1", "setting_0", "people_2", "code_1"} <= broken
    assert "problems_0" not in broken and "contact_0" not in broken  # optional ones pass empty


# --- simulated workers on any page ------------------------------------------------------------

HONEST_AND_ABUSIVE = [p for p in PROFILE_DEFAULTS if p != "rule_breaker"]


@pytest.mark.parametrize("profile", HONEST_AND_ABUSIVE)
def test_every_profile_but_the_rule_breaker_answers_within_the_constraints(profile: str) -> None:
    html = page()
    spec = form_spec(form_fields(html))
    for n in range(3):
        values = fill(worker(profile, n), html, seed=n)
        assert check_form(spec, values) == [], (profile, values)
        assert values["kept_0"] == "as-set" and values["image_id_1"] == "item-1"


def test_rule_breakers_leave_required_fields_empty_as_if_the_page_was_bypassed() -> None:
    html = page()
    values = fill(worker("rule_breaker"), html)
    problems = check_form(form_spec(form_fields(html)), values)
    assert problems and all(p["rule"] == "required" for p in problems)


def test_honest_text_comes_from_the_item_and_differs_between_items() -> None:
    html = page()
    values = fill(worker("diligent"), html)
    texts = [values[f"description_{i}"] for i in range(3)]
    assert len({t.lower() for t in texts}) == 3
    for text, source in zip(texts, TEXTS, strict=True):
        assert {w for w in source.lower().split() if len(w) > 4} & set(text.lower().replace(".", "").split())
    assert "answer every question" not in " ".join(texts)  # the page's instructions are not the item's text


def test_honest_workers_use_the_bank_captions_of_a_known_item() -> None:
    bank = {"item-0": crowd.BankEntry(["A lighthouse on a cliff above a stormy sea at dusk."], 0)}
    values = fill(worker("diligent"), page(), bank)
    assert "lighthouse" in values["description_0"].lower()


def test_pasters_paste_one_text_everywhere_and_contrarians_straight_line() -> None:
    pasted = fill(worker("template_paster"), page())
    assert len({pasted[f"description_{i}"] for i in range(3)}) == 1
    contrarian = fill(worker("contrarian"), page())
    assert {contrarian[f"has_text_{i}"] for i in range(3)} == {"yes"}
    assert {contrarian[f"setting_{i}"] for i in range(3)} == {"indoor"}


def test_speeders_write_less_than_diligent_workers() -> None:
    long = [len(fill(worker("diligent", n), page(), seed=n)["description_0"]) for n in range(5)]
    short = [len(fill(worker("speeder", n), page(), seed=n)["description_0"]) for n in range(5)]
    assert sum(short) < sum(long) and min(short) >= 25  # still long enough for the page


def test_a_hitflow_rule_spec_on_the_page_is_honoured_too() -> None:
    html = ('<form action="/s"><input type="checkbox" name="pick_0" value="a"><input type="checkbox" name="pick_0" '
            'value="b"><input type="checkbox" name="pick_0" value="none"></form>'
            '<script type="application/json" id="submit-rules">{"questions": [{"name": "pick_0", "type": "many", '
            '"options": ["a", "b", "none"], "min": 1, "exclusive": "none"}]}</script>')
    for n in range(8):
        ticks = fill(worker("speeder", n), html, seed=n)["pick_0"].split("|")
        assert ticks != [""] and not ("none" in ticks and len(ticks) > 1)


@pytest.mark.parametrize("pattern", [r"[A-Z]{3}-\d{4}", r"(yes|no)", r"\w+@\w+\.org", r"[^0-9 ]{5,}"])
def test_text_for_a_pattern_matches_it(pattern: str) -> None:
    import re

    text = matching_text(pattern, random.Random(3))
    assert text is not None and re.fullmatch(pattern, text)


def test_no_text_is_made_for_a_pattern_qc_refuses() -> None:
    """A back-reference cannot be matched in bounded time (qc/page_patterns.py): a page carrying one is never
    posted, and no simulated worker types for it."""
    assert matching_text(r"(ab)\1c?", random.Random(3)) is None


QUESTION_FORM = """<QuestionForm xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2017-11-06/QuestionForm.xsd">
<Question><QuestionIdentifier>summary</QuestionIdentifier><IsRequired>true</IsRequired>
<QuestionContent><Text>Summarise: a man repairs a bicycle tyre on a sunny street corner.</Text></QuestionContent>
<AnswerSpecification><FreeTextAnswer><Constraints><Length minLength="15" maxLength="120"/></Constraints>
</FreeTextAnswer></AnswerSpecification></Question>
<Question><QuestionIdentifier>age</QuestionIdentifier><IsRequired>true</IsRequired>
<QuestionContent><Text>How old is the bicycle, in years?</Text></QuestionContent>
<AnswerSpecification><FreeTextAnswer><Constraints><IsNumeric minValue="1" maxValue="40"/></Constraints>
</FreeTextAnswer></AnswerSpecification></Question>
<Question><QuestionIdentifier>colour</QuestionIdentifier><IsRequired>true</IsRequired>
<QuestionContent><Text>Colour of the bicycle</Text></QuestionContent>
<AnswerSpecification><SelectionAnswer><StyleSuggestion>radiobutton</StyleSuggestion><Selections>
<Selection><SelectionIdentifier>red</SelectionIdentifier><Text>Red</Text></Selection>
<Selection><SelectionIdentifier>blue</SelectionIdentifier><Text>Blue</Text></Selection></Selections>
</SelectionAnswer></AnswerSpecification></Question>
<Question><QuestionIdentifier>parts</QuestionIdentifier><IsRequired>true</IsRequired>
<QuestionContent><Text>Parts you can see</Text></QuestionContent>
<AnswerSpecification><SelectionAnswer><MinSelectionCount>1</MinSelectionCount><MaxSelectionCount>2</MaxSelectionCount>
<StyleSuggestion>checkbox</StyleSuggestion><Selections>
<Selection><SelectionIdentifier>wheel</SelectionIdentifier><Text>Wheel</Text></Selection>
<Selection><SelectionIdentifier>chain</SelectionIdentifier><Text>Chain</Text></Selection>
<Selection><SelectionIdentifier>bell</SelectionIdentifier><Text>Bell</Text></Selection></Selections>
</SelectionAnswer></AnswerSpecification></Question></QuestionForm>"""


def test_question_form_questions_become_fields_with_their_constraints() -> None:
    from flows.core.pages.mturk_forms import parse_answer_xml

    fields = question_form_fields(QUESTION_FORM)
    spec = {f["name"]: f for f in form_spec(fields)["fields"]}
    assert (spec["summary"]["minlength"], spec["summary"]["maxlength"]) == (15, 120)
    assert (spec["age"]["type"], spec["age"]["min"], spec["age"]["max"]) == ("number", 1.0, 40.0)
    assert spec["colour"]["type"] == "one" and spec["parts"]["type"] == "many"
    assert (spec["parts"]["min"], spec["parts"]["max"]) == (1, 2)
    values = fill_form(worker("diligent"), fields, page_rules(""), 0, 100, {}, random.Random(1), page_key="HIT1")
    assert check_form(form_spec(fields), values) == []
    xml = question_form_answer(values, fields)
    assert "<SelectionIdentifier>" in xml and parse_answer_xml(xml) == values


# --- generic QC over a custom page's answers ---------------------------------------------------

def _frames() -> tuple:
    import pandas as pd

    from flows.custom.custom_task import field_kind

    responses, answers = [], []
    workers = {"WHONEST1": "diligent", "WHONEST2": "diligent", "WHONEST3": "diligent", "WPASTE": "template_paster",
               "WSAME": "contrarian", "WBREAK": "rule_breaker"}
    # five items: four leave a contrarian's one answer on every item too likely by chance to block
    html = page([*TEXTS, "A yellow taxi waits at a red light on a wet street.",
                 "An old dog naps under a garden bench."])
    spec = form_spec(form_fields(html))
    for n, (wid, profile) in enumerate(workers.items()):
        w = Worker(wid, profile, dict(PROFILE_DEFAULTS[profile]), 1000, 99, skill=0.95)
        values = fill(w, html, seed=n)
        aid = f"A{n}"
        problems = "; ".join(f"{p['field']}: {p['rule']}" for p in check_form(spec, values))
        responses.append({"assignment_id": aid, "worker_id": wid, "work_time_s": 60.0 + n, "problems": problems})
        for f in spec["fields"]:
            base, _, index = f["name"].rpartition("_")
            answers.append({"assignment_id": aid, "worker_id": wid, "image_id": f"item-{index}", "field": base,
                            "kind": field_kind(f), "answer": values.get(f["name"], "")})
    return pd.DataFrame(responses), pd.DataFrame(answers)


def test_generic_qc_flags_the_bypass_the_paste_and_the_straight_line_not_the_honest() -> None:
    from flows.custom.custom_review import custom_flags
    from qc.custom_rules import CUSTOM_RULES

    responses, answers = _frames()
    flags = custom_flags(responses, answers, {"random_sample_share": 0.0, "straight_lining_min_items": 3},
                         CUSTOM_RULES)
    by_rule = {r: set(flags.loc[flags["rule"] == r, "worker_id"]) for r in flags["rule"].unique()}
    assert by_rule["invalid_answer"] == {"WBREAK"}
    assert "WPASTE" in by_rule["duplicate_text"] and "WPASTE" in by_rule.get("shared_template", set())
    assert all(d.startswith("description: ") for d in flags.loc[flags["rule"] == "duplicate_text", "detail"])
    assert "WSAME" in by_rule["choice_straight_lining"]
    honest = {"WHONEST1", "WHONEST2", "WHONEST3"}
    assert not honest & (by_rule["invalid_answer"] | by_rule["duplicate_text"] | by_rule["shared_template"]
                         | by_rule["choice_straight_lining"])
    assert set(flags["detail"].str.split(":").str[0]) >= {"description"}  # codes and addresses are no prose
    assert not flags["detail"].str.startswith(("code:", "contact:")).any()
