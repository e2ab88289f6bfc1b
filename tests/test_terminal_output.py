"""What people see (flows/core/terminal.py): on a terminal (a real pseudo-terminal) a run draws progress
bars with an ETA and its summary table, and ``hitflow status`` a table; piped or captured, the same
commands print plain lines without a single control character."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from flows.campaigns.campaign_plan import Run
from flows.campaigns.summary import show_summary
from flows.campaigns.task_pages import task_page
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.core.terminal import WaitingBar
from flows.platforms.batch_window import end_waiting, show_waiting
from flows.platforms.mturk import adapter as mturk
from tests.forked_hitflow import ForkServer
from tests.small_configs import extensions

ROOT = Path(__file__).resolve().parents[1]
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # anything but \t and \n
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
TERMINAL_ENV = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "160", "LINES": "40",
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}


def on_a_terminal(forks: ForkServer, args: list[str]) -> tuple[int, str]:
    """Run ``hitflow ARGS`` with a pseudo-terminal as its stdout; its exit code and everything it drew. A process
    of its own, forked from the session's server (tests/forked_hitflow.py): what it draws is tested, not its start."""
    master, slave = pty.openpty()
    proc = forks.popen(args, cwd=ROOT, stdout=slave, stderr=subprocess.DEVNULL, env=TERMINAL_ENV)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    code = proc.wait(timeout=120)  # an exit status, or TimeoutExpired
    assert code is not None
    return code, b"".join(chunks).decode("utf-8", "replace")


def visible(drawn: str) -> str:
    return ESCAPES.sub("", drawn)


@pytest.fixture(scope="module")
def terminal_run(tmp_path_factory: pytest.TempPathFactory, hitflow_forks: ForkServer) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("terminal")
    code, drawn = on_a_terminal(hitflow_forks, ["run", str(ROOT / "config" / "vizwiz_captions.toml"), "--target", "sim",
                                 "--limit", "10", "--no-prefect", "--db", str(out / "h.db"), "--out", str(out)])
    assert code == 0, drawn[-2000:]
    return out, drawn


def test_a_run_on_a_terminal_draws_progress_bars_and_its_summary_table(terminal_run) -> None:
    out, drawn = terminal_run
    assert "ETA" in drawn and "HITs complete" in drawn  # the collection wait's bar
    assert "\x1b[" in drawn  # drawn, not printed
    assert re.search(r"blocked vs the simulator's ground truth.*\n.*━", drawn)  # a rich table's rule
    # ten images on 2-image HITs: 50 captions, and one more per image of each assignment a top-up added
    topped = (out / "vizwiz_captions" / "top_ups.csv").read_text().splitlines()[1:]
    extra = sum(int(line.rsplit(",", 1)[1]) for line in topped)
    assert f"captions: {50 + extra}" in drawn and "report:" in drawn


def test_status_is_a_table_on_a_terminal_and_plain_lines_in_a_pipe(terminal_run, hitflow_forks: ForkServer) -> None:
    out, _ = terminal_run
    code, drawn = on_a_terminal(hitflow_forks, ["status", "--db", str(out / "h.db")])
    assert code == 0 and "\x1b[" in drawn
    table = visible(drawn)
    assert re.search(r"┃ batch ┃ status +┃ posted ┃ assignments +┃ undecided ┃ for a person ┃ blocked ┃", table)
    approved = 5 + extensions(out / "h.db", 5)  # the demo's top-ups add assignments to a HIT
    assert re.search(rf"│ +5 │ done +│ 1 HIT +│ Approved {approved} +│", table), table  # a finished batch: done
    done = hitflow_forks.run(["status", "--db", str(out / "h.db")], cwd=ROOT, text=True)
    assert done.returncode == 0, done.stderr
    piped = done.stdout
    assert "vizwiz_captions (done)" in piped and "batch 5: done;" in piped
    assert not CONTROL.search(piped) and "┃" not in piped


def test_the_summary_is_plain_when_stdout_is_not_a_terminal(terminal_run, capsys) -> None:
    out, _ = terminal_run
    show_summary(out / "vizwiz_captions")
    text = capsys.readouterr().out
    assert "blocked vs the simulator's ground truth:" in text and re.search(r"diligent\s+\d+", text)
    assert not CONTROL.search(text)


def test_a_waiting_bar_shows_what_is_in_and_an_eta() -> None:
    screen = io.StringIO()
    bar = WaitingBar(Console(file=screen, force_terminal=True, width=120))
    bar.show("batch 1: 3/10 places filled, 2 in progress; 4 h left", 3, 10)
    bar.stop()
    assert "30%" in screen.getvalue() and "ETA" in screen.getvalue() and "3/10 places" in screen.getvalue()


def test_a_waiting_batch_prints_a_plain_line_only_when_its_numbers_change(tmp_path: Path, capsys) -> None:
    run = Run(load_config(ROOT / "config" / "vizwiz_captions.toml"), Store(tmp_path / "h.db"), None,
              mturk.Target("sim", "http://unused"), page=task_page)
    for filled in (1, 1, 2):
        show_waiting(run, 1, f"batch 1: {filled}/10 places filled", (filled,), progress=(filled, 10))
    end_waiting(run, 1)
    show_waiting(run, 1, "batch 1: 2/10 places filled", (2,), progress=(2, 10))
    out = capsys.readouterr().out
    assert out.splitlines() == ["batch 1: 1/10 places filled", "batch 1: 2/10 places filled",
                                "batch 1: 2/10 places filled"]
    assert not CONTROL.search(out)
