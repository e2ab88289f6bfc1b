"""Controls as the page asks them: a control left blank where the page requires an answer counts against the
worker (a blank elsewhere is no answer), and MTurk's quiz offers the field's options as the page does, so a random
click is right there as often as on a page (docs/how-to/control-items.md)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bench.answers_accuracy import project
from flows.answers.control_quiz import quiz_line, quiz_record
from flows.core.config.config import load_config
from flows.custom.agreement_record import choice_facts
from flows.custom.custom_task import custom_item_plan
from flows.platforms.mturk.qualification_forms import build_quiz_form
from flows.sim.mturk.question_form import question_form_fields
from postprocess.answers.control_items import (
    ControlPolicy,
    blanks_as_wrong,
    control_blocks,
    control_scores,
    quiz_failures,
    quiz_mark,
)


def test_a_required_control_left_blank_counts_as_a_wrong_answer() -> None:
    truths = ["yes", "no"] * 5
    key = pd.DataFrame({"item_id": [f"c{i}" for i in range(10)], "field": "spam", "answer": truths})
    workers = {"blank": [""] * 10, "honest": truths, "slips": [*truths[:8], "", truths[9]]}
    given = pd.DataFrame([{"worker_id": w, "item_id": f"c{i}", "field": "spam", "value": v}
                          for w, values in workers.items() for i, v in enumerate(values)])
    record = {"key": key.values.tolist(), "mark": quiz_mark(10)}
    assert quiz_failures(given, given, record) == {}  # optional: a blank is no answer, and nothing to judge
    required = blanks_as_wrong(given, frozenset({"spam"}))
    assert quiz_failures(required, required, record) == {"blank": f"control_quiz 0/10 (pass {quiz_mark(10)})"}
    scores = control_scores(required, key).set_index("worker_id")
    assert scores.loc["blank", "controls"] == 10 and scores.loc["blank", "correct"] == 0
    assert scores.loc["slips", "correct"] == 9
    assert control_blocks(control_scores(required, key), ControlPolicy())["worker_id"].tolist() == ["blank"]
    assert blanks_as_wrong(given, frozenset({"other"})).equals(given)


def test_the_plan_keeps_the_pages_options_and_required_fields_and_mturk_offers_them(tmp_path: Path) -> None:
    config = project(tmp_path, 40, 0, 0.2, per_page=5, pooling=False)
    controls = pd.read_csv(tmp_path / "controls.csv", dtype=str)  # a file whose answers never say "neutral"
    controls[controls["answer"] != "neutral"].to_csv(tmp_path / "controls.csv", index=False)
    cfg = load_config(config)
    plan = custom_item_plan(cfg)
    options, required = choice_facts(cfg, plan)
    assert options == {"sentiment": ["negative", "neutral", "positive"]} and required == ["sentiment"]
    record = quiz_record(cfg, plan, options)
    assert record is not None and record["options"] == options["sentiment"]
    offered = {f.name: f.options for f in question_form_fields(build_quiz_form(record))}
    assert set(offered) == {k[0] for k in record["key"]}
    assert all(sorted(o) == ["negative", "neutral", "positive"] for o in offered.values())
    assert "the field's 3 options passes with chance" in quiz_line(record)
    without = quiz_record(cfg, plan)  # planned before the page's options were kept: the controls' answers
    assert without is not None and without["options"] == ["negative", "positive"]
    assert "the field's 2 options passes with chance" in quiz_line(without)


def test_the_task_servers_look_stops_who_left_a_required_quiz_blank_from_the_plans_record(tmp_path: Path) -> None:
    """The look the task server takes after each page (and the block step's) reads the fields the plan recorded as
    required: a quiz left blank there stops the worker; a campaign planned before they were kept reads it as none."""
    import json

    from flows.campaigns.block_evidence import failed_controls
    from flows.core.ledger.store import Store

    key = [[f"c{i}", "spam", t] for i, t in enumerate(["yes", "no"] * 5)]
    for name, required in (("now", ["spam"]), ("before", None)):
        controls = {"min_seen": 3, "block_below": 0.5, "confidence": 1.645, "alpha": 0.05, "key": key,
                    **({"required": required} if required else {})}
        store = Store(tmp_path / f"{name}.db")
        record = {"controls": controls, "quiz": {"key": key, "mark": quiz_mark(10), "rows": []}}
        store.insert_raw("campaigns", [{"name": "c", "config_path": "", "config_json": json.dumps(record),
                                        "target": ""}])
        for worker, values in {"blank": [""] * 10, "honest": ["yes", "no"] * 5}.items():
            store.insert_raw("assignments", [{"assignment_id": f"a-{worker}", "hit_id": "h", "campaign": "c",
                                              "batch": 1, "worker_id": worker, "status": "Submitted"}])
            store.insert_raw("answers", [{"campaign": "c", "assignment_id": f"a-{worker}", "item_id": k[0],
                                          "field": "spam", "value": v} for k, v in zip(key, values, strict=True)])
        stopped = {w: failed_controls(store, "c", 1, [w], accuracy=True) for w in ("blank", "honest")}
        assert stopped["honest"] == {}
        assert (set(stopped["blank"]) == {"blank"}) == (name == "now"), (name, stopped)
