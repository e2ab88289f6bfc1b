"""Requirements only a page's script shows, read by running it at import (flows/sim/pages/script_probe.py,
flows/sim/pages/probe_reads.py, flows/custom/submit_probe.py), on the pages of tests/pages/script_rules/ (a
fragment and a full document per shape): a checkbox group whose every box carries ``required`` until the
script lifts it once one is ticked is "at least one", not "every box"; controls the script makes required as
the page loads are required; a word range a submit listener on ``document``/``window`` refuses becomes the
field's word limits. One Chromium for the module."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import form_fields
from flows.custom.page_import import import_page
from flows.custom.scaffold_import import free_text_fields, template_text
from qc.form_constraints import check_form

PAGES = Path(__file__).resolve().parent / "pages" / "script_rules"

# every box required and a script that never lifts it (it checks another box): "every box" stays
EVERY_BOX = """<p>Confirm each step (all of them):
<label><input type="checkbox" name="step" value="read" required> I read the text</label>
<label><input type="checkbox" name="step" value="checked" required> I checked the numbers</label></p>
<p>Code <input id="code" name="code"></p>
<script>
document.getElementById('code').addEventListener('input', function (e) {
  e.target.setCustomValidity(/^[0-9]*$/.test(e.target.value) ? '' : 'Digits only');
});
</script>"""

# a minimum counted in characters: no word limit is read from it
CHARACTERS = """<p>Describe the picture <textarea id="say" name="say"></textarea></p>
<script>
document.addEventListener('submit', function (e) {
  if (document.getElementById('say').value.length < 40) { e.preventDefault(); alert('Write a little more'); }
}, true);
</script>"""


def tags(body: str, name: str) -> list[str]:
    """Each tag of the control ``name`` (x_{{ i }})."""
    return re.findall(rf"<[^>]*name=\"{name}_{{{{ i }}}}\"[^>]*>", body)


def required(tag: str) -> bool:
    return bool(re.search(r"\srequired\b", tag))


@pytest.mark.browser
@pytest.mark.parametrize(("page", "groups"), [("boxes", ("topic",)), ("boxes_doc", ("animals", "setting"))])
def test_every_box_required_until_one_is_ticked_is_at_least_one(probing, page: str, groups: tuple[str, ...]) -> None:
    body, notes, rendered = probing((PAGES / f"{page}.html").read_text(encoding="utf-8"))
    spec = form_spec(form_fields(rendered))
    for group in groups:
        assert tags(body, group) and all('data-min-selections="1"' in t and not required(t) for t in tags(body, group))
        options = next(f["options"] for f in spec["fields"] if f["name"] == f"{group}_0")
        one = {f["name"]: f.get("options", ["x"])[0] for f in spec["fields"] if f.get("type") in ("one", "many")}
        assert not check_form(spec, {**one, f"{group}_0": options[-1]})  # one box: what a person sends
        assert check_form(spec, {**one, f"{group}_0": ""})  # none: still refused
    assert any("at least one" in n for n in notes)


@pytest.mark.browser
def test_a_group_whose_script_never_lifts_the_requirement_keeps_every_box(probing) -> None:
    body, _notes, _page = probing(EVERY_BOX)
    assert tags(body, "step") and all(required(t) and "data-min-selections" not in t for t in tags(body, "step"))


@pytest.mark.browser
@pytest.mark.parametrize(("page", "made", "optional"), [("must", ("category", "reason"), ("brand",)),
                                                        ("must_doc", ("tone", "keyword", "click"), ("comments",)),
                                                        ("names_list", ("helpful", "polite"), ())])
def test_a_control_the_script_makes_required_as_the_page_loads_is_required(probing, page: str, made: tuple[str, ...],
                                                                          optional: tuple[str, ...]) -> None:
    source = (PAGES / f"{page}.html").read_text(encoding="utf-8")
    assert not re.search(r"<(?:input|select)[^>]*\srequired", source)  # the HTML requires none of them
    body, _notes, _page = probing(source)
    assert all(any(required(t) for t in tags(body, name)) for name in made)
    assert not any(required(t) for name in optional for t in tags(body, name))


@pytest.mark.browser
@pytest.mark.parametrize(("page", "field", "limits"), [("words", "rewrite", (8, 30)),
                                                       ("words_doc", "summary", (5, 20))])
def test_a_word_range_a_capture_listener_refuses_becomes_the_field_s_word_limits(probing, page: str, field: str,
                                                                                 limits: tuple[int, int]) -> None:
    source = (PAGES / f"{page}.html").read_text(encoding="utf-8")
    body, notes, _page = probing(source)
    assert all(required(t) for t in tags(body, field))
    stated = {name: words for name, _kind, _personal, words in free_text_fields(body)}
    assert stated[field] == limits  # written into the campaign's [qc.fields.<field>] min_words, max_words
    assert any(f"fewer than {limits[0]} words" in n and f"more than {limits[1]}" in n for n in notes)


@pytest.mark.browser
def test_a_minimum_counted_in_characters_is_no_word_limit(probing) -> None:
    body, _notes, _page = probing(CHARACTERS)
    assert any(required(t) for t in tags(body, "say"))  # a blank is refused: required
    assert "data-min-words" not in body and "data-max-words" not in body


def test_the_dry_run_names_a_submit_hook_on_document_whose_checks_are_not_read() -> None:
    from flows.custom.script_targets import unread_hook

    for page in ("words", "words_doc"):
        source = (PAGES / f"{page}.html").read_text(encoding="utf-8")
        template = template_text(import_page(source, f"{page}.html"), Path(f"{page}.html"), source)
        assert any("hooks a submit" in line for line in unread_hook(template))
    source = (PAGES / "must.html").read_text(encoding="utf-8")
    assert unread_hook(template_text(import_page(source, "must.html"), Path("must.html"), source)) == []


def test_a_forms_onsubmit_the_import_read_is_not_named_as_an_unread_hook() -> None:
    """The import turns ``<form onsubmit>`` into its own listener on hitflow's form and reads its checks itself."""
    from flows.custom.script_targets import unread_hook

    source = ('<form id="f" onsubmit="return check();"><p>${text}</p><textarea name="why"></textarea></form>'
              '<script>function check() { if (document.getElementById("why").value.split(" ").length < 3) '
              '{ alert("Write at least 3 words"); return false; } return true; }</script>')
    template = template_text(import_page(source, "own.html"), Path("own.html"), source)
    assert 'addEventListener("submit"' in template
    assert unread_hook(template) == []
    hooked = template.replace("<script>function check",
                              '<script>document.addEventListener("submit", check);\nfunction check')
    assert any("hooks a submit" in line for line in unread_hook(hooked))

