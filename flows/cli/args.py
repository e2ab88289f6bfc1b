"""Validators for the CLI's argument values, and a parser whose errors are one line (exit 2)."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeVar

from flows.core.errors import shown

DEFAULT_DB = os.environ.get("HITFLOW_DB", "runs/hitflow.db")  # --db when none is named: `run`, `serve`, `status`
MAX_SCALE = 1000
T = TypeVar("T")


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line that says where the help is."""

    def error(self, message: str) -> NoReturn:
        text = message.replace("\r", "\\r").replace("\n", "\\n")
        self.exit(2, f"{self.prog}: error: {text}; see `{self.prog} --help`\n")


def whole_number(low: int, high: int | None = None, what: str = "an integer") -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what} (got {shown(text)})") from None
        if value < low or (high is not None and value > high):
            bounds = "" if high is None else f" between {low} and {high}"  # else ``what`` says the floor
            raise argparse.ArgumentTypeError(f"must be {what}{bounds} (got {value})")
        return value

    parse.__name__ = what  # argparse names the type in some messages
    return parse


def finite_number(low: float, high: float | None = None) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number (got {shown(text)})") from None
        if not math.isfinite(value) or value < low or (high is not None and value > high):
            bounds = f"at least {low:g}" if high is None else f"between {low:g} and {high:g}"
            raise argparse.ArgumentTypeError(f"must be a finite number {bounds} (got {shown(text)})")
        return value

    parse.__name__ = "number"
    return parse


positive = whole_number(1, what="a positive integer")
scale = whole_number(1, MAX_SCALE, what="a whole number of repeats")
non_negative = whole_number(0, what="a non-negative integer")
port = whole_number(0, 65535, what="a port number")
share = finite_number(0.0, 1.0)
percent = finite_number(0.0, 100.0)
non_negative_number = finite_number(0.0)


def _nearest_existing(path: Path) -> Path:
    probe = path.absolute()
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return probe


def _looked_up(text: str, what: str, look: Callable[[Path], T]) -> T:
    """``look`` at the path ``text`` names; a bad path or a database URL in any spelling is a usage error."""
    from flows.core.db_url import is_postgres_url, mistyped_postgres_url

    if is_postgres_url(text) or mistyped_postgres_url(text):
        raise argparse.ArgumentTypeError(f"must name a {what}, not a database URL or connection string (not "
                                         "shown: it may hold a password)")
    if not text.strip() or not text.isprintable():
        raise argparse.ArgumentTypeError(f"must name a {what} in printable characters (got {shown(text)})")
    try:
        return look(Path(text))
    except (ValueError, OSError) as exc:
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a usable path ({exc})") from None


def writable_dir(text: str) -> str:
    """A folder that exists and is writable, or can be created under a writable one."""
    probe = _looked_up(text, "folder", _nearest_existing)
    if not probe.is_dir():
        raise argparse.ArgumentTypeError(f"{shown(text)}: {probe} is a file, not a folder; choose another folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{shown(text)}: {probe} is not writable; choose another folder")
    return text


def writable_file(text: str) -> str:
    """A file path whose folder is (or can be made) writable, and that is not itself a folder."""
    if _looked_up(text, "file", Path.is_dir):
        raise argparse.ArgumentTypeError(f"{shown(text)} is a folder; give a file name")
    writable_dir(str(Path(text).absolute().parent))
    return text


def output_root(text: str) -> str:
    """``--out``: a folder as :func:`writable_dir`, or an fsspec URL of a protocol installed here."""
    from flows.core.outputs.output_location import is_output_url

    if not is_output_url(text):
        return writable_dir(text)
    from flows.core.outputs.output_mirror import protocol_problem

    if problem := protocol_problem(text):
        raise argparse.ArgumentTypeError(problem)
    return text


def ledger(text: str) -> str:
    """``--db``: a ``postgresql://`` URL (checked when opened), or an SQLite file as :func:`writable_file`."""
    from flows.core.db_url import MISTYPED_ADVICE, is_postgres_url, mistyped_postgres_url

    if is_postgres_url(text):
        return text
    if mistyped_postgres_url(text):  # not echoed: a password may be in it
        raise argparse.ArgumentTypeError(f"this {MISTYPED_ADVICE}")
    writable_file(text)
    if not _sqlite_or_new(Path(text)):  # a run would die on it as "unexpected DatabaseError" (exit 1)
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a hitflow ledger (not an SQLite file); give the "
                                         "ledger `hitflow run` wrote, or a new file name")
    return text


def _sqlite_or_new(path: Path) -> bool:
    """Whether ``path`` is an SQLite file (its first 16 bytes, sqlite.org/fileformat.html), empty, or not there."""
    from flows.core.db_url import SQLITE_MAGIC

    try:
        if not path.is_file():
            return True
        with path.open("rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except OSError:
        return True  # unreadable: the run's own message says so
    return not head or head == SQLITE_MAGIC


def http_url(text: str) -> str:
    """"" or an http(s) URL carrying no credentials; refused in words that never show it."""
    from flows.core.http_clients import http_url_problem

    if text and (problem := http_url_problem(text)):
        raise argparse.ArgumentTypeError(problem)
    return text


def name(text: str) -> str:
    """A person's or campaign's name: 1-100 printable characters."""
    if not text.strip() or len(text) > 100 or not text.isprintable():
        raise argparse.ArgumentTypeError(f"must be 1-100 printable characters (got {shown(text)})")
    return text


def campaign(text: str) -> str:
    """A campaign's name, or the config file `hitflow run` was given (``config/x.toml``): its campaign's name."""
    if not text.endswith(".toml"):
        return name(text)
    if not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"no config file {shown(text)}: give the campaign's name or its config file")
    from flows.core.config.config import load_config
    from flows.core.errors import HitflowError

    try:
        return load_config(text).name
    except HitflowError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def utc_time(text: str) -> float:
    """An ISO 8601 time with its zone (``2026-01-05T00:00:00Z``) as epoch seconds."""
    from datetime import datetime

    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a time with its zone, e.g. 2026-01-05T00:00:00Z")
    return when.timestamp()
