"""``dataset.json``, ``dataset.csv`` and ``dataset.raw.csv`` written a batch at a time."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import pandas as pd

from flows.core.errors import InputFormatError
from flows.core.inputs.csv_writing import append_csv
from postprocess.dataset import INFO, flat_table, vizwiz_parts


def json_item(value: Any, depth: int) -> str:
    """``value`` as ``json.dumps(indent=1)`` writes it ``depth`` levels down (each line indented)."""
    return "\n".join(" " * depth + line for line in json.dumps(value, indent=1).split("\n"))


class DatasetFiles:
    """``add(captions, items)`` per batch, in order; the files are complete when the block ends."""

    def __init__(self, out_dir: Path):
        self.out_dir = out_dir
        self.next_id = 1
        self.images = 0
        self.annotations = 0
        self.started = False  # the CSVs' header is out
        self._files: list[IO[str]] = []

    def __enter__(self) -> DatasetFiles:
        try:
            self.json = self._open(self.out_dir / "dataset.json")
            self.csv = self._open(self.out_dir / "dataset.csv")
            self.raw_csv = self._open(self.out_dir / "dataset.raw.csv")
        except OSError as exc:
            self.close()
            raise InputFormatError(f"{self.out_dir}: cannot write ({exc.strerror}); choose a writable --out") from exc
        # annotations come after every image in dataset.json: kept aside until the images are out
        self.later = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")
        self._files.append(self.later)
        self.json.write('{\n "info": ' + json_item(INFO, 1).lstrip() + ',\n "images": [')
        return self

    def _open(self, path: Path) -> IO[str]:
        handle = path.open("w", encoding="utf-8", newline="")
        self._files.append(handle)
        return handle

    def add(self, captions: pd.DataFrame, items: pd.DataFrame) -> None:
        """One batch's captions (with ``caption_corrected``, ``edits``, ``is_rejected``) and its items."""
        flat = flat_table(captions, items, self.next_id)
        append_csv(flat, self.raw_csv, header=not self.started, for_spreadsheet=False)
        append_csv(flat, self.csv, header=not self.started)
        self.started = True
        images, annotations = vizwiz_parts(captions, items, self.next_id)
        for image in images:
            self.json.write(("," if self.images else "") + "\n" + json_item(image, 2))
            self.images += 1
        for note in annotations:
            self.later.write(("," if self.annotations else "") + "\n" + json_item(note, 2))
            self.annotations += 1
        self.next_id += len(flat)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            if kind is None:
                self.json.write(("\n ]" if self.images else "]") + ',\n "annotations": [')
                self.later.seek(0)
                shutil.copyfileobj(self.later, self.json)
                self.json.write(("\n ]" if self.annotations else "]") + "\n}")
        finally:
            self.close()

    def close(self) -> None:
        for handle in self._files:
            handle.close()
        self._files = []
