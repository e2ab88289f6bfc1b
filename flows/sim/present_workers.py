"""The workers still in the marketplace, kept up to date as the clock moves (market.eligible_workers).

A worker leaves at ``leaves_at``, fixed when they arrive, and never comes back while the clock moves
forward, so the list is pruned as it goes: the scan behind every posted HIT covers the crowd that is
there, not everyone who ever came. A COCO-size campaign (330,000 images) recruits a worker per 24
images, ~14,000 over its virtual months, and each HIT scanned all of them: the simulator's time per
batch grew with the campaign (60 s at batch 1, 170 s at batch 14 of 43 in the 2026-11-24 run).

The order is the marketplace's own (arrival order), so the workers a seed picks are exactly the ones
it picked when every HIT scanned the whole crowd.
"""

from __future__ import annotations

from itertools import islice

from flows.sim.crowd_model import Worker


class PresentWorkers:
    def __init__(self) -> None:
        self._ids: list[str] = []
        self._seen = 0  # how many of the marketplace's workers (in arrival order) are in _ids or were pruned
        self._now = float("-inf")

    def at(self, workers: dict[str, Worker], now: float) -> list[Worker]:
        """The workers of ``workers`` (id -> worker, in arrival order; only ever added to) present at ``now``."""
        if now < self._now or len(workers) < self._seen:  # a clock set back or another crowd: start over
            self._ids, self._seen = [], 0
        self._ids.extend(islice(workers, self._seen, None))
        self._seen, self._now = len(workers), now
        present = [workers[i] for i in self._ids]
        present = [w for w in present if w.present(now)]
        self._ids = [w.worker_id for w in present]
        return present
