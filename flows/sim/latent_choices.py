"""Every choice of a page has a latent true answer per item in the simulator, the same for every
worker (what the item's content says, flows/sim/content_choice.py, else drawn from the item and the
field's name), so aggregated answers can be scored against it
(``sim_items.json``; issue 42). Honest workers give it with their skill; a slip is half the time
their own habitual confusion (another option, fixed per worker: a confusion matrix, not a coin,
which Dawid-Skene can learn), else a random option; a profile with ``choices = "wrong"`` in its
crowd parameters is an adversary who always picks their confused option. The half is a modelling
choice, not a measured figure."""

from __future__ import annotations

import random
import zlib
from collections.abc import Iterable
from typing import Any

from flows.sim.content_choice import content_answers
from flows.sim.crowd_model import Worker

LATENT = "latent:"  # worker memory keys "latent:<item>|<field>" -> the latent answer
HABIT = 0.5


def latent_answer(worker: Worker, item: str, field: str, options: list[str], texts: Iterable[str] = (),
                  question: str = "") -> str:
    """The item's latent answer for ``field`` (recorded in the worker's memory for sim_items.json);
    ``texts``: what the item says (its own text, or the simulator's description of its image),
    ``question``: the field's own question (a crowd element's ``header``)."""
    truth = latent_truth(item, field, options, texts, question)
    worker.memory[f"{LATENT}{item}|{field}"] = truth
    return truth


def latent_truth(item: str, field: str, options: list[str], texts: Iterable[str] = (), question: str = "") -> str:
    """The latent answer itself: a control item's known answer, to measure workers on the simulator.
    The option the item's content supports, else (or among several it supports equally) one drawn
    by the item and field: deterministic, the same for every worker."""
    supported = content_answers(list(texts), options, question)
    return random.Random(zlib.crc32(f"{item}|{field}".encode())).choice(supported or options)


def slip(worker: Worker, options: list[str], truth: str, rng: random.Random) -> str:
    """A careless answer: the worker's habitual confusion, or a random option."""
    return confused(worker.worker_id, options, truth) if rng.random() < HABIT else rng.choice(options)


def confused(worker_id: str, options: list[str], truth: str) -> str:
    """The option this worker takes ``truth`` for: another one, fixed per worker."""
    if len(options) < 2:
        return truth
    shift = 1 + zlib.crc32(worker_id.encode()) % (len(options) - 1)
    return options[(options.index(truth) + shift) % len(options)]


def item_truth(workers: Iterable[Worker]) -> list[dict[str, Any]]:
    """``sim_items.json``: one row per item and choice field a worker was shown, with its latent answer."""
    seen: dict[tuple[str, str], str] = {}
    for w in workers:
        for key, truth in w.memory.items():
            if key.startswith(LATENT):
                item, field = key[len(LATENT):].rsplit("|", 1)
                seen[(item, field)] = truth
    return [{"item_id": i, "field": f, "answer": a} for (i, f), a in sorted(seen.items())]
