"""What the report needs from a campaign's captions, gathered a batch at a time."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from postprocess.dataset import canned_per_image, canned_table
from postprocess.spellcheck import spelling_stats

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
        self._assignments.update(captions.groupby("worker_id")["assignment_id"].nunique().to_dict())
        self._worker_captions.update(captions["worker_id"].value_counts().to_dict())
        self._times.append(captions.drop_duplicates("assignment_id")[["batch", "work_time_s"]])
        for worker, caption in zip(captions["worker_id"], captions["caption"], strict=True):
            if worker in self.blocked and len(shown := self.samples.setdefault(worker, [])) < SAMPLES_PER_WORKER:
                shown.append(caption)
        kept = captions[~captions["is_rejected"]]
        self.kept += len(kept)
        self._canned.update(canned_per_image(kept).value_counts().to_dict())
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
