"""An empty truth cell on a field the page lets be left blank (a date beside "no date given", a box) says blank is
the answer; on a required field it still means "not known"."""

from __future__ import annotations

import re
from pathlib import Path

from flows.campaigns.task_kinds import load_campaign
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_spec, field_specs, first_page_rows, read_custom_items
from flows.custom.scaffold_import import scaffold_from
from flows.custom.truth_source import blank_fields, known_answers, truth_lines

PAGE = """<form><p>{{ letter }}</p>
<p>Reply by?</p><input type="date" name="due">
<label><input type="checkbox" name="undated" value="yes"> The letter gives no date</label>
<p>How many documents does it ask for?</p><input type="number" name="docs" min="0" max="9" required>
<input type="submit"></form>"""
ITEMS = ("item_id,letter,gold_due,gold_undated,gold_docs\n"
         "L1,Send the form by 4 May.,2026-05-04,,1\n"
         "L2,We will write again.,,yes,\n"
         "L3,Two payslips by 9 June please.,2026-06-09,,2\n")


def campaign(tmp: Path):
    (tmp / "page.html").write_text(PAGE, encoding="utf-8")
    (tmp / "items.csv").write_text(ITEMS, encoding="utf-8")
    scaffold_from("letters", tmp / "page.html", tmp, items=tmp / "items.csv")
    toml = tmp / "config" / "letters.toml"
    text = re.sub(r"(?m)^truth = .*\n", "", toml.read_text(encoding="utf-8"))
    toml.write_text(text.replace("[campaign]\n", '[campaign]\ntruth = {due = "gold_due", undated = "gold_undated", '
                                 'docs = "gold_docs"}\n', 1), encoding="utf-8")
    return load_campaign(toml)


def test_an_empty_cell_is_a_blank_answer_on_optional_fields_and_unknown_on_required_ones(tmp_path: Path) -> None:
    cfg = campaign(tmp_path)
    specs = field_specs(custom_spec(cfg, page_items(first_page_rows(cfg))))
    assert blank_fields(specs) == {"due", "undated"}
    known = {(r["item_id"], r["field"]): r["answer"]
             for r in known_answers(cfg, read_custom_items(cfg), blank_fields(specs))}
    assert known[("L2", "due")] == "" and known[("L1", "undated")] == ""
    assert known[("L1", "due")] == "2026-05-04" and known[("L2", "undated")] == "yes"
    assert ("L2", "docs") not in known  # required: an empty cell is not known


def test_the_dry_run_says_the_optional_fields_follow_known_answers_on_every_item(tmp_path: Path) -> None:
    cfg = campaign(tmp_path)
    specs = field_specs(custom_spec(cfg, page_items(first_page_rows(cfg))))
    kinds = {"due": "date", "undated": "choice", "docs": "number"}
    lines = truth_lines(cfg, read_custom_items(cfg), kinds, specs)
    said = {f: next(line for line in lines if f"answers for {f} " in line) for f in kinds}
    assert "follow the known answers (column gold_due)" in said["due"]
    assert "follow the known answers (column gold_undated)" in said["undated"]
    assert "on 2 of 3 items" in said["docs"]


def test_a_careful_worker_leaves_a_known_blank_blank_and_the_report_counts_it_known(tmp_path: Path) -> None:
    import random

    from flows.core.pages.mturk_forms import form_fields
    from flows.custom.custom_task import custom_page
    from flows.sim.pages.any_form import fill_unhinted
    from flows.sim.people.crowd_model import new_worker
    from flows.sim.people.known_answers import add_known
    from flows.sim.people.latent_choices import item_truth

    cfg = campaign(tmp_path)
    specs = field_specs(custom_spec(cfg, page_items(first_page_rows(cfg))))
    rows = read_custom_items(cfg)
    bank: dict = {}
    add_known(bank, [{k: r[k] for k in ("item_id", "field", "answer")}
                     for r in known_answers(cfg, rows, blank_fields(specs))])
    worker = new_worker("diligent", {}, random.Random(4))
    html = custom_page(cfg, page_items([{"item_id": "L2", "file_name": "", "url": "",
                                         "payload": '{"letter": "We will write again."}'}]))
    values = fill_unhinted(worker, form_fields(html), html, bank, random.Random(5))
    assert values["due_0"] == "" and values["undated_0"] == "yes"
    assert {(r["field"], r["source"]) for r in item_truth([worker]) if r["item_id"] == "L2"} >= {("due", "known")}


def test_the_dry_run_says_simulated_free_text_is_made_from_the_item_not_understood(tmp_path: Path) -> None:
    """A free-text box with no known answers: the rehearsal's text says nothing of sense, and the dry run says so
    once, naming the boxes (a formatted box, a code or an address, is not prose and is not named)."""
    cfg = campaign(tmp_path)
    specs = field_specs(custom_spec(cfg, page_items(first_page_rows(cfg))))
    kinds = {"due": "date", "why": "text", "comment": "text", "postcode": "formatted"}
    lines = truth_lines(cfg, read_custom_items(cfg), kinds, specs)
    made = [line for line in lines if "not written by someone who understood the question" in line]
    assert len(made) == 1 and made[0].startswith("simulated text for why, comment is put together")
    kinds.pop("why"), kinds.pop("comment")
    assert not any("understood the question" in line for line in truth_lines(cfg, read_custom_items(cfg), kinds, specs))
