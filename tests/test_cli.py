"""The CLI: thin wiring, one-line errors with exit codes, the simulator as a process."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import boto3
import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.pages.mturk_forms import html_question
from tests.forked_hitflow import ForkServer

ROOT = Path(__file__).resolve().parents[1]


def one_line_error(capsys, argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    return code, err


def test_closed_mturk_is_a_one_line_error(capsys) -> None:
    code, err = one_line_error(capsys, ["run", str(ROOT / "config/vizwiz_captions.toml"), "--target", "production"])
    assert code == 5 and "closed permanently on 2026-09-30" in err and "--endpoint-url" in err


def test_bad_config_is_a_one_line_error(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[campaign]\nname = 'x'\n")
    code, err = one_line_error(capsys, ["run", str(bad)])
    assert code == 2 and "[campaign].items is required" in err


def test_live_endpoint_needs_the_live_flag(capsys) -> None:
    code, err = one_line_error(capsys, ["run", str(ROOT / "config/vizwiz_captions.toml"), "--target", "mturk",
                                        "--endpoint-url", "http://127.0.0.1:9", "--no-prefect"])
    assert code == 2 and "--live" in err


def test_offline_qc_writes_flag_table(tmp_path: Path, capsys) -> None:
    src = tmp_path / "subs.csv"
    pd.DataFrame({"assignment_id": ["a1", "a2"], "worker_id": ["W1", "W2"], "image_id": ["i1", "i1"],
                  "caption": ["This is a cat", "A black cat sleeps on a sunny windowsill today."],
                  "accept_time": ["2024-01-01T10:00:00Z"] * 2,
                  "submit_time": ["2024-01-01T10:05:00Z", "2024-01-01T10:06:00+00:00"]}).to_csv(src, index=False)
    out = tmp_path / "flags.csv"
    assert main(["qc", str(src), "--out", str(out)]) == 0
    flags = pd.read_csv(out, keep_default_na=False)
    assert list(flags.columns) == ["worker_id", "rule", "value", "threshold", "assignment_id", "image_id", "detail"]
    assert {("W1", "banned_prefix"), ("W1", "min_words")} <= set(zip(flags["worker_id"], flags["rule"], strict=True))


@pytest.mark.parametrize(("content", "needle"), [
    ("worker_id,caption\nW,x\n", "missing column(s) assignment_id, image_id"),
    ("assignment_id,worker_id,image_id,caption,work_time_s\na,W,i,x,slow\n", "work_time_s 'slow' is not a number"),
    ("assignment_id,worker_id,image_id,caption,accept_time,submit_time\na,W,i,x,yesterday,today\n",
     "accept/submit time"),
])
def test_offline_qc_bad_input(tmp_path: Path, capsys, content: str, needle: str) -> None:
    src = tmp_path / "subs.csv"
    src.write_text(content)
    code, err = one_line_error(capsys, ["qc", str(src), "--out", str(tmp_path / "f.csv")])
    assert code == 3 and needle in err


def test_mturk_batch_results_csv(tmp_path: Path) -> None:
    src = tmp_path / "Batch_1_batch_results.csv"
    pd.DataFrame({"HITId": ["H1"], "AssignmentId": ["A1"], "WorkerId": ["W1"], "WorkTimeInSeconds": ["95"],
                  "AcceptTime": ["Sat Apr 20 16:20:50 PDT 2019"], "SubmitTime": ["Sat Apr 20 16:22:25 PDT 2019"],
                  "Input.image_url_0": ["https://x/0.jpg"], "Input.image_url_1": ["https://x/1.jpg"],
                  "Answer.caption_0": ["THIS IS A LOUD CAPTION ABOUT A DOG"],
                  "Answer.caption_1": ["A DOG SLEEPS ON THE PORCH IN THE WARM SUN."]}).to_csv(src, index=False)
    out = tmp_path / "f.csv"
    assert main(["qc", str(src), "--out", str(out)]) == 0
    flags = pd.read_csv(out)
    assert {"caps_lock", "banned_prefix"} <= set(flags["rule"])
    assert set(flags.loc[flags["rule"] == "banned_prefix", "image_id"]) == {"https://x/0.jpg"}


def test_spellcheck_keeps_every_column(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    pd.DataFrame({"id": ["1", "2"], "caption": ["a dog on teh sofa", "fine text here"],
                  "worker_id": ["a", "b"], "extra": ["x", "y"]}).to_csv(src, index=False)
    assert main(["spellcheck", str(src), "--out", str(tmp_path / "out.csv")]) == 0
    out = pd.read_csv(tmp_path / "out.csv", keep_default_na=False)
    assert list(out.columns) == ["id", "caption", "worker_id", "extra", "caption_corrected", "edits"]
    assert out.loc[0, "caption_corrected"] == "a dog on the sofa"


def test_sim_serve_process_speaks_to_plain_boto3(hitflow_forks: ForkServer) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # a process of its own, forked from the session's fork server: not a fresh interpreter's ~2 s of imports
    proc = hitflow_forks.popen(["sim", "serve", "--port", str(port), "--seed", "1", "--speed", "3600"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        first = proc.stdout.readline() if proc.stdout else ""
        assert first.startswith(f"target: simulator at http://127.0.0.1:{port}")
        client = boto3.client("mturk", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                              aws_access_key_id="x", aws_secret_access_key="y")
        deadline = time.time() + 10
        while True:
            try:
                assert client.get_account_balance()["AvailableBalance"] == "10000.00"
                break
            except Exception:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        hit = client.create_hit(Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=3600,
                                LifetimeInSeconds=86400, MaxAssignments=3,
                                QualificationRequirements=[{"QualificationTypeId": "00000000000000000040",
                                                            "Comparator": "GreaterThan", "IntegerValues": [500]}],
                                Question=html_question("<form><textarea name='note'></textarea>"
                                                       "<input type='radio' name='ok' value='y'>"
                                                       "<input type='radio' name='ok' value='n'></form>"))
        assert hit["HIT"]["HITStatus"] == "Assignable"
        # This served clock runs at 3600x: simulated workers' answers arrive within seconds.
        deadline = time.time() + 30
        found: list[dict] = []
        while len(found) < 3 and time.time() < deadline:
            found = client.list_assignments_for_hit(HITId=hit["HIT"]["HITId"])["Assignments"]
            time.sleep(0.5)
        assert len(found) == 3
        assert all("<QuestionIdentifier>note</QuestionIdentifier>" in a["Answer"] for a in found)
        # an optional radio group is sometimes left unchosen, and a browser then submits nothing for it
        assert any("<QuestionIdentifier>ok</QuestionIdentifier>" in a["Answer"] for a in found)
        client.approve_assignment(AssignmentId=found[0]["AssignmentId"])
        with pytest.raises(client.exceptions.RequestError):
            client.approve_assignment(AssignmentId=found[0]["AssignmentId"])
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_status_reconcile_cancel_commands(sim, tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "h.db")
    config = str(ROOT / "config" / "vizwiz_captions.toml")
    assert main(["run", config, "--endpoint-url", sim.url, "--db", db, "--out", str(tmp_path), "--limit", "5",
                 "--no-prefect"]) == 0
    capsys.readouterr()
    assert main(["status", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "vizwiz_captions (done)" in text and "batch 5: done;" in text and "next: nothing" in text
    assert main(["status", "vizwiz_captions", "--db", db, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [b["status"] for b in report[0]["batches"]] == ["blocked"] * 5
    assert main(["reconcile", "vizwiz_captions", "--db", db]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"target: simulator at {sim.url}") and "reconcile: adopted 0 HIT(s)" in out
    assert "{'" not in out  # words, not a Python dict
    assert main(["cancel", "vizwiz_captions", "--db", db]) == 0
    assert main(["cancel", "vizwiz_captions", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "vizwiz_captions cancelled: closed 0 HITs still taking work;" in out
    assert f"report are in {tmp_path / 'vizwiz_captions'}" in out
    code, err = one_line_error(capsys, ["status", "nope", "--db", db])
    # exit 2 and the ledger in the hint, as cancel/reconcile/review say it (it was 1, "unexpected failure")
    assert code == 2 and "no campaign 'nope'" in err and f"`hitflow status --db {db}` lists them" in err


def test_dry_run_sends_nothing_and_flags_budget(tmp_path: Path, capsys) -> None:
    config = str(ROOT / "config" / "vizwiz_captions.toml")
    own = ["--db", str(tmp_path / "h.db"), "--out", str(tmp_path / "out")]  # not the checkout's (after make demo)
    assert main(["run", config, "--dry-run", "--limit", "50", *own]) == 0
    out = capsys.readouterr().out
    assert out.startswith("target: none (dry run") and out.count("would call CreateHITWithHITType") == 10
    # 50 images: 33.00 USD at 5 assignments a HIT, 59.40 with the top-up rounds' worst case (9 a HIT)
    assert "campaign estimate 59.40 USD with fees" in out and "nothing was sent anywhere" in out
    assert main(["run", config, "--dry-run", "--scale", "3", *own]) == 1
    assert "budget 1400.00 USD: SHORT by 382.00 USD" in capsys.readouterr().out  # 1,782.00 at 9 a HIT


def test_a_dry_runs_per_hit_calls_beyond_the_first_three_are_counted() -> None:
    from flows.campaigns.dry_run import format_plan

    calls = ["CreateHITType batch=1", *[f"CreateHITWithHITType batch=1 hit={n}" for n in range(30)],
             "then per batch 1: ListAssignmentsForHIT", *[f"CreateHITWithHITType batch=2 hit={n}" for n in range(4)]]
    plan = {"hits": 34, "assignments": 102, "largest_question_bytes": 1, "limit_bytes": 2, "estimate": "e",
            "problems": [], "calls": calls}
    out = format_plan(plan).splitlines()
    assert [line for line in out if "hit=" in line] == [f"  would call {c}" for c in (*calls[1:4], *calls[-4:])]
    assert out.count("  ... and 27 more CreateHITWithHITType calls like these") == 1  # a run of four is shown whole
    assert "  would call then per batch 1: ListAssignmentsForHIT" in out
