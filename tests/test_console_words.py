"""What a person reads on the console is words and tables, never a Python repr.

The main commands run on the simulator (a small campaign on MTurk's API and on Prolific, an evaluation
study on invite links, the ledger commands, the dry runs, the offline tools, a page of your own) and
every line they print is searched for the marks of a repr: a dict or list of quoted strings, a tuple,
``Decimal('...')``, ``PosixPath(...)``, numpy scalars, ``datetime.datetime(...)``. Machine output
(``status --json``, ``analyze``'s JSON) is not run here: it is meant for programs.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from flows.cli.main import main
from tests.small_configs import ROOT, small_vizwiz

REPR_MARKS = re.compile(
    r"\{'[^']*': |\{\"[^\"]*\": |\['[^']*'[,\]]|\[\d+(, \d+)+\]|\(\d+, \d+\)|\('[^']*', |"
    r"\b(Decimal|PosixPath|WindowsPath|datetime\.\w+|np\.\w+|numpy\.\w+|Timestamp|defaultdict|Counter)\(|"
    r"<[\w.]+ object at 0x|\bnan\b|\bNaT\b")


INVITEES = [arg for name in ("ann", "bo", "cy", "di", "ed") for arg in ("--invite", name)]


def repr_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if REPR_MARKS.search(line)]


@pytest.mark.parametrize("line", [
    "batch 1: decisions {'approve': 25}",
    "cancel: {'closed': 0, 'expired': 2}",
    "released ['a', 'b']", "batches [1, 2, 3]", "at (3, 4)", "cost Decimal('1.50')", "out PosixPath('runs/x')",
    "when datetime.datetime(2026, 1, 1)", "mean np.float64(0.5)", "<flows.x.Run object at 0x7f>", "rate nan",
])
def test_the_check_sees_a_repr(line: str) -> None:
    assert repr_lines(line) == [line]


@pytest.mark.parametrize("line", [
    "batch 1: decisions: 5 approved; 1 for review", "QC over 20 captions, 6 flags canned_overuse=2",
    "committed $16.50, spent $15.84 of $800.00", "would call POST studies/<id>/transition/ PUBLISH (batch 1)",
    "profile  workers  worked", "task pages: http://h/task/x?PROLIFIC_PID={{%PROLIFIC_PID%}}",
])
def test_the_check_leaves_words_alone(line: str) -> None:
    assert repr_lines(line) == []


def _say(capsys: pytest.CaptureFixture[str], argv: list[str], codes: tuple[int, ...] = (0,)) -> str:
    code = main(argv)
    out = capsys.readouterr()
    assert code in codes, f"hitflow {' '.join(argv)} exited {code}:\n{out.out}\n{out.err}"
    return f"$ hitflow {' '.join(argv)}\n{out.out}{out.err}"


def test_main_commands_print_no_reprs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HITFLOW_DB", raising=False)
    # 10 images in 2 batches: each line a batch prints, and those from the second batch on, as 5 batches print them
    config = str(small_vizwiz(tmp_path, items=10, edits={"batches = 5 ": "batches = 2 "}))
    study = tmp_path / "study"
    shutil.copytree(ROOT / "config", study)
    said = [_say(capsys, ["run", config, "--no-prefect", "--limit", "10"])]
    for argv in (["status"], ["reconcile", "vizwiz_captions", "--dry-run"], ["cancel", "vizwiz_captions", "--dry-run"],
                 ["cancel", "vizwiz_captions"], ["status", "vizwiz_captions"],
                 # the campaign ran on MTurk above: on another platform it is a new attempt, dry run or not
                 ["run", config, "--platform", "prolific", "--dry-run", "--new-attempt"],
                 ["run", config, "--platform", "links", "--dry-run", "--new-attempt", *INVITEES],
                 ["run", config, "--platform", "prolific", "--no-prefect", "--limit", "10", "--new-attempt"],
                 ["run", str(study / "expert_rating.toml"), "--platform", "links", "--no-prefect", "--limit", "4"],
                 ["status"], ["new", "my_task", "--dir", str(tmp_path / "own")],
                 ["run", str(tmp_path / "own" / "config" / "my_task.toml"), "--dry-run"]):
        said.append(_say(capsys, argv))
    submissions = tmp_path / "subs.csv"
    submissions.write_text("assignment_id,worker_id,image_id,caption,work_time_s\n"
                           "a1,W1,i1,THIS IS A LOUD CAPTION ABOUT A DOG ON A PORCH,30\n"
                           "a2,W2,i1,A dog sleeps on teh porch of a small wooden house.,95\n")
    said.append(_say(capsys, ["qc", str(submissions), "--out", str(tmp_path / "flags.csv")]))
    said.append(_say(capsys, ["spellcheck", str(submissions), "--out", str(tmp_path / "fixed.csv")]))
    transcript = "\n".join(said)
    assert "approved" in transcript and "Prolific" in transcript  # the runs above did speak
    assert repr_lines(transcript) == [], "a Python repr reached the console:\n" + "\n".join(repr_lines(transcript))
