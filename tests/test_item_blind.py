"""``item_blind`` (qc/agreement_odds.py): a worker's choice, slider and tick answers judged over their history
against the crowd's agreement. A crowd shaped like a requester's one-item page (a 1-7 slider, a radio choice, a
checkbox group; five workers an item) is built directly: honest workers with their own use of the scale and
their own reading of mixed reviews, a constant rater (the same extreme, the same tick) and a random clicker."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from qc.agreement_odds import monotone_ratios, split_fields, worker_evidence
from qc.custom_rules import CUSTOM_POLICY
from qc.decisions import DecisionPolicy
from qc.runner import run_rules

SENTIMENT = ["positive", "mixed", "negative"]
TOPICS = ["price", "quality", "delivery", "service"]


def honest(rng: random.Random, lean: float, taste: str, latent: float, sentiment: str, topics: list[str]
           ) -> tuple[str, str, list[str]]:
    """An honest reader: the item's score through their own lean and noise; the item's sentiment, or on one
    review in six their own reading of it; the topics, missing or adding one now and then."""
    score = str(min(7, max(1, round(latent + lean + rng.gauss(0, 0.6)))))
    said = sentiment if rng.random() < 0.83 else (taste if rng.random() < 0.5 else rng.choice(SENTIMENT))
    return score, said, [t for t in TOPICS if (t in topics) == (rng.random() < 0.9)]


def crowd(seed: int, pages: int, bad: tuple[str, ...] = ("constant", "random"), honest_workers: int = 12
          ) -> pd.DataFrame:
    """One item a page, ``pages`` items: four honest workers an item (drawn from the crowd) and each of ``bad``."""
    rng = random.Random(seed)
    people = {f"h{k}": (rng.uniform(-0.6, 0.6), rng.choice(SENTIMENT)) for k in range(honest_workers)}
    rows = []
    for i in range(pages):
        latent, sentiment = rng.uniform(1.5, 6.5), rng.choice(SENTIMENT)
        topics = [t for t in TOPICS if rng.random() < 0.35]
        for worker in rng.sample(sorted(people), 4) + list(bad):
            if worker == "constant":
                score, said, ticked = "1", SENTIMENT[0], TOPICS[:1]
            elif worker == "random":
                score, said, ticked = str(rng.randint(1, 7)), rng.choice(SENTIMENT), [t for t in TOPICS
                                                                                     if rng.random() < 0.4]
            else:
                score, said, ticked = honest(rng, *people[worker], latent, sentiment, topics)
            rows += [{"assignment_id": f"{worker}-{i}", "worker_id": worker, "image_id": f"r{i}", "field": field,
                      "kind": kind, "answer": answer, "ticks": many}
                     for field, kind, answer, many in (("helpful", "number", score, False),
                                                       ("sentiment", "choice", said, False),
                                                       ("topics", "choice", "|".join(ticked), True))]
    return pd.DataFrame(rows)


def flagged(df: pd.DataFrame) -> pd.DataFrame:
    return run_rules(df, {"item_blind_alpha": 0.01}, ("item_blind",))


@pytest.mark.parametrize("seed", range(5))
def test_a_constant_rater_and_a_random_clicker_are_flagged_from_their_history_and_honest_readers_are_not(
        seed: int) -> None:
    flags = flagged(crowd(seed, pages=40))
    assert set(flags["worker_id"]) == {"constant", "random"}
    detail = flags.set_index("worker_id")["detail"]
    assert "helpful" in detail["random"] and "sentiment" in detail["random"] and "topics" in detail["random"]
    assert (flags["value"].astype(float) <= 0.01).all()  # 1/E: the anytime chance for an honest worker


def test_a_constant_rater_is_flagged_after_a_few_one_item_pages() -> None:
    caught = [set(flagged(crowd(seed, pages=8, bad=("constant",)))["rule"]) for seed in range(10)]
    assert all(rules == {"item_blind"} for rules in caught)
    # three pages are too few to block on, not too few for a person to look
    few = [flagged(crowd(seed, pages=3, bad=("constant",))) for seed in range(10)]
    assert not any("item_blind" in set(f["rule"]) for f in few)
    assert sum(set(f["worker_id"]) == {"constant"} and set(f["rule"]) == {"item_blind_review"} for f in few) >= 8


def test_workers_of_two_or_three_pages_are_flagged_for_review_and_honest_readers_are_not() -> None:
    # E from 4 (review alpha 0.25): a constant rater of 2 pages, in most crowds; never an honest reader here
    flags = {(seed, pages): flagged(crowd(seed, pages=pages)) for seed in range(20) for pages in (2, 3)}
    assert sum("constant" in set(f["worker_id"]) for (_, p), f in flags.items() if p == 2) >= 10
    assert sum("constant" in set(f["worker_id"]) for (_, p), f in flags.items() if p == 3) >= 17
    assert not any(w.startswith("h") for f in flags.values() for w in f["worker_id"])
    assert {r for f in flags.values() for r in f["rule"]} <= {"item_blind_review", "item_blind"}
    strict = run_rules(crowd(0, pages=3), {"item_blind_alpha": 0.01, "item_blind_review_alpha": 0.01}, ("item_blind",))
    assert strict.empty  # no review tier: the flag waits for the block's evidence
    with pytest.raises(ValueError, match="item_blind_review"):
        DecisionPolicy(block_min_flags={"item_blind_review": 1})  # a review flag never blocks


def test_the_lightly_smoothed_prediction_reaches_a_constant_rater_sooner() -> None:
    # E is the mean of two products: the prediction smoothed with two answers' worth of the field's spread (alone,
    # 4 of these 20 constant raters reach 100 after 5 pages) and with a quarter of an answer's
    evidence = [worker_evidence(crowd(seed, pages=5), {}) for seed in range(20)]
    assert sum(e["constant"][0] >= 100 for e in evidence) >= 8
    assert max(x for e in evidence for w, (x, _) in e.items() if w.startswith("h")) < 5  # the honest: far below


def test_a_field_the_crowd_itself_does_not_agree_on_judges_no_one() -> None:
    rng = random.Random(7)
    rows = [{"worker_id": f"w{w}", "image_id": f"i{i}", "field": "taste", "answer": rng.choice(SENTIMENT)}
            for i in range(60) for w in rng.sample(range(10), 5)]
    rows += [{"worker_id": "same", "image_id": f"i{i}", "field": "taste", "answer": "mixed"} for i in range(60)]
    assert worker_evidence(pd.DataFrame(rows), {}) == {}


def test_the_evidence_never_favours_blindness_more_for_a_closer_answer_and_averages_at_most_one() -> None:
    rng = random.Random(3)
    for _ in range(2000):
        q = [rng.random() for _ in range(3)]
        h = [rng.random() + 0.01 for _ in range(3)]
        q, h = [x / sum(q) for x in q], [x / sum(h) for x in h]
        e = monotone_ratios(q, h)
        assert e[0] <= e[1] + 1e-12 and e[1] <= e[2] + 1e-12
        assert sum(ei * hi for ei, hi in zip(e, h, strict=True)) == pytest.approx(1.0, abs=1e-9)
        closer = [h[0] + 0.5 * h[1], 0.5 * h[1] + 0.5 * h[2], 0.5 * h[2]]  # at least as close as h
        assert sum(ei * pi for ei, pi in zip(e, closer, strict=True)) <= 1.0 + 1e-9


def test_the_custom_policy_blocks_on_one_item_blind_flag() -> None:
    assert CUSTOM_POLICY.block_min_flags["item_blind"] == 1


def coded_crowd(items: int = 40) -> pd.DataFrame:
    """A six-class choice coded 0-5 (radio buttons, ``scale`` "choice 6"; classes of a face's expression, say)
    where the crowd's most common answer is the right one but the codes' median sits three classes away:
    ``follower`` gives the right class on every item, ``constant`` gives class 1 whatever the item."""
    rng = random.Random(11)
    split = ["0"] * 6 + ["3", "3", "4", "4", "5", "5", "5"]
    kinds = (split, [str(5 - int(a)) for a in split])
    rows = []
    for i in range(items):
        others = list(kinds[i % 2])
        rng.shuffle(others)
        said = [(f"w{k}", a) for k, a in zip(rng.sample(range(20), 13), others, strict=True)]
        said += [("follower", kinds[i % 2][0]), ("constant", "1")]
        rows += [{"worker_id": w, "image_id": f"i{i}", "field": "expression", "kind": "choice", "answer": a,
                  "ticks": False, "scale": "choice 6"} for w, a in said]
    return pd.DataFrame(rows)


def test_codes_of_a_choice_are_categories_never_a_scale() -> None:
    """Read as a scale, the codes' median is a class few gave and the field judged no one, the constant rater
    included; read as the six classes they are, the constant rater is flagged and the follower is not."""
    crowd_frame = coded_crowd()
    flags = set(flagged(crowd_frame)["worker_id"])
    assert "constant" in flags and "follower" not in flags
    assert [f.shape for f in split_fields(crowd_frame)] == ["choice"]
    assert [f.shape for f in split_fields(crowd_frame.assign(kind="number", scale="0..5"))] == ["scale"]
    assert [f.shape for f in split_fields(crowd_frame.drop(columns=["kind", "scale"]))] == ["choice"]  # undeclared


def test_radio_buttons_shown_as_numbers_are_a_scale_and_codes_behind_words_are_categories() -> None:
    from flows.core.pages.form_spec import form_spec
    from flows.core.pages.mturk_forms import form_fields
    from flows.custom.custom_review import answer_scale

    page = ("<form>" + "".join(f'<label><input type="radio" name="face" value="{k}"> {w}</label>'
                                for k, w in enumerate(("angry", "happy", "sad", "neutral")))
            + "".join(f'<label><input type="radio" name="accuracy" value="{k}"> {k} {w}</label>'
                      for k, w in ((1, "wrong"), (2, "partly right"), (3, "mostly right"), (4, "exactly right")))
            + "</form>")
    scales = {f["name"]: answer_scale(f) for f in form_spec(form_fields(page))["fields"]}
    assert scales == {"face": "choice 4", "accuracy": "1..4"}
