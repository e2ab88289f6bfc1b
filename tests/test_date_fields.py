"""Date and time pickers on a page of one's own (``<input type="date">``, time, datetime-local, month, week) are
read as what they are: values a picker gives, checked against the input's own format, min, max and step on the
server, read by no free-text rule (a correct date everyone gives is agreement, not a copy) and aggregated as the
exact value most workers gave. The pages are ``tests/pages/dates/``: a receipt imported as MTurk HTML, one a page,
and a diary of events, four a page, on MTurk's and Prolific's simulators."""

from __future__ import annotations

import csv
import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import form_fields
from flows.custom.custom_task import field_kinds
from flows.sim.people.crowd_model import HONEST_PROFILES
from qc.answer_values import WHEN_INPUTS, moment, moment_text
from qc.form_constraints import check_field
from tests.date_pages import PAGES, page_config, run_page
from tests.small_configs import UNREHEARSED

HONEST = {p: 2 for p in HONEST_PROFILES}
DATE_FIELDS = {"receipt": ("bought",), "events": ("day", "start", "booked", "follow", "reminder")}


def rules_of() -> dict[str, dict]:
    """The events page's rules for its first item, by field without the index."""
    html = (PAGES / "events.html.j2").read_text(encoding="utf-8").replace("{{ i }}", "0")
    return {f["name"].removesuffix("_0"): f for f in form_spec(form_fields(html))["fields"]}


def test_each_picker_reads_back_what_it_writes() -> None:
    for kind in WHEN_INPUTS:
        start = moment({"date": "1999-12-27", "month": "1999-11", "week": "1999-W51", "time": "00:00",
                        "datetime-local": "1999-12-31T22:00"}[kind], kind)
        assert start is not None
        step = 900 if kind in ("time", "datetime-local") else 1
        for k in range(0, 96 if kind == "time" else 400, 7):  # across a year's end, a month's, midnight
            text = moment_text(start + k * step, kind)
            assert moment(text, kind) == start + k * step, (kind, text)


@pytest.mark.parametrize(("kind", "value"), [("date", "2025-02-29"), ("date", "15/06/2025"), ("date", "20250615"),
                                             ("month", "2025-13"), ("week", "2025-W53"), ("time", "24:00"),
                                             ("time", "9:30"), ("datetime-local", "2025-06-15 09:30")])
def test_a_value_no_picker_submits_is_no_date(kind: str, value: str) -> None:
    assert moment(value, kind) is None
    assert check_field({"name": "d", "type": "date", "input": kind, "required": False}, value) == "not_a_date"


def test_the_page_own_bounds_and_step_judge_a_date() -> None:
    rules = rules_of()
    assert {rules[f]["type"] for f in DATE_FIELDS["events"]} == {"date"}
    day, start, follow = rules["day"], rules["start"], rules["follow"]
    assert [check_field(day, v) for v in ("2025-01-01", "2025-12-31", "2024-12-31", "2026-01-01", "")] == \
        ["", "", "out_of_range", "out_of_range", "required"]
    assert [check_field(start, v) for v in ("08:00", "19:45", "08:10", "20:15", "07:45")] == \
        ["", "", "step", "out_of_range", "out_of_range"]
    assert check_field(follow, "2026-W11") == "out_of_range" and check_field(follow, "") == ""
    night = {**start, "min": "22:00", "max": "06:00"}  # a range over midnight, as HTML reads it
    assert [check_field(night, v) for v in ("23:15", "05:45", "12:00")] == ["", "", "out_of_range"]


def test_pickers_are_dates_and_a_colour_is_no_free_text() -> None:
    html = (PAGES / "events.html.j2").read_text(encoding="utf-8").replace("{{ i }}", "0")
    kinds = field_kinds(form_spec(form_fields(html)))
    assert {f: kinds[f] for f in DATE_FIELDS["events"]} == dict.fromkeys(DATE_FIELDS["events"], "date")
    assert kinds["flyer"] == "formatted" and kinds["remark"] == "text"
    colour = rules_of()["flyer"]
    assert [check_field(colour, v) for v in ("#2980b9", "#2980B9", "blue")] == ["", "format", "format"]


