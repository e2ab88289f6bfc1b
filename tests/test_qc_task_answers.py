"""`hitflow qc` on MTurk batch results from a crowd-form page: the answer is one
``Answer.taskAnswers`` JSON column, its free-text field found by content or named, its keystroke log
found inside the JSON or in its own column (entries with no time read), and the rules fitting a
summary rather than a one-sentence caption. The file is written here in MTurk's batch-results layout."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from qc.telemetry import event_log_record

SUMMARIES = [
    "The council voted to close the old library. Residents asked for a site near the school. A decision is due in May.",
    "A storm flooded the harbour road overnight. Fishing boats stayed in port. Crews cleared the drains by noon.",
    "Local bakers formed a cooperative to buy flour together. Prices doubled this year. The first order arrives soon.",
    "The museum reopened after two years of repairs. Visitors queued around the square. Entry stays free this month.",
    "Students built a solar car in their spare time. It came third in the national race. They plan to go again.",
    "A new bus line links the two hospitals. Trips take twenty minutes. Buses run every quarter hour on weekdays.",
    "The river clean-up removed four tonnes of rubbish. Volunteers found an old bicycle. More dates are planned.",
    "A heatwave pushed power use to a record. The grid held up all evening. Officials asked people to save energy.",
]
PASTED = ("In summary, the article discusses several key developments and their implications for the community, "
          "highlighting important considerations.")
START = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def typed_log(text: str, t0: datetime) -> list[list[str]]:
    return [["key", ch, (t0 + timedelta(milliseconds=180 * k)).isoformat()] for k, ch in enumerate(text)]


def batch_rows() -> list[dict[str, str]]:
    rows = []
    for n, text in enumerate([*SUMMARIES, PASTED, SUMMARIES[0]]):
        t0 = START + timedelta(minutes=n)
        if n == 8:  # pasted from outside the page: a few keys, then the whole text at once
            log = [*typed_log("In", t0), ["paste", PASTED, (t0 + timedelta(seconds=3)).isoformat()]]
        elif n == 9:  # copied on the page (a real log's untimed entry), then pasted: not from outside
            log = [["copy", SUMMARIES[0]], ["paste", SUMMARIES[0], (t0 + timedelta(seconds=5)).isoformat()]]
        else:
            log = typed_log(text, t0)
        answer: dict[str, object] = {"summary": text, "confidence": {"high": n % 2 == 0, "low": n % 2 == 1}}
        own_column = n == 3  # this page version logged into its own hidden input
        if not own_column:
            answer["keylog"] = log
        rows.append({"HITId": f"H{n // 3}", "AssignmentId": f"A{n:02d}", "WorkerId": f"W{n:02d}",
                     "AssignmentStatus": "Submitted", "AcceptTime": t0.isoformat(),
                     "SubmitTime": (t0 + timedelta(minutes=2)).isoformat(), "WorkTimeInSeconds": "120",
                     "Input.article_id": f"art-{n % 3}", "Answer.taskAnswers": json.dumps([answer]),
                     "Answer.events": json.dumps(log) if own_column else ""})
    return rows


@pytest.fixture
def results(tmp_path: Path) -> Path:
    path = tmp_path / "Batch_123_batch_results.csv"
    rows = batch_rows()
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), quoting=csv.QUOTE_ALL)
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_qc_reads_a_crowd_form_batch_and_judges_the_summary(results: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "flags.csv"
    assert main(["qc", str(results), "--out", str(out)]) == 0
    assert "checked as passages" in capsys.readouterr().err
    flags = pd.read_csv(out, keep_default_na=False, dtype=str)
    pasted = flags[flags["rule"] == "paste_external"]
    assert list(pasted["assignment_id"]) == ["A08"]  # only the text pasted from outside the page
    assert "one_sentence" not in set(flags["rule"])  # a summary is not a one-sentence caption
    assert not flags[flags["assignment_id"].isin(["A03", "A09"])]["rule"].str.startswith(("paste", "untyped")).any()


def test_the_text_field_named_and_a_missing_one_refused(results: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "flags.csv"
    assert main(["qc", str(results), "--out", str(out), "--text-field", "summary"]) == 0
    assert main(["qc", str(results), "--out", str(out), "--text-field", "abstract"]) != 0
    err = capsys.readouterr().err
    assert "taskAnswers has no field abstract; its fields are summary, confidence, keylog" in err
    assert "Traceback" not in err


def test_an_untimed_log_entry_is_read_not_refused() -> None:
    log = json.dumps([["key", "a", "2026-03-02T10:00:00+00:00"], ["copy", "a red kite"],
                      ["paste", "a red kite", "2026-03-02T10:00:02+00:00"]])
    record = event_log_record(log, "summary")["f"]["summary"]
    assert (record["copy"], record["paste_p"], record["paste_x"], record["typed"]) == (1, 10, 0, 1)
