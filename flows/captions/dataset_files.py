"""``dataset.json``, ``dataset.csv`` and ``dataset.raw.csv``, and the report's caption tallies, a batch at a time."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import numpy as np
import pandas as pd

from flows.core.errors import InputFormatError
from flows.core.inputs.csv_writing import append_csv
from postprocess.dataset import INFO, canned_per_image, canned_table, flat_table, vizwiz_parts
from postprocess.spellcheck import spelling_stats


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
        images, annotations = vizwiz_parts(captions, items, flat)
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


SAMPLES_PER_WORKER = 3  # a blocked worker's first captions, shown in the report


class CaptionTally:
    """``add(captions)`` per batch (the columns of outputs.corrected_captions), then read the totals."""

    def __init__(self, blocked: set[str], per_image: int):
        self.blocked, self.per_image = blocked, per_image
        self.captions = 0
        self.kept = 0  # captions not rejected
        self._assignments: Counter[str] = Counter()  # per worker
        self._worker_captions: Counter[str] = Counter()
        self._times: list[pd.DataFrame] = []
        self.samples: dict[str, list[str]] = {}
        self._canned: Counter[int] = Counter()  # images by how many of their captions are canned
        self.spelling: list[dict[str, int | float]] = []

    def add(self, captions: pd.DataFrame) -> None:
        self.captions += len(captions)
        workers, assignments = captions["worker_id"].tolist(), captions["assignment_id"].tolist()
        self._assignments.update(w for w, _ in dict.fromkeys(zip(workers, assignments, strict=True)))
        self._worker_captions.update(workers)
        self._times.append(captions.loc[~captions["assignment_id"].duplicated(), ["batch", "work_time_s"]])
        for worker, caption in zip(workers, captions["caption"], strict=True):
            if worker in self.blocked and len(shown := self.samples.setdefault(worker, [])) < SAMPLES_PER_WORKER:
                shown.append(caption)
        kept = captions[~captions["is_rejected"]]
        self.kept += len(kept)
        self._canned.update(canned_per_image(kept).tolist())
        self.spelling.append(spelling_stats(kept[~kept["is_precanned"]]))

    def work(self) -> pd.DataFrame:
        """Per worker: assignments with captions (``worker_id, assignments``)."""
        return pd.DataFrame(sorted(self._assignments.items()), columns=["worker_id", "assignments"])

    def per_worker_captions(self) -> pd.DataFrame:
        """One row per caption, its ``worker_id`` only (what a per-worker caption count reads)."""
        workers = sorted(self._worker_captions)
        return pd.DataFrame({"worker_id": np.repeat(np.array(workers, dtype=object),
                                                    [self._worker_captions[w] for w in workers])})

    def times(self) -> pd.DataFrame:
        """One row per assignment with captions: ``batch, work_time_s``."""
        if not self._times:
            return pd.DataFrame(columns=["batch", "work_time_s"])
        return pd.concat(self._times, ignore_index=True)

    def canned(self) -> pd.DataFrame:
        counts = pd.Series(np.repeat(np.array(sorted(self._canned), dtype=int),
                                     [self._canned[k] for k in sorted(self._canned)]), dtype=int)
        return canned_table(counts, self.per_image)

    def counts_frame(self) -> pd.DataFrame:
        """A frame with only the caption, rejection and worker counts report_summary reads (no real captions)."""
        frame = self.per_worker_captions()
        return frame.assign(is_rejected=[False] * self.kept + [True] * (len(frame) - self.kept))
