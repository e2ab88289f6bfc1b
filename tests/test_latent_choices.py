"""The simulator's latent answers to choices: one per item and field for every worker, honest workers
near it, adversaries consistently off it, each worker's slips a confusion of their own."""

from __future__ import annotations

import random
from collections import Counter

from flows.sim.people.crowd_model import new_worker
from flows.sim.people.latent_choices import confused, item_truth, latent_answer, slip

OPTIONS = ["negative", "neutral", "positive"]


def test_latent_answer_is_the_items_not_the_workers() -> None:
    a = new_worker("diligent", {}, random.Random(1))
    b = new_worker("speeder", {}, random.Random(2))
    answers = {latent_answer(w, f"i{k}", "sentiment", OPTIONS) for k in range(1) for w in (a, b)}
    assert len(answers) == 1
    spread = Counter(latent_answer(a, f"i{k}", "sentiment", OPTIONS) for k in range(300))
    assert set(spread) == set(OPTIONS) and min(spread.values()) > 60  # drawn per item, not one for all
    table = item_truth([a, b])
    assert len(table) == 300 and {r["field"] for r in table} == {"sentiment"}


def test_confusion_is_another_option_fixed_per_worker() -> None:
    for worker_id in ("A1", "A2", "A3", "B9"):
        wrong = {truth: confused(worker_id, OPTIONS, truth) for truth in OPTIONS}
        assert all(w != t for t, w in wrong.items())
        assert len(set(wrong.values())) == 3  # a permutation: each truth mistaken for its own other option
    assert confused("A1", ["only"], "only") == "only"


def test_slips_are_half_habit() -> None:
    worker = new_worker("diligent", {}, random.Random(3))
    rng = random.Random(4)
    picks = Counter(slip(worker, OPTIONS, "neutral", rng) for _ in range(3000))
    habit = confused(worker.worker_id, OPTIONS, "neutral")
    assert 0.6 < picks[habit] / 3000 < 0.73  # 0.5 habit + 0.5 x 1/3 random


def _answers(params: dict[str, str], profile: str = "diligent", seed: int = 5) -> list[tuple[str, str]]:
    from flows.core.pages.crowd_elements import FormField
    from flows.sim.pages.any_form import Filling, choice
    from flows.sim.people.page_context import ItemContext

    worker = new_worker(profile, params, random.Random(seed))
    fill = Filling(worker, {}, random.Random(seed))
    f = FormField(name="sentiment_0", kind="radio", options=OPTIONS)
    out = []
    for k in range(200):
        given = choice(fill, f, ItemContext(key=f"i{k}"))
        out.append((given, worker.memory[f"latent:i{k}|sentiment"]))
    return out


def test_page_choices_follow_the_latent_answer() -> None:
    honest = _answers({})
    assert sum(g == t for g, t in honest) / len(honest) > 0.6
    adversary = _answers({"choices": "wrong"})
    assert all(g != t for g, t in adversary)
    assert len({(t, g) for g, t in adversary}) == 3  # consistently the same wrong option for each truth
