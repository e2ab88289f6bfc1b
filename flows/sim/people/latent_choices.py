"""Every choice of a page has a latent true answer per item in the simulator, the same for every worker."""

from __future__ import annotations

import random
import zlib
from collections.abc import Iterable
from typing import Any

from flows.sim.people.content_choice import content_answers
from flows.sim.people.crowd_model import RUSHED, Worker
from flows.sim.people.unseen_images import BLIND_TEXT, TEXT_SOURCE

LATENT = "latent:"  # worker memory keys "latent:<item>|<field>" -> the latent answer
SOURCE = "source:"  # "source:<item>|<field>" -> KNOWN or READ (absent: content-blind)
KNOWN, READ, BLIND = "known", "read", "blind"
HABIT = 0.5


def accuracy(worker: Worker) -> float:
    """The chance an honest worker gives a choice's latent answer: the crowd file's ``accuracy``, else by skill."""
    return float(worker.params.get("accuracy", 0.55 + 0.4 * worker.skill))


def careful(worker: Worker, rng: random.Random) -> bool:
    """Whether the worker takes care over one answer (a choice, a judgement), by :func:`accuracy`."""
    return rng.random() < accuracy(worker)


def latent_answer(worker: Worker, item: str, field: str, options: list[str], texts: Iterable[str] = (),
                  question: str = "", known: str | None = None) -> str:
    """The item's latent answer for ``field`` among ``options``, recorded in the worker's memory."""
    truth, source = sourced_truth(item, field, options, texts, question, known)
    worker.memory[f"{LATENT}{item}|{field}"] = truth
    if source != BLIND:
        worker.memory[f"{SOURCE}{item}|{field}"] = source
    return truth


def keep_known(worker: Worker, item: str, field: str, truth: str) -> None:
    """The requester's known answer (``truth``, as the field holds it) kept as the item's, for sim_items.json."""
    worker.memory |= {f"{LATENT}{item}|{field}": truth, f"{SOURCE}{item}|{field}": KNOWN}


def latent_truth(item: str, field: str, options: list[str], texts: Iterable[str] = (), question: str = "") -> str:
    """The latent answer where the requester knows none (:func:`sourced_truth`)."""
    return sourced_truth(item, field, options, texts, question)[0]


def sourced_truth(item: str, field: str, options: list[str], texts: Iterable[str] = (), question: str = "",
                  known: str | None = None) -> tuple[str, str]:
    """The latent answer and its source: known, else read from the item's content, else drawn (the same for all)."""
    if known is not None:
        return known, KNOWN
    supported = content_answers(list(texts), options, question)
    return random.Random(zlib.crc32(f"{item}|{field}".encode())).choice(supported or options), \
        READ if supported else BLIND


def slip(worker: Worker, options: list[str], truth: str, rng: random.Random) -> str:
    """A careless answer: the worker's habitual confusion, or a random option."""
    return confused(worker.worker_id, options, truth) if rng.random() < HABIT else rng.choice(options)


def confused(worker_id: str, options: list[str], truth: str) -> str:
    """The option this worker takes ``truth`` for: another one, fixed per worker."""
    if len(options) < 2:
        return truth
    shift = 1 + zlib.crc32(worker_id.encode()) % (len(options) - 1)
    return options[(options.index(truth) + shift) % len(options)]


def as_on_a_page(worker: Worker, offered: list[str], truth: str, rng: random.Random) -> str:
    """A choice whose answer is ``truth`` answered by the worker's profile (a page's choice, a quiz's question)."""
    if worker.profile == "contrarian":
        return offered[0]
    if worker.params.get("choices") == "wrong":
        return confused(worker.worker_id, offered, truth)
    if worker.profile in RUSHED:
        return rng.choice(offered)
    return truth if careful(worker, rng) else slip(worker, offered, truth, rng)


def item_truth(workers: Iterable[Worker]) -> list[dict[str, Any]]:
    """``sim_items.json``: each item and choice field's latent answer and ``source``, and content-blind text rows."""
    workers = list(workers)
    seen: dict[tuple[str, str], str] = {}
    sources: dict[tuple[str, str], str] = {}
    for w in workers:
        for key, value in w.memory.items():
            if key.startswith((LATENT, SOURCE)):
                prefix = LATENT if key.startswith(LATENT) else SOURCE
                item, field = key[len(prefix):].rsplit("|", 1)
                (seen if prefix == LATENT else sources)[(item, field)] = value
    blind_text = {tuple(key[len(TEXT_SOURCE):].rsplit("|", 1)) for w in workers for key in w.memory
                  if key.startswith(TEXT_SOURCE)}
    return [{"item_id": i, "field": f, "answer": a, "source": sources.get((i, f), BLIND)}
            for (i, f), a in sorted(seen.items())] + \
        [{"item_id": i, "field": f, "answer": "", "source": BLIND_TEXT} for i, f in sorted(blind_text)]