def test_the_import_and_the_dry_run_name_an_imported_date(tmp_path: Path) -> None:
    from flows.cli.main import main
    from flows.custom.scaffold_import import scaffold_from

    _, notes = scaffold_from("receipt", PAGES / "receipt.html", tmp_path / "own")
    assert any("bought (date): read as a date, not free text" in n for n in notes)
    config = page_config(tmp_path, "receipt")
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["run", str(config), "--no-prefect", "--dry-run", "--db", str(tmp_path / "dry.db"),
                     *UNREHEARSED]) == 0
    said = out.getvalue()
    assert "(1 date, 1 choice, 1 number)" in said
    gate = next(line for line in said.splitlines() if line.strip().startswith("bought (date):"))
    assert "item_blind" in gate and not {"duplicate_text", "shared_template", "consensus"} & set(gate.split(", "))
    assert "rule bought_0 (date): required, min=2024-01-01, max=2025-12-31" in said
    assert "simulated answers for bought follow the known answers" in said


@pytest.mark.parametrize(("page", "per_page", "platform"), [("receipt", 1, "mturk"), ("events", 4, "prolific")])
def test_honest_workers_agreeing_on_dates_are_not_held_nor_flagged(tmp_path: Path, page: str, per_page: int,
                                                                   platform: str) -> None:
    run = run_page(tmp_path, page_config(tmp_path, page, per_page=per_page), HONEST, platform)
    assert run["code"] == 0 and not run["held"]
    assert not [w for w, v in run["workers"].items() if v["blocked"]]
    assert not [f for f in run["flags"] if f[1] == "invalid_answer" or f[2].startswith(DATE_FIELDS[page])]
    rules = {f["name"]: f for f in form_spec(form_fields((tmp_path / "config" / f"{page}.html.j2").read_text(
        encoding="utf-8").replace("{{ i }}", "0")))["fields"]}
    given = [(f, v) for _, _, f, v in run["answers"] if f.rsplit("_", 1)[0] in DATE_FIELDS[page] and v]
    assert len({v for _, v in given}) > 5  # per item, not one date for everything
    assert all(check_field(rules.get(f) or rules[f.rsplit("_", 1)[0] + "_0"], v) == "" for f, v in given)
    with (tmp_path / platform / page / "answers.csv").open(encoding="utf-8") as fh:
        labels = {r["item_id"]: r["label"] for r in csv.DictReader(fh) if r["field"] == DATE_FIELDS[page][0]}
    with (PAGES / f"{page}_items.csv").open(encoding="utf-8") as fh:
        truth = {r["item_id"]: r.get("bought_answer") or r["gold_day"] for r in csv.DictReader(fh)}
    assert labels and sum(labels[i] == truth[i] for i in labels) >= 0.8 * len(labels)


def test_a_date_posted_around_its_picker_is_an_invalid_answer(tmp_path: Path) -> None:
    run = run_page(tmp_path, page_config(tmp_path, "events", per_page=4, batches=2),
                   {"diligent": 4, "rule_breaker": 3}, "mturk")
    breakers = {w for w, v in run["workers"].items() if v["profile"] == "rule_breaker"}
    early = [v for w, _, f, v in run["answers"] if w in breakers and v and
             ((f.startswith("day") and v < "2025-01-01") or (f.startswith("start") and v < "08:00"))]
    assert early  # a step under the minimum, which the page's picker refuses
    assert breakers & {w for w, rule, _ in run["flags"] if rule == "invalid_answer"}
    assert not {w for w, v in run["workers"].items() if v["profile"] == "diligent" and v["blocked"]}


def test_a_preset_date_a_worker_keeps_is_an_answer(tmp_path: Path) -> None:
    config = page_config(tmp_path, "events", per_page=4, batches=1)
    page = config.parent / "events.html.j2"  # a picker opening on the one day it offers: everyone keeps it
    own = 'type="date" name="day_{{ i }}" min="2025-01-01" max="2025-12-31"'
    preset = page.read_text(encoding="utf-8").replace(own, own.replace('min="2025-01-01" max="2025-12-31"',
                                                                        'min="2025-06-16" max="2025-06-16" '
                                                                        'value="2025-06-16"'))
    assert preset != page.read_text(encoding="utf-8")
    page.write_text(preset, encoding="utf-8")
    run = run_page(tmp_path, config, {"diligent": 4}, "mturk")
    kept = [v for _, _, f, v in run["answers"] if f.startswith("day")]
    assert kept and set(kept) == {"2025-06-16"}
    assert not [f for f in run["flags"] if f[1] in ("sentinel_answer", "invalid_answer", "empty_answer")]
    assert not run["held"] and not [w for w, v in run["workers"].items() if v["blocked"]]
