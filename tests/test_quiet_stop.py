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


def test_served_flow_runs_read_a_logging_config_whose_console_leaves_the_stop_echo_out(tmp_path) -> None:
    """serve-schedules points its flow-run processes at this config (PREFECT_LOGGING_SETTINGS_PATH), so a run
    stopped while it is still starting, before any of hitflow's code ran, is quiet too."""
    import importlib

    from prefect.logging.configuration import load_logging_config

    from flows.campaigns.run_log import quiet_stops_logging_config

    config = load_logging_config(quiet_stops_logging_config(tmp_path))
    assert "hitflow_quiet_stops" in config["handlers"]["console"]["filters"]
    module, _, name = config["filters"]["hitflow_quiet_stops"]["()"].rpartition(".")
    terminal = io.StringIO()
    console = logging.StreamHandler(terminal)
    console.addFilter(getattr(importlib.import_module(module), name)())  # as logging's dictConfig builds it
    shown = logging.getLogger("hitflow_test_quiet")
    shown.propagate, shown.handlers = False, [console]
    shown.error("Crash detected! Execution was aborted by a termination signal.")
    shown.error("batch 3: 2 worker(s) blocked")
    assert terminal.getvalue() == "batch 3: 2 worker(s) blocked\n"
