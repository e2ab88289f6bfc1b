"""Text telemetry in QC: the record's checks, old event logs, the four rules, their
per-worker rates, ``text_origin``, and ``hitflow qc`` on an MTurk batch-results file with a keylog."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.cli.main import main
from qc.decisions import DecisionPolicy
from qc.runner import TELEMETRY_RULES, prepare, run_rules
from qc.telemetry import TelemetryError, event_log_record, parse_record
from qc.telemetry_frame import text_origin
from qc.worker_history import blocks_on_rates, worker_history

FIXTURE = Path(__file__).parent / "telemetry" / "mturk_batch_results_keylog.csv"
CAPTION = "A white coffee mug sits on a wooden desk next to a laptop."  # 58 characters
ECHO = "Describe all parts of the image that may be important to a person who is blind."


def field(**kw: Any) -> dict[str, Any]:
    base = {"typed": 0, "del": 0, "keys": 0, "first_ms": None, "active_ms": 0, "paste": [], "paste_n": 0,
            "paste_x": 0, "paste_p": 0, "drop": 0, "copy": 0, "cut": 0, "focus": [], "len": len(CAPTION)}
    return base | kw


def typed(n: int = len(CAPTION), seconds: float = 15.0) -> dict[str, Any]:
    return field(typed=n + 2, keys=n + 6, first_ms=3000, active_ms=int(seconds * 1000))


def record(f: dict[str, Any], vis: list[list[Any]] | None = None) -> str:
    return json.dumps({"v": 1, "loads": 1, "vis": vis or [], "f": {"caption_0": f}}, separators=(",", ":"))


def frame(records: list[tuple[str, str, str]], canned: tuple[bool, ...] = ()) -> pd.DataFrame:
    """(worker, caption, telemetry JSON) -> a prepared QC frame, one caption per assignment."""
    rows = [{"assignment_id": f"a{i}", "worker_id": w, "image_id": f"img{i}", "caption": c, "telemetry": t,
             "telemetry_field": "caption_0", "work_time_s": 60.0} for i, (w, c, t) in enumerate(records)]
    df = pd.DataFrame(rows)
    if canned:
        df["is_precanned"] = list(canned)
    return prepare(df)


def flagged(df: pd.DataFrame, rule: str) -> set[str]:
    flags = run_rules(df, {}, (rule,))
    assert not (flags["rule"] == "rule_error").any(), flags
    return set(flags.loc[flags["rule"] == rule, "worker_id"])


def test_record_checks_refuse_what_a_page_never_writes() -> None:
    assert parse_record(record(typed()))["f"]["caption_0"]["len"] == len(CAPTION)
    for bad, words in [("{not json", "not JSON"), ('{"v":2,"f":{}}', "version"), ("[1,2]", "object"),
                       (record(field(typed=-3)), "not a count"), (record(field(paste=[[5, 10, "clipboard"]])), "paste"),
                       (record(typed(), vis=[[10, "gone"]]), "vis"), (record(field(first_ms=10**15)), "time")]:
        with pytest.raises(TelemetryError, match=words):
            parse_record(bad)


def test_event_log_keeps_lengths_and_times_never_the_text_or_the_keys() -> None:
    secret = "SENTINEL-clipboard-words 7f3a"
    log = [["focus", "", "2024-05-01T10:00:00Z"], ["key", "Q", "2024-05-01T10:00:01Z"],
           ["key", "Backspace", "2024-05-01T10:00:01.300Z"], ["key", "Shift", "2024-05-01T10:00:01.500Z"],
           ["copy", "Describe the image", "2024-05-01T10:00:02Z"],
           ["paste", "Describe the image", "2024-05-01T10:00:03Z"],
           ["blur", "", "2024-05-01T10:00:04Z"], ["paste", secret, "2024-05-01T10:00:09Z"]]
    rec = event_log_record(json.dumps(log), "caption_2")
    f = rec["f"]["caption_2"]
    assert (f["typed"], f["del"], f["keys"], f["first_ms"], f["active_ms"]) == (1, 1, 3, 1000, 500)
    assert f["paste"] == [[3000, 18, "p"], [9000, len(secret), "x"]]
    assert (f["paste_p"], f["paste_x"], f["copy"]) == (18, len(secret), 1)
    assert f["focus"] == [[0, "f"], [4000, "b"]]
    text = json.dumps(rec)
    assert "SENTINEL" not in text and "Describe" not in text and "Backspace" not in text and '"Q"' not in text
    parse_record(json.dumps(rec | {"f": {"caption_2": f | {"len": 40}}}))  # the shared check accepts it


def test_absent_canned_and_in_page_text_never_flag_as_external() -> None:
    in_page = record(field(paste=[[4000, len(ECHO), "p"]], paste_n=1, paste_p=len(ECHO), len=len(ECHO)))
    button = record(field(len=58))  # the canned-answer button sets the value: nothing typed or pasted
    df = frame([("ABSENT", CAPTION, ""), ("BROKEN", CAPTION, "{oops"), ("PAGE", ECHO, in_page),
                ("CANNED", "Quality issues are too severe to recognize visual content.", button)])
    for rule in TELEMETRY_RULES:
        assert flagged(df, rule) == set(), rule
    assert df.loc[1, "tm_error"].startswith("telemetry record unreadable: not JSON")
    # the page's own words stay visible to the rule that reads them
    echo = run_rules(df, {"page_text": ECHO + "\nSubmit"}, ("instruction_echo",))
    assert set(echo["worker_id"]) == {"PAGE"}
    assert list(text_origin(df)) == ["unknown", "unknown", "in-page paste", "unknown"]


def test_pastes_from_outside_and_the_switch_faster_than_typing() -> None:
    n = len(CAPTION)
    assistant = record(field(typed=0, focus=[[3000, "f"], [4000, "b"], [9000, "f"]], paste=[[9400, n, "x"]],
                             paste_n=1, paste_x=n), vis=[[4050, "h"], [8900, "v"]])  # away 5.35 s: 10.8/s
    notes = record(field(typed=0, focus=[[3000, "f"], [4000, "b"], [25000, "f"]], paste=[[25400, n, "x"]],
                         paste_n=1, paste_x=n), vis=[[4050, "h"], [24900, "v"]])  # away 21 s: 2.8/s
    clip = record(field(typed=0, paste=[[2000, n, "x"]], paste_n=1, paste_x=n))  # no switch before it
    part = record(field(typed=20, keys=22, first_ms=2000, active_ms=5000, paste=[[9000, n - 20, "x"]], paste_n=1,
                        paste_x=n - 20))
    df = frame([("TYPED", CAPTION, record(typed())), ("ASSIST", CAPTION, assistant), ("NOTES", CAPTION, notes),
                ("CLIP", CAPTION, clip), ("PART", CAPTION, part)])
    assert flagged(df, "paste_external") == {"ASSIST", "NOTES", "CLIP", "PART"}
    assert flagged(df, "untyped_text") == {"ASSIST", "NOTES", "CLIP", "PART"}
    assert flagged(df, "switch_then_paste") == {"ASSIST"}  # own notes take as long as typing them
    assert list(text_origin(df)) == ["typed", "external paste", "external paste", "external paste", "mixed"]
    detail = run_rules(df, {}, ("switch_then_paste",))["detail"].iloc[0]
    assert detail.startswith("away 5.3 s, then pasted 58 characters")  # from the tab hidden at 4,050 ms


def test_own_drafts_pasted_back_are_not_flagged_by_pasting_alone() -> None:
    """The reproducibility work: a worker who typed on the page at 4 characters a second and was away 21 s before
    pasting 58 characters (14.5 s of their typing) pasted their own draft; the same paste after 5 s
    away, or on a page where nothing was typed (no speed of their own to judge by), still flags."""
    n = len(CAPTION)

    def page(away_ms: int, typed: int) -> str:
        notes = field(typed=0, focus=[[3000, "f"], [4000, "b"], [4000 + away_ms, "f"]],
                      paste=[[4400 + away_ms, n, "x"]], paste_n=1, paste_x=n)
        other = field(typed=typed, keys=typed, first_ms=500, active_ms=max(1, typed * 250))
        return json.dumps({"v": 1, "loads": 1, "vis": [[4050, "h"], [3900 + away_ms, "v"]],
                           "f": {"caption_0": notes, "caption_1": other}}, separators=(",", ":"))

    rows = [(name, CAPTION, page(away, typed)) for name, away, typed in
            (("DRAFT", 21000, 60), ("QUICK", 5000, 60), ("NOTYPING", 21000, 0))]
    df = frame(rows)
    for rule in ("paste_external", "untyped_text"):
        assert flagged(df, rule) == {"QUICK", "NOTYPING"}, rule
    assert flagged(df, "switch_then_paste") == {"QUICK"}


def test_typing_cadence_flags_typing_no_person_can_do() -> None:
    script = field(typed=58, keys=58, first_ms=1000, active_ms=400)  # 145 characters a second
    fast = field(typed=60, keys=64, first_ms=1000, active_ms=5200)  # 11.5 a second: a very fast typist
    spoken = field(typed=58, keys=0, first_ms=1000, active_ms=0)  # dictation: text without keystrokes
    df = frame([("BOT", CAPTION, record(script)), ("FAST", CAPTION, record(fast)), ("VOICE", CAPTION, record(spoken))])
    assert flagged(df, "typing_cadence") == {"BOT"}


def test_telemetry_flags_feed_the_same_rate_based_blocks() -> None:
    n = len(CAPTION)
    pasted = record(field(paste=[[2000, n, "x"]], paste_n=1, paste_x=n))
    rows = [("PASTER", CAPTION, pasted)] * 10 + [("NOTES", CAPTION, pasted)] * 3
    rows += [("NOTES", CAPTION, record(typed()))] * 7
    df = frame(rows)
    flags = run_rules(df, {}, TELEMETRY_RULES).assign(batch=1)
    assignments = df.assign(batch=1, captions=1)[["assignment_id", "worker_id", "batch", "captions"]]
    policy = DecisionPolicy(block_min_rate={"paste_external": 0.9, "untyped_text": 0.9})
    blocks = blocks_on_rates(worker_history(assignments, flags), policy)
    assert list(blocks["worker_id"]) == ["PASTER"]
    assert "paste_external 100% (10/10)" in blocks["rules"].iloc[0]


def test_hitflow_qc_flags_external_pastes_per_row_of_an_mturk_batch_file(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "flags.csv"
    assert main(["qc", str(FIXTURE), "--out", str(out)]) == 0
    flags = list(csv.DictReader(out.open()))
    by_rule: dict[str, set[str]] = {}
    for f in flags:
        by_rule.setdefault(f["rule"], set()).add(f["assignment_id"])
    # row 2 typed 8 characters and pasted the rest after 6 s away; row 5 typed the start and pasted the rest;
    # row 3 pasted the instruction it had copied on the page; row 1 typed; row 4 has no log
    assert by_rule["paste_external"] == {"3TESTASSIGN00000002", "3TESTASSIGN00000005"}
    assert by_rule["switch_then_paste"] == {"3TESTASSIGN00000002"}
    assert not any("SENTINEL" in f["detail"] or '"key"' in f["detail"] for f in flags)
    bad = tmp_path / "bad.csv"
    rows = list(csv.reader(FIXTURE.open(newline="")))
    rows[1][rows[0].index("Answer.keylog")] = '[["key","a","yesterday"]]'
    csv.writer(bad.open("w", newline="")).writerows(rows)
    capsys.readouterr()
    assert main(["qc", str(bad), "--out", str(tmp_path / "f2.csv")]) == 0
    err = capsys.readouterr().err
    assert "1 caption(s) carry telemetry that cannot be read" in err and "not ISO 8601" in err


def test_a_record_claiming_a_shorter_text_than_the_caption_is_still_judged() -> None:
    """A forged record (the page's field is the worker's to write) saying the field ended empty or
    short must not hide the caption from the rules: the length judged is at least the caption's own."""
    nothing_typed = record(field(len=0))
    five_typed = record(field(typed=5, keys=5, first_ms=3000, active_ms=2000, len=5))
    df = frame([("W_FORGED_EMPTY", CAPTION, nothing_typed), ("W_FORGED_SHORT", CAPTION, five_typed),
                ("W_HONEST", CAPTION, record(typed()))])
    assert flagged(df, "untyped_text") == {"W_FORGED_EMPTY", "W_FORGED_SHORT"}
    assert list(text_origin(df)) == ["unknown", "mixed", "typed"]
