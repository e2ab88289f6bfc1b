"""A run's tracebacks go to ``OUT/<campaign>/logs/run-<time>.log``, never the console."""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_ECHOES = ("Finished in state Failed", "Finished in state Crashed", "Encountered exception during execution",
           "Crash detected!")


STOPPED = ("Crash detected! Execution was aborted by a termination signal",
           "Crash detected! Execution was aborted by an interrupt signal")


class _NotStopEchoes(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(STOPPED)


def quiet_stop_echoes() -> None:
    """Leave Prefect's "Crash detected!" console line out of a scheduled run its server stopped."""
    for console in _console_handlers():
        if not any(isinstance(f, _NotStopEchoes) for f in console.filters):
            console.addFilter(_NotStopEchoes())


def quiet_stops_logging_config(folder: Path) -> Path:
    """Prefect's logging config without the stop echoes, written into ``folder`` for flow-run processes."""
    import yaml
    from prefect.logging.configuration import DEFAULT_LOGGING_SETTINGS_PATH
    from prefect.settings import PREFECT_LOGGING_SETTINGS_PATH

    own = PREFECT_LOGGING_SETTINGS_PATH.value()
    config = yaml.safe_load((own if own.exists() else DEFAULT_LOGGING_SETTINGS_PATH).read_text())
    config.setdefault("filters", {})["hitflow_quiet_stops"] = {"()": f"{__name__}._NotStopEchoes"}
    console = config.get("handlers", {}).get("console")
    if console is not None:
        console["filters"] = [*console.get("filters", []), "hitflow_quiet_stops"]
    path = folder / "logging.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


class _NoTracebacks(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.exc_info and not str(record.msg).startswith(_ECHOES)


def _console_handlers() -> list[logging.Handler]:
    return [h for h in logging.getLogger().handlers
            if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)]


@contextmanager
def run_log(folder: Path, with_prefect: bool) -> Iterator[Path]:
    """Yield the log file's path; tracebacks of the block's errors are written there."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"run-{time.strftime('%Y%m%d-%H%M%S')}.log"
    handler = logging.FileHandler(path, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    if with_prefect:
        from prefect.logging.configuration import setup_logging

        setup_logging()  # Prefect's handlers exist from here on (later calls only update levels)
    root, quiet = logging.getLogger(), _NoTracebacks()
    consoles = _console_handlers()
    root.addHandler(handler)
    for console in consoles:
        console.addFilter(quiet)
    try:
        yield path
    except BaseException as exc:
        with path.open("a", encoding="utf-8") as fh:
            fh.write("".join(traceback.format_exception(exc)))
        raise
    finally:
        root.removeHandler(handler)
        handler.close()
        for console in consoles:
            console.removeFilter(quiet)
