"""One malformed answer never stops a whole step (qc/answer_faults.py, docs/how-to/malformed-answers.md).

``hitflow qc`` on the real VizWiz pilot results file (``../shared/data``) with one or two rows corrupted
in different ways: each corrupted row is one ``malformed_answer`` flag naming its line and reason, one
``file:line: reason`` line on stderr and a count, exit 0; every other row is checked exactly as it is
in the same file without the corrupted rows (an independent run of the same command). Before, the
first such row stopped the whole file (exit 3, nothing checked). A crowd-form batch file with a
``taskAnswers`` that is not JSON and one that holds ``NaN`` tells the two causes apart.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from flows.cli.main import main
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.custom.scaffold import scaffold
from flows.driver.campaign_run import run_campaign
from flows.sim.mturk import market
from tests.small_configs import ROOT, small_vizwiz
from tests.test_crowd_elements import PAGES
from tests.test_fuzz_task_server import STUDY, app  # noqa: F401  (the task server fixture)
from tests.test_qc_task_answers import batch_rows
from tests.test_task_server import answers_for

CONFIG = ROOT / "config"

PILOT = "vizwiz-captions-pilot-hits/hit.results"
HEADER_LINE = 1


def _field(line: bytes, header: list[bytes], column: str, value: bytes) -> bytes:
    parts = line.split(b"\t")
    parts[header.index(f'"{column}"'.encode())] = value
    return b"\t".join(parts)


# how -> (the corrupted line's new bytes from the original line and the header, the reason's words)
CORRUPTIONS = {
    "nul": (lambda ln, h: _field(ln, h, "Answer.IMG_CAPTION", b'"a dog\x00 on a mat|<END>"'), "holds a NUL byte"),
    "lone_surrogate": (lambda ln, h: _field(ln, h, "Answer.IMG_CAPTION", b'"a dog \xed\xa0\xbd on a mat|<END>"'),
                       "bytes that are not UTF-8"),
    "five_mb": (lambda ln, h: _field(ln, h, "Answer.WORKER_COMMENTS", b'"' + b"a" * (5 << 20) + b'"'),
                "Answer.WORKER_COMMENTS holds 5,242,880 characters, over the 1,048,576 a cell may hold"),
    "missing_columns": (lambda ln, h: b"\t".join(ln.split(b"\t")[:-3]), "39 field(s), but the header has 42"),
    "bad_time": (lambda ln, h: _field(ln, h, "assignmentaccepttime", b'"yesterday"'),
                 "cannot read accept/submit time 'yesterday'"),
    "captions_short": (lambda ln, h: _field(ln, h, "Answer.IMG_CAPTION", b'"one|<END>two|<END>"'),
                       "5 images but 2 captions"),
}
PAIRS = [("nul", "bad_time"), ("lone_surrogate", "missing_columns"), ("five_mb", "captions_short")]


def _assignment(line: bytes, header: list[bytes]) -> str:
    return line.split(b"\t")[header.index(b'"assignmentid"')].strip(b'"').decode()


def _flags(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _number(text: str) -> str:
    """A threshold as a number: "2" and "2.0" are one (a column's type, not a finding)."""
    try:
        return repr(float(text))
    except ValueError:
        return text


@pytest.mark.parametrize("pair", PAIRS, ids=["+".join(p) for p in PAIRS])
def test_qc_flags_each_corrupted_row_of_the_real_pilot_file_and_checks_the_rest(
        shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], pair: tuple[str, str]) -> None:
    lines = (shared_data / PILOT).read_bytes().split(b"\n")
    header = lines[0].split(b"\t")
    at = {3: pair[0], 8: pair[1]}  # file lines 3 and 8: the first HIT's 2nd, the second HIT's 2nd assignment
    corrupted, kept = list(lines), [ln for i, ln in enumerate(lines, 1) if i not in at]
    for number, how in at.items():
        corrupted[number - 1] = CORRUPTIONS[how][0](lines[number - 1], header)
    bad, clean = tmp_path / "hit.results", tmp_path / "kept.results"
    bad.write_bytes(b"\n".join(corrupted))
    clean.write_bytes(b"\n".join(kept))

    assert main(["qc", str(bad), "--out", str(tmp_path / "flags.csv")]) == 0
    err = capsys.readouterr().err
    for number, how in at.items():
        assert f"{bad}:{number}: " in err and CORRUPTIONS[how][1] in err, (how, err)
    assert "2 row(s) could not be read" in err and "Traceback" not in err
    flags = _flags(tmp_path / "flags.csv")
    malformed = {(f["value"], f["assignment_id"]) for f in flags if f["rule"] == "malformed_answer"}
    assert malformed == {(str(n), _assignment(lines[n - 1], header)) for n in at}

    # every other row checked as in the same file without the corrupted rows, by the same command
    assert main(["qc", str(clean), "--out", str(tmp_path / "kept.csv")]) == 0
    others = [{**f, "threshold": _number(f["threshold"])} for f in flags if f["rule"] != "malformed_answer"]
    alone = [{**f, "threshold": _number(f["threshold"])} for f in _flags(tmp_path / "kept.csv")]
    assert others == alone and others  # the pilot file's own flags (canned_overuse, random_sample...)


