"""Standard output whose reader may leave: the run goes on, then the CLI exits 141."""

from __future__ import annotations

import os
from typing import Any, TextIO


class ReaderMayLeave:
    """Wraps a text stream; ``reader_left`` says whether a write found the pipe closed."""

    def __init__(self, stream: TextIO):
        self._stream = stream
        self.reader_left = False

    def write(self, text: str) -> int:
        if not self.reader_left:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._left()
        return len(text)

    def flush(self) -> None:
        if not self.reader_left:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._left()

    def _left(self) -> None:
        self.reader_left = True
        # what is still buffered is written to /dev/null, so the interpreter's last flush says nothing
        os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
