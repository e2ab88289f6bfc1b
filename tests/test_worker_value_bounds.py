"""Worker-supplied values bounded at one place: a crowd-form answer holding a
310-digit number or a 5,000-deep array once raised OverflowError / RecursionError from the flattening,
so the MTurk collection never stored the assignment (and raised again on every resume), the task
server answered HTTP 500 and ``hitflow qc`` printed a traceback. Now qc/worker_values.py reads every
such value within its bounds: the collection stores the answer as malformed with the reason (decided by
the campaign's rules), the task server refuses it with a 400, ``qc`` says so in one line."""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from flows.cli.main import main
from flows.core.pages import crowd_elements
from flows.core.pages.crowd_elements import flat_answers, flatten_task_answers
from flows.core.pages.mturk_forms import answer_xml, parse_answer_xml
from flows.custom.scaffold import scaffold
from flows.sim.mturk import market
from qc import worker_values as wv
from qc.telemetry import TelemetryError, parse_record
from tests.test_crowd_elements import PAGES
from tests.test_fuzz_task_server import app  # noqa: F401  (the task server fixture)
from tests.test_qc_task_answers import batch_rows

HUGE = "1" + "0" * 309  # 310 digits: an int no float holds
DEEP = "[" * 5000 + "]" * 5000
HOSTILE = [f'[{{"n":{HUGE}}}]', DEEP, f'[{{"n":{DEEP}}}]', '[{"n":1e400}]', '[{"n":NaN}]', '[{"n":-Infinity}]',
           "[{" + ",".join(f'"k{i}":1' for i in range(wv.MAX_KEYS + 1)) + "}]",
           '[{"' + "k" * (wv.MAX_NAME_CHARS + 1) + '":1}]', '[{"n":"' + "a" * wv.MAX_TEXT_CHARS + '"}]']


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_each_value_past_a_bound_is_a_value_error_with_its_reason(text: str) -> None:
    with pytest.raises(wv.WorkerValueError, match=r"allowed|not a JSON number|too large for a double"):
        flatten_task_answers(text)


def test_values_at_the_bounds_are_read_as_they_are() -> None:
    at_depth = "[" * (wv.MAX_DEPTH - 1) + "{}" + "]" * (wv.MAX_DEPTH - 1)
    assert wv.read_json(at_depth) is not None
    number = "-" + "9" * (wv.MAX_NUMBER_CHARS - 1)
    assert wv.read_json(number) == -int(number[1:])
    assert wv.read_json("1.7976931348623157e+308") == 1.7976931348623157e308
    keys = {f"k{i}": i for i in range(wv.MAX_KEYS)}
    assert wv.read_json(json.dumps(keys)) == keys
    assert flatten_task_answers(json.dumps([{"n": -0.5, "s": "x" * 1000}])) == {"n": "-0.5", "s": "x" * 1000}
    # brackets inside strings are text, not nesting: a worker may type a thousand of them
    assert wv.read_json(json.dumps({"t": "[" * 1000})) == {"t": "[" * 1000}


def test_plain_fields_are_bounded_too() -> None:
    with pytest.raises(wv.WorkerValueError, match="fields, over the"):
        flat_answers({f"f{i}": "" for i in range(wv.MAX_KEYS + 1)})
    with pytest.raises(wv.WorkerValueError, match="field name of"):
        flat_answers({"f" * (wv.MAX_NAME_CHARS + 1): ""})
    with pytest.raises(wv.WorkerValueError, match="field 'caption_0' of"):
        flat_answers({"caption_0": "a" * (wv.MAX_TEXT_CHARS + 1)})
    assert flat_answers({"caption_0": "a" * wv.MAX_TEXT_CHARS})["caption_0"] == "a" * wv.MAX_TEXT_CHARS


@pytest.mark.parametrize("text", HOSTILE[:4], ids=range(4))
def test_the_collection_reads_it_as_malformed_with_the_reason(text: str) -> None:
    with pytest.raises(ET.ParseError, match=r"taskAnswers does not decode \(.*(allowed|too large)"):
        parse_answer_xml(answer_xml({"taskAnswers": text}))


def test_telemetry_past_a_bound_is_invalid_telemetry_not_a_crash() -> None:
    for text in (DEEP, '{"v":1,"loads":' + HUGE + "}"):
        with pytest.raises(TelemetryError, match="not JSON within its bounds"):
            parse_record(text)


@pytest.mark.parametrize("text", HOSTILE[:6], ids=range(6))
def test_the_task_server_refuses_it_with_a_400(app: dict[str, Any], text: str) -> None:  # noqa: F811
    answer = app["client"].post(f"/task/{app['cfg'].name}/submit", data={"taskAnswers": text})
    assert answer.status_code == 400 and "could not be read" in answer.text and "Traceback" not in answer.text


def test_qc_on_a_batch_file_holding_it_says_so_in_one_line(tmp_path: Path, capsys) -> None:
    rows = batch_rows()
    rows[4]["Answer.taskAnswers"] = f'[{{"summary":"x","n":{HUGE}}}]'
    path = tmp_path / "Batch_1_batch_results.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), quoting=csv.QUOTE_ALL)
        writer.writeheader()
        writer.writerows(rows)
    assert main(["qc", str(path), "--out", str(tmp_path / "flags.csv")]) == 0  # the other rows are checked
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    assert f"{path}:6: Answer.taskAnswers: a value no browser writes" in err and "over the 32 allowed" in err
    flags = list(csv.DictReader((tmp_path / "flags.csv").open(encoding="utf-8")))
    assert [f["value"] for f in flags if f["rule"] == "malformed_answer"] == ["6"]


def test_a_crowd_form_campaign_with_one_hostile_worker_finishes(tmp_path: Path, monkeypatch) -> None:
    """The first answer the simulated crowd posts is a hostile worker's 310-digit number (posted as any
    browser could); every other worker answers honestly. The run finishes: the hostile answer is stored
    malformed with its reason and rejected by the campaign's rules, everyone else's is decided."""
    scaffold("crowd", tmp_path)
    shutil.copy(PAGES / "crowd_photo.html.j2", tmp_path / "config" / "crowd.html.j2")
    monkeypatch.chdir(tmp_path)
    honest_answer, posted = crowd_elements.posted_answer, []

    def one_hostile(values: dict[str, str], fields: list[Any], html: str) -> dict[str, str]:
        answer = honest_answer(values, fields, html)
        if not posted:
            answer = {"taskAnswers": f'[{{"title_0":"x","n":{HUGE}}}]'}
        posted.append(answer)
        return answer

    monkeypatch.setattr(market, "posted_answer", one_hostile)
    assert main(["run", "config/crowd.toml", "--no-prefect", "--platform", "mturk"]) == 0
    con = sqlite3.connect(tmp_path / "runs" / "hitflow.db")
    rows = con.execute("SELECT a.assignment_id, a.parse_error, d.action FROM assignments a "
                       "LEFT JOIN decisions d USING (assignment_id)").fetchall()
    broken = [r for r in rows if r[1]]
    assert len(broken) == 1 and "over the 32 allowed" in broken[0][1] and broken[0][2] == "reject", broken
    assert len(rows) >= 3 and all(r[2] in ("approve", "reject") for r in rows), rows
    assert len(posted) == len(rows)  # every answer posted was collected, the hostile one included
