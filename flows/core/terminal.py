"""Rich tables and progress bars on a terminal; plain lines anywhere else."""

from __future__ import annotations

import atexit
import os
import sys
from collections.abc import Sequence
from typing import Any


def on_terminal() -> bool:
    return sys.stdout.isatty() and os.environ.get("TERM", "") != "dumb"


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A table with a title; numbers right-aligned, columns empty in every row left out."""
    from rich.console import Console
    from rich.table import Table

    kept = [i for i in range(len(columns)) if any(r[i] not in (None, "") for r in rows)] or list(range(len(columns)))
    columns, rows = [columns[i] for i in kept], [[r[i] for i in kept] for r in rows]
    table = Table(title=title, title_justify="left", title_style="bold")
    numeric = [all(isinstance(r[i], int | float) for r in rows) and bool(rows) for i in range(len(columns))]
    for name, right in zip(columns, numeric, strict=True):
        table.add_column(str(name), justify="right" if right else "left")
    for row in rows:
        table.add_row(*("" if v is None else str(v) for v in row))
    Console().print(table)


class WaitingBar:
    """One bar for a wait: what is in, elapsed time and an ETA; other output goes above it."""

    def __init__(self, console: Any = None):
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        # A wait lasts hours: the pace is taken over the whole of it, not rich's last 30 s.
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                                 TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                 console=console, refresh_per_second=1, speed_estimate_period=7 * 86400)
        self.task = self.progress.add_task("", total=None)
        self.progress.start()
        atexit.register(self.stop)  # a run that dies mid-wait still gets its cursor back

    def show(self, text: str, done: int, total: int | None) -> None:
        self.progress.update(self.task, description=text, completed=done, total=total)
        self.progress.refresh()

    def stop(self) -> None:
        self.progress.stop()
        atexit.unregister(self.stop)
