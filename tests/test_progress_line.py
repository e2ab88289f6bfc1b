"""The progress line of `hitflow aggregate` (flows/cli/progress_line.py): silent under 2 s, in place on a
terminal and erased at the end, one line per update with HITFLOW_PROGRESS=always, nothing into a pipe."""

from __future__ import annotations

import io
import time

from flows.cli.progress_line import ERASE, ProgressLine
from postprocess.answers import fast_em


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_quiet_when_quick() -> None:
    out = Terminal()
    with ProgressLine("cmd", after=5.0, stream=out) as line:
        line.stage("fast")
    assert out.getvalue() == ""


def test_on_a_terminal_rewritten_in_place_then_erased() -> None:
    out = Terminal()
    with ProgressLine("cmd", "reading", after=0.05, every=0.05, stream=out) as line:
        time.sleep(0.3)
        line.stage("glad: EM iteration 3 of at most 100")
        time.sleep(0.2)
    text = out.getvalue()
    assert text.startswith(f"{ERASE}cmd: reading (") and "cmd: glad: EM iteration 3 of at most 100" in text
    assert "\n" not in text and text.endswith(ERASE)


def test_a_pipe_gets_nothing_unless_asked() -> None:
    out = io.StringIO()
    with ProgressLine("cmd", after=0.01, every=0.01, stream=out):
        time.sleep(0.1)
    assert out.getvalue() == ""
    with ProgressLine("cmd", "reading", after=0.01, every=0.01, stream=out, mode="always") as line:
        time.sleep(0.1)
        token = fast_em.PROGRESS.set(line.stage)
        try:
            fast_em.OneCoinDawidSkene(n_iter=1).fit(_labels())
        finally:
            fast_em.PROGRESS.reset(token)
        time.sleep(0.1)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("cmd: reading (") and lines[0].endswith(" s)")
    assert any(line.startswith("cmd: one-coin: EM iteration 1 of at most 1 (") for line in lines)
    assert ERASE not in out.getvalue()


def test_never_turns_it_off_on_a_terminal() -> None:
    out = Terminal()
    with ProgressLine("cmd", after=0.01, every=0.01, stream=out, mode="never"):
        time.sleep(0.1)
    assert out.getvalue() == ""


def _labels():  # type: ignore[no-untyped-def]
    import pandas as pd

    return pd.DataFrame({"task": ["a", "a", "b"], "worker": ["p", "q", "p"], "label": ["x", "y", "x"]})
