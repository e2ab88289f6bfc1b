"""``item_blind`` (qc/agreement_odds.py) at three workers an item: where the two others split and one of them agrees
with the crowd less often than not, the other settles the item's consensus, and such items are judged against the
crowd's own agreement on them. Crowds built here: a three-way choice, one item a page, honest readers (some items
truly ambiguous, their answers split), a few random clickers among the others, and a worker who gives one answer
to everything."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from qc import agreement_odds
from qc.agreement_odds import Field, consensus, worker_evidence

OPTIONS = ("better", "worse", "same")


def _honest(rng: random.Random, truth: str, ambiguous: bool) -> str:
    if ambiguous:  # no right answer: honest readers split between two
        return rng.choice((truth, "same"))
    return truth if rng.random() < 0.9 else rng.choice(OPTIONS)


def crowd(seed: int, pages: int, items: int = 30) -> pd.DataFrame:
    """``items`` items, three workers each: the constant worker on the first ``pages``, the rest drawn from twelve
    honest readers and two random clickers; one item in seven ambiguous."""
    rng = random.Random(seed)
    people = [f"h{k}" for k in range(12)] + ["r0", "r1"]
    rows = []
    for i in range(items):
        truth, ambiguous = rng.choice(OPTIONS[:2]), rng.random() < 1 / 7
        for worker in rng.sample(people, 2 if i < pages else 3) + (["constant"] if i < pages else []):
            answer = (OPTIONS[0] if worker == "constant" else rng.choice(OPTIONS) if worker.startswith("r")
                      else _honest(rng, truth, ambiguous))
            rows.append({"worker_id": worker, "image_id": f"t{i}", "field": "direction", "answer": answer})
    return pd.DataFrame(rows)


def test_a_split_goes_to_the_more_reliable_giver_and_a_majority_stands() -> None:
    f = Field("direction", [], "choice")
    assert consensus(f, ["better", "worse"]) is None
    assert consensus(f, ["better", "worse"], [0.9, 0.4]) == "better"
    assert consensus(f, ["better", "worse"], [0.6, 0.6]) is None  # nothing to tell them apart
    assert consensus(f, ["worse", "worse", "better"], [0.2, 0.2, 0.95]) == "worse"


def _evidence(seeds: int, pages: int) -> list[dict[str, float]]:
    return [{w: e for w, (e, _) in worker_evidence(crowd(seed, pages), {}).items()} for seed in range(seeds)]


@pytest.mark.parametrize("pages", [3, 4])
def test_settled_splits_notice_more_constant_raters_and_few_honest_readers(pages: int,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    review = 1 / agreement_odds.REVIEW_ALPHA
    settled = _evidence(40, pages)
    monkeypatch.setattr(agreement_odds, "SETTLED_LEAST", 10 ** 9)  # the splits left unjudged, as before
    plain = _evidence(40, pages)
    assert sum(e.get("constant", 0) >= review for e in settled) > sum(e.get("constant", 0) >= review for e in plain)
    honest = [x for e in settled for w, x in e.items() if w.startswith("h")]
    assert len(honest) > 400
    assert sum(x >= review for x in honest) <= 0.02 * len(honest)  # a look for a person, stated at most 25%
    assert max(honest) < 1 / 0.01  # never a block


def test_the_flag_counts_settled_items_among_those_judged() -> None:
    df = crowd(3, pages=4)
    counts = worker_evidence(df, {})["constant"][1]["direction"]
    on = df[df["image_id"].isin(set(df.loc[df["worker_id"] == "constant", "image_id"]))]
    others = on[on["worker_id"] != "constant"].groupby("image_id")["answer"].nunique()
    assert counts[1] == 4 or counts[1] > int((others == 1).sum())  # splits judged beside the agreed items
