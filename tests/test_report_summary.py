"""The edge-case work: the report's first screen says what needs a person, by when, the same on the three kinds
of report; the study report's statistics are tables whose words follow their numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from flows.campaigns.report_summary import report_summary
from flows.cli.main import main
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.driver.campaign_status import campaign_status
from flows.studies.study_plots import statistics_tables
from tests.small_configs import ROOT, small_vizwiz

NOW = 1_800_000_000.0


def _store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "h.db")
    store.table("campaigns").insert({"name": "c", "config_json": "{}", "status": "done", "created_at": NOW - 7200})
    store.table("assignments").insert_all([
        {"assignment_id": f"A{i}", "hit_id": "H", "campaign": "c", "batch": 1, "worker_id": f"W{i}",
         "status": "Submitted", "accept_time": NOW - 3600, "submit_time": NOW - 3000,
         "auto_approval_time": NOW + 3 * 3600 + i} for i in range(3)])
    store.table("decisions").insert({"assignment_id": "A0", "campaign": "c", "batch": 1, "worker_id": "W0",
                                     "action": "approve", "reasons": "", "review": 0, "decided_at": NOW,
                                     "applied": "yes"})
    return store


def test_summary_names_undecided_work_and_its_deadline(tmp_path: Path) -> None:
    store = _store(tmp_path)
    captions = pd.DataFrame({"worker_id": ["W0", "W1", "W2"], "is_rejected": [False, True, False]})
    s = report_summary(store, "c", captions, pd.DataFrame({"worker_id": ["W1"]}),
                       {"spent": "12.50", "budget": "50.00"}, now=NOW)
    assert (s["kept"], s["captions"], s["workers"], s["blocked"]) == (2, 3, 3, 1)
    assert s["share_of_budget"] == "25%" and s["first_work"] == "2027-01-15 07:00 UTC"
    [need] = s["needs"]
    # A1 and A2 have no decision; the earliest auto-approval is A1's, three hours away: urgent
    assert need["what"].startswith("2 submitted assignments have no decision") and need["urgent"]
    assert need["by"] == "2027-01-15 11:00 UTC"


def test_summary_says_nothing_waits_once_all_is_decided(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.db.execute("DELETE FROM assignments WHERE assignment_id != 'A0'")
    store.set_batch("c", 1, hold="rule caps_lock on 60% of workers")
    s = report_summary(store, "c", pd.DataFrame({"worker_id": [], "is_rejected": []}), pd.DataFrame(),
                       {"spent": "0.00", "budget": "0.00"}, now=NOW)
    assert [n["what"] for n in s["needs"]] == ["batch 1 is held for review: rule caps_lock on 60% of workers"]
    assert s["share_of_budget"] == "no budget set" and s["kept"] == 0


def test_study_statistics_in_words_follow_the_numbers() -> None:
    bt = {"a-ref": {"strength": 0.0, "ci_low": 0.0, "ci_high": 0.0},
          "b-better": {"strength": 0.8, "ci_low": 0.3, "ci_high": 1.3},
          "c-unclear": {"strength": -0.2, "ci_low": -0.7, "ci_high": 0.3}}
    [table] = statistics_tables("pairwise_grading", {"dimensions": {"overall": {"shares": {}, "bradley_terry": bt}}})
    words = {row[0]: (row[2], row[-1]) for row in table["rows"]}
    assert words["b-better"] == ("+0.30 to +1.30", "preferred over the reference system")
    assert words["c-unclear"][1] == "not distinguishable from the reference system"
    severity = {"participants": 20, "conditions": {"x": {"mean": 40.0, "sd": 9.0, "n": 20}},
                "anova": {"F": 9.1, "df1_gg": 1.8, "df2_gg": 34.2, "p_gg": 0.0008, "eta2": 0.12, "eta2_partial": 0.3},
                "pairs": [{"a": "x", "b": "y", "t": 4.0, "df": 15.0, "p": 0.001, "p_bonferroni": 0.003},
                          {"a": "x", "b": "z", "t": 2.2, "df": 15.0, "p": 0.04, "p_bonferroni": 0.12}]}
    anova, pairs = statistics_tables("severity_rating", severity)
    assert "F(1.80, 34.2) = 9.10, p < 0.001" in anova["sentence"] and "differ in how bad" in anova["sentence"]
    assert [r[2] for r in pairs["rows"]] == ["1.00", "0.55"]  # d_z = t / sqrt(16)
    assert [r[-1] for r in pairs["rows"]] == ["differ", "not shown to differ"]  # after Bonferroni
    assert statistics_tables("severity_rating", {"error": "too little data"}) == []


def _summary(report: Path) -> tuple[list[str], str]:
    """The report's summary block: its figures' labels, and its text."""
    block = re.search(r'<div class="summary" id="summary">(.*?)<section', report.read_text(encoding="utf-8"), re.S)
    assert block, f"{report} opens with no summary"
    return re.findall(r"<dt>([^<]+)</dt>", block[1]), re.sub(r"<[^>]+>", "", block[1])


@pytest.mark.slow
def test_caption_study_and_custom_reports_open_with_the_same_summary(tmp_path: Path) -> None:
    """The three kinds of report: what was kept, workers, blocked, cost with fees against the budget
    (the same spend as `hitflow status`), the dates and what needs a person."""
    assert main(["new", "my_task", "--dir", str(tmp_path)]) == 0
    configs = {"vizwiz_captions": small_vizwiz(tmp_path), "expert_rating": ROOT / "config" / "expert_rating.toml",
               "my_task": tmp_path / "config" / "my_task.toml"}
    labels = {}
    for name, config in configs.items():
        db = tmp_path / f"{name}.db"
        run_campaign(config, db_path=db, out_root=tmp_path / "runs", limit=10, progress=lambda _: None)
        labels[name], text = _summary(tmp_path / "runs" / name / "report.html")
        [status] = campaign_status(Store(db), name)
        assert f"${status['spent']} of ${status['budget']}" in text and float(status["spent"]) > 0, text
        assert re.search(r"Created \d{4}-\d\d-\d\d \d\d:\d\d UTC; work came in from \d{4}-\d\d-\d\d", text), text
        assert "Needs a person:" in text
    assert labels["vizwiz_captions"] == ["captions kept", "workers", "blocked", "cost with fees"]
    assert labels["expert_rating"] == labels["my_task"] == ["responses approved", "workers", "blocked",
                                                            "cost with fees"]


def test_items_short_of_accepted_answers_are_named_with_a_next_step(tmp_path: Path) -> None:
    from flows.campaigns.summary import short_item_lines

    store = Store(tmp_path / "h.db")
    store.execute("INSERT INTO campaigns (name, config_json, status) VALUES ('c', ?, 'done')",
                  ['{"assignments_per_image": 3}'])
    store.execute("INSERT INTO batches (campaign, batch, status) VALUES ('c', 1, 'blocked')")
    for item in ("full", "short"):
        store.execute("INSERT INTO items (campaign, item_id, batch, hit_index) VALUES ('c', ?, 1, 0)", [item])
    for n, (item, action) in enumerate([("full", "approve")] * 3 + [("short", "approve"), ("short", "reject")]):
        store.execute("INSERT INTO answers (campaign, assignment_id, item_id, field, value) VALUES ('c', ?, ?, "
                      "'label', 'x')", [f"a{n}", item])
        store.execute("INSERT INTO decisions (campaign, assignment_id, batch, worker_id, action) VALUES "
                      "('c', ?, 1, ?, ?)", [f"a{n}", f"w{n}", action])
    lines = short_item_lines(store, "c")
    assert lines[0].startswith("items short of accepted answers: 1 with fewer than 3") and "short (1)" in lines[0]
    assert "full" not in lines[0] and lines[1].strip().startswith("next: ") and "top_up_rounds" in lines[1]
    store.execute("UPDATE campaigns SET config_json = ? WHERE name = 'c'",
                  ['{"assignments_per_image": 3, "top_up_rounds": 2}'])
    rounds_run = short_item_lines(store, "c")[1]  # rounds already ran: no advice to turn them on
    assert "ran out of their 2 round(s)" in rounds_run and "top_up_rounds = 1" not in rounds_run
