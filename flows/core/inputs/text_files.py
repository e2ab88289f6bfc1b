"""A user's text file: UTF-8, or one ``InputFormatError`` line naming the file."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from flows.core.errors import InputFormatError

MAX_INPUT_BYTES = 512 * 2**20  # any input file read whole; a bigger one is refused before it fills memory
MAX_MARKED_LINES = 1000  # more lines than this with NULs or stray bytes: the file is binary, not a few bad rows
T = TypeVar("T")
_NOT_TEXT = re.compile("[\x00\udc80-\udcff]+")  # a NUL, or bytes that are not UTF-8 (surrogateescape)


def read_text(path: Path, what: str = "it", max_bytes: int | None = None) -> str:
    """The file's UTF-8 text or a one-line InputFormatError, at most ``max_bytes`` read."""
    raw = _raw(path, what, max_bytes)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFormatError(f"{path}: not UTF-8 text (byte {raw[exc.start]:#04x} at offset {exc.start}); "
                               f"save {what} as UTF-8") from exc
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputFormatError(f"{path}:{line}: holds a NUL byte; {what} looks binary or UTF-16, not UTF-8 text: "
                               "save it as UTF-8 text")
    if not text or text.isspace():  # (strip() copied a whole file to say so)
        raise InputFormatError(f"{path}: is empty; {what} has nothing to read: fill it in, or name the file you meant")
    return text


def read_text_marking(path: Path, what: str = "it") -> tuple[str, dict[int, str]]:
    """The file's text and, by line, why a line is not clean text (read as U+FFFD), so one answer is flagged."""
    raw = _raw(path, what, None)
    text = raw.decode("utf-8-sig", errors="surrogateescape")
    marked: dict[int, str] = {}
    line, at = 1, 0
    for m in _NOT_TEXT.finditer(text):
        line, at = line + text.count("\n", at, m.start()), m.start()
        if line == 1 or len(marked) >= MAX_MARKED_LINES:
            return read_text(path, what), {}  # raises: the file's own one-line error
        if "\x00" in m[0]:  # a NUL is named even beside bad bytes (one inside a UTF-8 sequence makes both)
            marked[line] = "holds a NUL byte"
        else:
            marked.setdefault(line, f"holds bytes that are not UTF-8 (first {ord(m[0][0]) - 0xdc00:#04x}), "
                                    "read as U+FFFD")
    if not marked:
        return read_text(path, what), {}
    return _NOT_TEXT.sub(lambda m: "\ufffd" * len(m[0]), text), marked


def _raw(path: Path, what: str, max_bytes: int | None) -> bytes:
    """The file's bytes, refused with one line when it cannot be text."""
    if not str(path).isprintable():  # every later message names the path: keep them one line
        raise InputFormatError(f"{str(path)!r}: a file name with control characters; rename the file")
    max_bytes = MAX_INPUT_BYTES if max_bytes is None else max_bytes
    try:
        with path.open("rb") as fh:
            raw = fh.read(max_bytes + 1)
    except FileNotFoundError as exc:
        raise InputFormatError(f"{path} does not exist; check the path") from exc
    except IsADirectoryError as exc:
        raise InputFormatError(f"{path} is a folder; give {what} as a file") from exc
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise InputFormatError(f"{path}: cannot read {what} ({getattr(exc, 'strerror', None) or exc})") from exc
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputFormatError(f"{path}: {what} is UTF-16 text; save it as UTF-8")
    if len(raw) > max_bytes:
        raise InputFormatError(f"{path}: over {max_bytes} bytes, too large for {what}; split it or check the path")
    return raw


def read_once_per_version(read: Callable[[Path], T], kept: int) -> Callable[[Path], T]:
    """``read``, its result kept per version of the file (size, modification time), ``kept`` at most."""
    @lru_cache(maxsize=kept)
    def version(path: str, mtime_ns: int, size: int) -> T:
        return read(Path(path))

    def reader(path: Path) -> T:
        try:
            stat = path.stat()
        except OSError:
            return read(path)
        return version(str(path), stat.st_mtime_ns, stat.st_size)
    return reader