def test_a_file_whose_every_row_is_malformed_is_the_files_error(shared_data: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    lines = (shared_data / PILOT).read_bytes().split(b"\n")
    header = lines[0].split(b"\t")
    rows = [CORRUPTIONS["bad_time"][0](ln, header) for ln in lines[1:] if ln.strip()]
    path = tmp_path / "hit.results"
    path.write_bytes(b"\n".join([lines[0], *rows]))
    assert main(["qc", str(path), "--out", str(tmp_path / "flags.csv")]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "none of its 10 row(s) could be read (first, line 2:" in err


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), quoting=csv.QUOTE_ALL)
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_a_crowd_form_batch_names_whose_fault_each_malformed_answer_is(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    rows = batch_rows()
    rows[2]["Answer.taskAnswers"] = '[{"summary": "cut off by the page\'s script'  # not JSON: could be ours
    rows[5]["Answer.taskAnswers"] = json.dumps([{"summary": "x"}])[:-2] + ', "n": NaN}]'  # no browser writes NaN
    rows[6]["WorkTimeInSeconds"] = "-3"
    path = _write(tmp_path / "Batch_1_batch_results.csv", rows)
    assert main(["qc", str(path), "--out", str(tmp_path / "flags.csv")]) == 0
    err = capsys.readouterr().err
    assert f"{path}:4: Answer.taskAnswers: not the JSON a crowd-form posts" in err
    assert f"{path}:7: Answer.taskAnswers: a value no browser writes: built by hand (NaN is not a JSON number" in err
    assert f"{path}:8: WorkTimeInSeconds '-3' must be a finite number of seconds >= 0" in err
    flags = _flags(tmp_path / "flags.csv")
    assert {(f["value"], f["worker_id"]) for f in flags if f["rule"] == "malformed_answer"} == {
        ("4", "W02"), ("7", "W05"), ("8", "W06")}
    # the other rows were read and judged: the pasted summary of W08 is still found (tests/test_qc_task_answers.py)
    assert any(f["rule"] == "paste_external" and f["worker_id"] == "W08" for f in flags)


# --- campaigns on the simulator: one worker's malformed answer, every other answer decided ---------------------

def _mangling(monkeypatch: pytest.MonkeyPatch, posted: dict[int, dict[str, str]], broken_xml: set[int]) -> list[int]:
    """The simulated crowd's n-th answer (from 1) posted as ``posted[n]`` over the honest one's fields, and
    its answer XML cut short for n in ``broken_xml`` (the platform's defect: no worker writes the XML)."""
    honest_post, honest_xml, count = market.posted_answer, market.answer_xml, [0]

    def post(values: dict[str, str], fields: list[Any], html: str) -> dict[str, str]:
        count[0] += 1
        return {**honest_post(values, fields, html), **posted.get(count[0], {})}

    def xml(values: dict[str, str]) -> str:
        text = honest_xml(values)
        return text[:-30] if count[0] in broken_xml else text

    monkeypatch.setattr(market, "posted_answer", post)
    monkeypatch.setattr(market, "answer_xml", xml)
    return count


def _outcomes(db: Path) -> dict[str, dict[str, Any]]:
    store = Store(db)
    rows = store.rows("SELECT a.assignment_id, a.worker_id, a.parse_error, a.answer_xml, d.action, d.reasons, "
                      "d.review FROM assignments a LEFT JOIN decisions d USING (assignment_id)")
    flags = store.rows("SELECT assignment_id, rule, detail FROM qc_flags")
    blocked = {b["worker_id"] for b in store.rows("SELECT worker_id FROM blocks")}
    return {r["assignment_id"]: {**r, "rules": {f["rule"] for f in flags if f["assignment_id"] == r["assignment_id"]},
                                 "blocked": r["worker_id"] in blocked} for r in rows}


def _held_for_a_person(row: dict[str, Any]) -> bool:
    return row["action"] == "approve" and row["review"] == 1 and "malformed_answer" in row["rules"] \
        and not row["blocked"]


def test_a_caption_campaign_keeps_flags_and_holds_malformed_answers(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Answer 2's XML is cut short, answer 4 holds half an emoji (a lone surrogate: once a UnicodeEncodeError
    that stopped the collection at every resume), answer 6 a 5 MB caption."""
    config = small_vizwiz(tmp_path, items=10, edits={"batches = 5": "batches = 1"})
    monkeypatch.chdir(tmp_path)
    count = _mangling(monkeypatch, {4: {"caption_0": "A dog \ud83d on a mat."}, 6: {"caption_0": "a" * (5 << 20)}},
                      {2})
    assert main(["run", str(config), "--no-prefect"]) == 0
    rows = _outcomes(tmp_path / "runs" / "hitflow.db")
    assert len(rows) == count[0] == 10 and all(r["action"] in ("approve", "reject") for r in rows.values())
    broken = [r for r in rows.values() if r["parse_error"]]
    assert len(broken) == 2 and all(_held_for_a_person(r) and r["answer_xml"] for r in broken), broken
    assert {"answer XML is malformed: unclosed token" in r["parse_error"] for r in broken} == {True, False}
    assert any("of 5242880 characters, over the 4194304 allowed" in r["parse_error"] for r in broken)
    half = Store(tmp_path / "runs" / "hitflow.db").rows("SELECT value FROM answers WHERE value LIKE 'A dog %'")
    assert [r["value"] for r in half] == ["A dog \ufffd on a mat."]


def test_a_custom_page_rejects_a_forged_answer_and_holds_an_unreadable_one(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """On a crowd-form page: answer 1 holds NaN, which no browser writes (built by hand: invalid_answer,
    rejected as the custom policy says); answer 2's XML is cut short (could be ours: held for a person,
    the worker not blocked; before, invalid_answer rejected and blocked them)."""
    scaffold("crowd", tmp_path)
    shutil.copy(PAGES / "crowd_photo.html.j2", tmp_path / "config" / "crowd.html.j2")
    monkeypatch.chdir(tmp_path)
    count = _mangling(monkeypatch, {1: {"taskAnswers": '[{"title_0":"x","n":NaN}]'}}, {2})
    assert main(["run", "config/crowd.toml", "--no-prefect", "--platform", "mturk"]) == 0
    rows = list(_outcomes(tmp_path / "runs" / "hitflow.db").values())
    assert len(rows) == count[0] >= 3 and all(r["action"] in ("approve", "reject") for r in rows)
    forged = [r for r in rows if "NaN is not a JSON number" in r["parse_error"]]
    assert len(forged) == 1 and forged[0]["action"] == "reject" and "invalid_answer" in forged[0]["rules"]
    unreadable = [r for r in rows if "unclosed token" in r["parse_error"]]
    assert len(unreadable) == 1 and _held_for_a_person(unreadable[0]), unreadable
    assert "invalid_answer" not in unreadable[0]["rules"]


def test_a_study_holds_an_unreadable_response_for_a_person(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An expert-rating study where one response's XML is cut short: kept, flagged malformed_answer, held
    for a person; before, the study's invalid_answer rejected it and blocked its worker."""
    count = _mangling(monkeypatch, {}, {2})
    run_campaign(CONFIG / "expert_rating.toml", db_path=tmp_path / "h.db", out_root=tmp_path / "runs",
                 platform="mturk", progress=lambda _: None)
    rows = list(_outcomes(tmp_path / "h.db").values())
    assert len(rows) == count[0] and all(r["action"] in ("approve", "reject") for r in rows)
    unreadable = [r for r in rows if r["parse_error"]]
    assert len(unreadable) == 1 and _held_for_a_person(unreadable[0]) and "invalid_answer" not in unreadable[0]["rules"]
    kept = Store(tmp_path / "h.db").rows("SELECT rule, detail FROM response_problems WHERE assignment_id = ?",
                                         [unreadable[0]["assignment_id"]])
    assert [(k["rule"], "unclosed token" in k["detail"]) for k in kept] == [("malformed_answer", True)]


