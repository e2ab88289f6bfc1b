"""Bad input gets a clear error and loses no data: item files, answer XML, hostile captions."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest

from flows.campaigns.batch_review import qc_batch
from flows.campaigns.campaign_plan import plan_items
from flows.campaigns.report import render_report
from flows.core.errors import InputFormatError
from flows.platforms.mturk.batch_collect import store_assignment
from postprocess.report_data import time_bands
from tests.test_campaign import make_run

HOSTILE = '<script>window.pwned=1</script><img src=x onerror="alert(1)">'


@pytest.mark.parametrize(("content", "needle"), [
    ("image_id,file_name\n1,a.jpg\n", "missing column(s) url"),
    ("image_id,file_name,url\n1,a.jpg,https://x/a.jpg\n1,b.jpg,https://x/b.jpg\n", "repeated"),
    ("image_id,file_name,url\n1,a.jpg,javascript:alert(1)\n", "must be an http(s) URL"),
])
def test_bad_item_files_are_named_with_their_line(sim, tmp_path: Path, content: str, needle: str) -> None:
    run = make_run(sim, tmp_path / "h.db")
    items = tmp_path / "items.csv"
    items.write_text(content)
    run.cfg = dataclasses.replace(run.cfg, items=items)
    with pytest.raises(InputFormatError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        plan_items(run)
    assert run.store.table("items").count == 0  # nothing half-planned


def test_malformed_answer_xml_is_kept_and_flagged(sim, tmp_path: Path) -> None:
    run = make_run(sim, tmp_path / "h.db")
    hit = {"hit_id": "3HIT", "item_ids": json.dumps(["i1"])}
    broken = "<QuestionFormAnswers><Answer>unclosed"
    assert store_assignment(run, 1, hit, {"AssignmentId": "3A1", "HITId": "3HIT", "WorkerId": "AW1",
                                          "AssignmentStatus": "Submitted", "Answer": broken})
    row = run.store.rows("SELECT * FROM assignments")[0]
    assert row["answer_xml"] == broken and "malformed" in row["parse_error"]
    run.store.table("campaigns").insert({"name": "vizwiz_captions", "config_json": "{}", "status": "running"})
    qc_batch(run, 1)
    flags = run.store.rows("SELECT rule, assignment_id FROM qc_flags")
    assert {"rule": "malformed_answer", "assignment_id": "3A1"} in flags


def test_report_renders_hostile_captions_as_text() -> None:
    times = pd.DataFrame({"batch": [1, 1, 1], "work_time_s": [10.0, 20.0, 30.0]})
    html = render_report({
        "name": "c<b>", "target": "sim",
        "summary": {"captions": 3, "kept": 3, "workers": 1, "blocked": 1, "spent": "1.00", "budget": "2.00",
                    "share_of_budget": "50%", "created": "x", "first_work": "x", "last_work": "x",
                    "needs": [{"what": HOSTILE, "by": "now", "urgent": True}], "about": "", "lines": [],
                    "figures": [("captions kept", "3 of 3")], "provenance": [("config", HOSTILE)]},
        "counts": pd.DataFrame([{"batch": 1, "assignments": 3, "approved": 3, "rejected": 0, "flags": 1,
                                 "blocked": 1}]),
        "times": times, "bands": time_bands(times),
        "flags": pd.DataFrame({"rule": ["caps_lock"]}),
        "blocked": pd.DataFrame([{"worker_id": "AW<1>", "batch": 1, "rules": "caps_lock", "samples": [HOSTILE],
                                  "history": [f"batch 1: 5 captions, {HOSTILE}"]}]),
        "canned": pd.DataFrame([{"workers_using_canned": 0, "images": 1, "share": 1.0}]),
        "spelling": {"captions": 1, "captions_changed": 0, "share_changed": 0.0, "tokens_changed": 0},
        "cost": {"spent": "1.00", "budget": "2.00", "approved": 1, "unit": "1.00"}, "truth": None})
    assert "<script>window.pwned" not in html and 'onerror="alert' not in html
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in html and "AW&lt;1&gt;" in html
    assert "<th>config</th><td>&lt;script&gt;window.pwned=1&lt;/script&gt;" in html  # the provenance box, escaped


@pytest.mark.parametrize(("line", "needle"), [
    ("{% if %}", "Expected an expression, got 'end of statement block'"),
    ("{{ item.description | nosuchfilter }}", "No filter named 'nosuchfilter'"),
])
def test_a_template_syntax_error_says_where_and_what_to_do(tmp_path: Path, line: str, needle: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A typo in one's own page is one line naming the file and line, and what to do next (it said
    only Jinja's words: "config/my_task.html.j2:10: No filter named 'nosuchfilter'.")."""
    from flows.cli.main import main
    from flows.custom.scaffold import scaffold

    scaffold("my_task", tmp_path)
    page = tmp_path / "config" / "my_task.html.j2"
    page.write_text(page.read_text().replace("{% block item %}", "{% block item %}" + line, 1))
    assert main(["run", str(tmp_path / "config" / "my_task.toml"), "--dry-run"]) == 2
    [said] = capsys.readouterr().err.strip().splitlines()
    assert f"my_task.html.j2:10: {needle}; fix the template's syntax on that line and run the dry run again" in said
