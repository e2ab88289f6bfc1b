"""A required hidden field (one a page's own widget writes) left blank: no browser checks a hidden field's
``required``, and hitflow's page does not either, so a person who skips the widget was never told. Such a blank is
held for a person, never rejected (on Prolific it was a "left a required question unanswered" rejection); a blank
in a field the browser does check, and any rule the page did enforce, still rejects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows.core.config.config import load_config
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_spec
from flows.custom.scaffold import scaffold
from qc.form_constraints import Spec
from tests.test_mark_cap import decision  # one response decided as the QC step splits its problems

# tiles writing the level into a required hidden field, beside a required text box the browser checks
PAGE = """{% extends "_crowd_page.html.j2" %}{% block item %}
<p>{{ item.text }}</p>
<div class="tile" data-level="hard" data-for="level_{{ i }}" onclick="pickLevel(this)">Hard</div>
<input type="hidden" name="level_{{ i }}" id="level_{{ i }}" value="" required>
<input type="text" name="title_{{ i }}" required>
{% endblock %}
{% block scripts %}{{ super() }}<script>
function pickLevel(tile) { document.getElementById(tile.dataset.for).value = tile.dataset.level; }
</script>{% endblock %}"""


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> Spec:
    root: Path = tmp_path_factory.mktemp("rooms")
    scaffold("rooms", root)
    (root / "config" / "rooms.html.j2").write_text(PAGE, encoding="utf-8")
    cfg = load_config(root / "config" / "rooms.toml")
    return custom_spec(cfg, page_items([{"item_id": "r1", "file_name": "", "url": "",
                                         "payload": json.dumps({"text": "The vault"})}]))


def test_the_spec_reads_the_hidden_field_as_required_and_hidden(spec: Spec) -> None:
    level = next(f for f in spec["fields"] if f["name"] == "level_0")
    assert (level["input"], level["required"]) == ("hidden", True)


def test_a_blank_hidden_field_is_held_for_a_person_not_rejected(spec: Spec) -> None:
    made, flags = decision(spec, {"level_0": "", "title_0": "The Last Vault"})
    assert (made["action"], made["review"]) == ("approve", True)  # approved only if a person says so
    assert flags["rule"].tolist() == ["malformed_answer"] and "hidden field" in flags["detail"][0]


def test_a_blank_the_browser_checks_still_rejects_and_an_answered_page_approves(spec: Spec) -> None:
    made, _ = decision(spec, {"level_0": "", "title_0": ""})  # posted around the page: its text box blank
    assert (made["action"], made["reasons"], made["review"]) == ("reject", "invalid_answer", False)
    made, flags = decision(spec, {"level_0": "hard", "title_0": "The Last Vault"})
    assert (made["action"], made["review"]) == ("approve", False) and flags.empty
