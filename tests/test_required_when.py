"""A field required only when another has a value: a summary check's "If no, what is wrong?" box, which the
page's own Submit check requires when the answer is "no". ``hitflow new --from`` reads that check as the page rule
``data-required-when="match=no"``; the server's check and QC take such a box left blank as a skipped required
question (one of Prolific's grounds), per item by the item's own fields; form-reading workers fill it then."""

from __future__ import annotations

import re
from pathlib import Path

from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import answer_fields, form_fields
from flows.custom.page_import import import_page
from qc.form_constraints import check_form, describe_rules
from tests.test_required_as_page import PAGES, run_imported

PAGE = (PAGES / "match.html").read_text(encoding="utf-8")
ONCLICK = re.search(r' onclick="[^"]*"', PAGE)[0]  # type: ignore[index]
ONSUBMIT = PAGE.replace(ONCLICK, "").replace('method="post"', '''method="post" onsubmit="if (this.match.value === \
'no' &amp;&amp; !this.why.value.trim()) { alert('Say what is wrong'); event.preventDefault(); }"''')


def test_the_pages_conditional_check_becomes_a_rule_and_what_it_cannot_read_stays_listed() -> None:
    for source, said in ((PAGE, "Please say what is wrong"), (ONSUBMIT, "Say what is wrong"),
                         (PAGE.replace("no && why === ''", "why === '' && no"), "Please say what is wrong")):
        page = import_page(source, "match.html")
        assert re.search(r'<textarea data-required-when="match=no"[^>]*name="why_\{\{ i \}\}"', page.body)
        note = next(n for n in page.notes if said in n)
        assert "is now the page rule data-required-when='match=no' on why" in note
    kept = import_page(PAGE.replace("no && why", "!no && why"), "match.html")  # required when "yes": not read
    assert "data-required-when" not in kept.body
    assert any("stays in its script only" in n and "data-required-when" in n for n in kept.notes)


def test_each_item_requires_its_own_box_when_its_own_answer_is_no() -> None:
    block = import_page(PAGE, "match.html").body
    spec = form_spec(form_fields("".join(block.replace("{{ i }}", str(i)) for i in range(2))))
    good = {"match_0": "no", "why_0": "It names the wrong bridge.", "match_1": "yes", "why_1": ""}
    assert not check_form(spec, good)
    assert [p["field"] for p in check_form(spec, {**good, "why_0": ""})] == ["why_0"]
    assert [(p["field"], p["rule"]) for p in check_form(spec, {**good, "match_1": "no"})] == [("why_1", "required")]
    assert "why_1 (textarea): required when match_1 is 'no'" in describe_rules(spec)


def test_a_no_left_unexplained_is_never_approved_and_honest_workers_explain_it(tmp_path: Path) -> None:
    con = run_imported(tmp_path, "match", "prolific", "--scale", "3")  # enough places that a rule breaker says no
    answers = {a: answer_fields(xml) for a, xml in
               con.execute("SELECT assignment_id, answer_xml FROM assignments WHERE answer_xml != ''")}
    decided = {a: (action, reasons) for a, action, reasons in con.execute(
        "SELECT assignment_id, action, reasons FROM decisions")}
    pairs = {a: [(v[k], v.get(k.replace("match_", "why_"), "").strip()) for k in v if k.startswith("match_")]
             for a, v in answers.items()}  # each item's own pair: a place may hold several (Prolific's whole minutes)
    said_no = {a for a, items in pairs.items() if any(m == "no" for m, _ in items)}
    blank = {a for a in said_no if any(m == "no" and not why for m, why in pairs[a])}
    assert blank and all(decided[a][0] == "reject" and "skipped_required" in decided[a][1] for a in blank)
    explained = [a for a in said_no - blank if decided.get(a, ("",))[0] == "approve"]
    assert len(explained) >= 3  # honest workers answered "no" and said why
