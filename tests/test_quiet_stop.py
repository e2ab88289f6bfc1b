"""A scheduled flow run stopped by the serving process leaves no "Crash detected!" line in the terminal: the
serving process says in words that it stopped; other warnings still reach the terminal."""

from __future__ import annotations

import io
import logging

import pytest

from flows.campaigns.run_log import quiet_stop_echoes


def test_the_stop_echo_is_left_out_of_the_console_and_nothing_else(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = io.StringIO()
    console = logging.StreamHandler(terminal)
    monkeypatch.setattr(logging.getLogger(), "handlers", [console])
    quiet_stop_echoes()
    quiet_stop_echoes()  # twice in one process: one filter
    assert len(console.filters) == 1
    flow_runs = logging.getLogger("prefect.flow_runs")
    flow_runs.error("Crash detected! Execution was aborted by a termination signal.")
    flow_runs.error("Crash detected! Execution was aborted by an interrupt signal.")
    flow_runs.error("Crash detected! Execution was aborted by Python system exit call.")
    logging.getLogger("hitflow").warning("batch 2: 3 worker(s) blocked")
    shown = terminal.getvalue()
    assert "termination signal" not in shown and "interrupt signal" not in shown
    assert "system exit call" in shown and "3 worker(s) blocked" in shown