def test_the_task_server_stores_half_an_emoji_as_u_fffd(app: dict[str, Any]) -> None:  # noqa: F811
    """A Prolific or invite-link worker's crowd-form answer whose JSON holds a lone surrogate escape
    (``JSON.stringify`` writes one for an emoji cut in half by a field's maxlength): stored with U+FFFD,
    and the worker gets the completion page. Before, the ledger's UnicodeEncodeError was an HTTP 500."""
    client, name = app["client"], app["cfg"].name
    page = client.get(f"/task/{name}", params={"PROLIFIC_PID": "half", "STUDY_ID": STUDY, "SESSION_ID": "half"})
    values = answers_for(page.text)
    captions = {k: values.pop(k) for k in list(values) if k.startswith("caption_")}
    captions["caption_0"] = "A dog \ud83d on a mat."
    values["taskAnswers"] = json.dumps([captions])  # "\ud83d" as its JSON escape, as a browser writes it
    assert client.post(f"/task/{name}/submit", data=values).status_code == 303
    stored = app["store"].rows("SELECT value FROM answers WHERE assignment_id = 'half' AND field = 'caption' "
                               "AND item_id = ?", [values["image_id_0"]])
    assert [r["value"] for r in stored] == ["A dog \ufffd on a mat."]


def test_aggregate_leaves_out_and_names_the_rows_it_cannot_read(shared_data: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The real WSD labels (Snow et al. 2008) with one row given a field too many and one a NUL byte: both
    named (stderr, the summary's unread_rows), the other 1,768 labels aggregated exactly as the same file
    without those rows is; before, the first of them stopped the command (exit 3)."""
    lines = (shared_data / "snow2008-wsd" / "wsd.standardized.tsv").read_bytes().split(b"\n")
    corrupted, kept = list(lines), [ln for i, ln in enumerate(lines, 1) if i not in (6, 10)]
    corrupted[5] += b"\textra"
    corrupted[9] = corrupted[9].replace(b"\t", b"\t\x00", 1)
    (tmp_path / "bad.tsv").write_bytes(b"\n".join(corrupted))
    (tmp_path / "kept.tsv").write_bytes(b"\n".join(kept))
    columns = ["--method", "mv", "--columns", "orig_id,!amt_worker_ids,response"]
    assert main(["aggregate", str(tmp_path / "bad.tsv"), "--out", str(tmp_path / "bad" / "answers.csv"), *columns]) == 0
    out = capsys.readouterr()
    summary = json.loads(out.out)
    assert summary["unread_rows"] == [{"line": 6, "reason": "8 field(s), but the header has 7 (separated by '\\t')"},
                                      {"line": 10, "reason": "holds a NUL byte"}]
    assert f"{tmp_path / 'bad.tsv'}:6: 8 field(s)" in out.err and f"{tmp_path / 'bad.tsv'}:10: holds a NUL" in out.err
    assert main(["aggregate", str(tmp_path / "kept.tsv"), "--out", str(tmp_path / "kept" / "answers.csv"),
                 *columns]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert summary["judgements"] == alone["judgements"] == 1768
    assert (tmp_path / "bad" / "answers.csv").read_text() == (tmp_path / "kept" / "answers.csv").read_text()


def test_a_policy_holds_malformed_answers_unless_it_rejects_them(tmp_path: Path) -> None:
    """The demo config names its own review_rules without malformed_answer: it is added, so an unreadable
    answer is never approved unseen; a config that names it in reject_rules rejects instead."""
    held = load_config(small_vizwiz(tmp_path, "held", items=5)).policy
    assert "malformed_answer" in held.review_rules and "malformed_answer" not in held.reject_rules
    rejects = '"max_chars", "malformed_answer"]'
    strict = load_config(small_vizwiz(tmp_path, "strict", items=5, edits={'"max_chars"]': rejects})).policy
    assert "malformed_answer" in strict.reject_rules and "malformed_answer" not in strict.review_rules


def test_a_batch_whose_answers_mostly_cannot_be_read_is_held_not_paid(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Every answer's XML cut short: a defect of the page or the platform, not ten workers' fraud. The batch
    is held for a person (exit 10, nothing decided), as when one rule would reject most of it; before, it
    was approved (paid) with no caption read, and the next batch went out on the same page."""
    config = small_vizwiz(tmp_path, items=10, edits={"batches = 5": "batches = 1"})
    monkeypatch.chdir(tmp_path)
    _mangling(monkeypatch, {}, set(range(1, 100)))
    assert main(["run", str(config), "--no-prefect"]) == 10
    store = Store(tmp_path / "runs" / "hitflow.db")
    assert store.table("decisions").count == 0 and store.table("assignments").count == 10
    hold = store.rows("SELECT hold FROM batches WHERE batch = 1")[0]["hold"]
    workers = len({r["worker_id"] for r in store.rows("SELECT worker_id FROM assignments")})
    assert f"rule malformed_answer could not read the answers of {workers} of {workers} workers" in hold
