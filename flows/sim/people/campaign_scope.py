"""One marketplace, many campaigns: what one campaign's pages teach the simulator stays that campaign's."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import Any

from flows.sim.people.crowd_model import Worker
from flows.sim.people.known_answers import CURRENT, MARK
from flows.sim.people.latent_choices import LATENT, SOURCE, item_truth
from flows.sim.people.unseen_images import TEXT_SOURCE

PREFIXES = (LATENT, SOURCE, TEXT_SOURCE)  # memory keys filed under a campaign (MARK between it and the item)


def annotation_scope(annotation: str) -> str:
    """The campaign a HIT belongs to, by its RequesterAnnotation."""
    return annotation.split(":", 1)[0] if ":" in annotation else ""


def study_scope(internal_name: str) -> str:
    """The campaign a Prolific study belongs to, by its internal name."""
    return internal_name.rsplit(" batch ", 1)[0] if " batch " in internal_name else internal_name


@contextmanager
def campaign_scope(scope: str, worker: Worker) -> Iterator[None]:
    """Fill a page of campaign ``scope`` as ``worker``: its known answers, its latent answers filed under it."""
    before = len(worker.memory)  # what the page adds comes after (a dict keeps insertion order)
    token = CURRENT.set(scope)
    try:
        yield
    finally:
        CURRENT.reset(token)
        _file_under(worker, scope, before)


def file_unscoped(workers: Iterable[Worker]) -> None:
    """Latent answers of a state file from before scopes, filed once under the campaign "" when loaded."""
    for w in workers:
        _file_under(w, "", 0)


def _file_under(worker: Worker, scope: str, start: int) -> None:
    """The latent keys from position ``start`` of the worker's memory on, filed under ``scope``."""
    added = list(islice(worker.memory, start, None)) if start < len(worker.memory) else []
    for key in [k for k in added if k.startswith(PREFIXES) and MARK not in k]:
        prefix = next(p for p in PREFIXES if key.startswith(p))
        worker.memory[f"{prefix}{scope}{MARK}{key[len(prefix):]}"] = worker.memory.pop(key)


def scoped_truth(workers: Iterable[Worker], scope: str | None) -> list[dict[str, Any]]:
    """``sim_items.json`` of campaign ``scope`` (``None``: of every campaign, as before scopes)."""
    views = []
    for w in workers:
        memory = {}
        for key, value in w.memory.items():
            prefix = next((p for p in PREFIXES if key.startswith(p)), None)
            if prefix is None:
                continue
            rest = key[len(prefix):]
            filed, _, unscoped = rest.partition(MARK) if MARK in rest else (None, "", rest)
            if scope is None or filed == scope:
                memory[f"{prefix}{unscoped}"] = value
        if memory:
            views.append(dataclasses.replace(w, memory=memory))
    return item_truth(views)
