"""The sixth security round: every QC rule's cost is bounded in the size of what a worker can send. Two
accounts posting ~8,000 keypoints each on one item made ``mark_agreement`` take 108.7 s (every pair
of marks compared in Python); a checkbox answer of millions of ticks was checked against the options
list once per tick. Each test gives the rule the largest answer the value bounds allow (a 4 Mi-character
field) or the largest it compares (``MAX_MARKS`` marks each) and counts the comparisons made, so the
test's cost is small and its assertion does not hang on a timer. The indexed comparison is checked
against an independent plain greedy written here, on inputs small enough for it."""

from __future__ import annotations

import json
import random
from typing import Any

import pandas as pd
import pytest

import qc.mark_agreement as ma
from qc import worker_values as wv
from qc.form_constraints import check_field
from qc.judgement_spec import check_answers
from qc.worker_values import MAX_MARKS, MAX_TEXT_CHARS

KINDS = ("entities", "boundingBoxes", "keypoints")


def plain_meet(a: tuple[Any, ...], b: tuple[Any, ...], kind: str) -> bool:
    """The rule's definition of two marks meeting, written out again (module docstring)."""
    if a[0] != b[0]:
        return False
    if kind == "entities":
        common = min(a[2], b[2]) - max(a[1], b[1])
        return common > 0 and common / (max(a[2], b[2]) - min(a[1], b[1])) >= 0.5
    if kind == "keypoints":
        return ((a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2) ** 0.5 <= 24.0
    overlap_x = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    overlap_y = max(0.0, min(a[2] + a[4], b[2] + b[4]) - max(a[2], b[2]))
    union = a[3] * a[4] + b[3] * b[4] - overlap_x * overlap_y
    return union > 0 and overlap_x * overlap_y / union >= 0.3


def plain_f1(mine: list[Any], theirs: list[Any], kind: str) -> float:
    if not mine and not theirs:
        return 1.0
    taken: set[int] = set()
    for m in mine:
        for i, t in enumerate(theirs):
            if i not in taken and plain_meet(m, t, kind):
                taken.add(i)
                break
    return 2 * len(taken) / (len(mine) + len(theirs))


def random_marks(rng: random.Random, n: int, kind: str, spread: float) -> list[tuple[str, float, float, float, float]]:
    out = []
    for _ in range(n):
        label = rng.choice("ab")
        x, y = rng.uniform(0, spread), rng.uniform(0, spread)
        if kind == "entities":
            out.append((label, float(int(x)), float(int(x) + rng.randint(1, 12)), 0.0, 0.0))
        elif kind == "boundingBoxes":
            out.append((label, x, y, rng.uniform(1, 60), rng.uniform(1, 60)))
        else:
            out.append((label, x, y, 0.0, 0.0))
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_the_indexed_comparison_equals_the_plain_greedy(kind: str) -> None:
    rng = random.Random(68)
    for n, m, spread in ((3, 4, 60), (30, 30, 200), (45, 60, 120), (120, 90, 400), (0, 5, 50), (80, 0, 50)):
        mine, theirs = random_marks(rng, n, kind, spread), random_marks(rng, m, kind, spread)
        assert ma.pair_f1(mine, theirs, kind) == pytest.approx(plain_f1(mine, theirs, kind), abs=1e-12)
    assert ma.SMALL_PAIRS < 45 * 60 and ma.SMALL_PAIRS >= 3 * 4  # both ways of comparing were exercised


def plain_flags(frame: pd.DataFrame, below: float = 0.35) -> set[tuple[str, str]]:
    """(worker, item) flagged, from the plain greedy and every pair's score written out."""
    out = set()
    for item, rows in frame.groupby("image_id"):
        marks = {r.worker_id: ma.marks_of(r.answer) for r in rows.itertuples()}
        if len(marks) < 3:
            continue
        f1 = {(a, b): plain_f1(marks[a], marks[b], "keypoints") for a in marks for b in marks if a < b}
        for w in marks:
            own = [v for pair, v in f1.items() if w in pair]
            rest = [v for pair, v in f1.items() if w not in pair]
            if sum(own) / len(own) < below and sum(own) / len(own) < sum(rest) / len(rest) / 2:
                out.add((w, str(item)))
    return out


def points_answer(points: list[tuple[str, float, float]]) -> str:
    return json.dumps({"keypoints": [{"label": label, "x": x, "y": y} for label, x, y in points]})


def test_flags_equal_the_plain_computation_on_small_items() -> None:
    rng = random.Random(7)
    rows = []
    for item in range(12):
        truth = [(rng.choice("ab"), rng.uniform(0, 300), rng.uniform(0, 300)) for _ in range(rng.randint(1, 40))]
        for w in range(5):
            noise = 3 if w < 3 else 60  # two of five workers mark far off
            pts = [(label, x + rng.gauss(0, noise), y + rng.gauss(0, noise)) for label, x, y in truth]
            rows.append({"assignment_id": f"w{w}-{item}", "worker_id": f"w{w}", "image_id": f"i{item}",
                         "field": "pts", "answer": points_answer(pts)})
    frame = pd.DataFrame(rows)
    flags = ma.mark_agreement(frame, {})
    expected = plain_flags(frame)
    assert expected and set(zip(flags["worker_id"], flags["image_id"], strict=True)) == expected


def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Every comparison of two marks the rule makes, counted where it is made."""
    count = {"pairs": 0}
    one, many = ma._meet, ma.meets

    def meet(a: Any, b: Any, kind: str) -> bool:
        count["pairs"] += 1
        return one(a, b, kind)

    def rows(m: Any, shapes: Any, kind: str) -> Any:
        count["pairs"] += len(shapes)
        return many(m, shapes, kind)

    monkeypatch.setattr(ma, "_meet", meet)
    monkeypatch.setattr(ma, "meets", rows)
    return count


@pytest.mark.parametrize("dense", [True, False])
def test_three_answers_of_the_most_marks_compared_cost_at_most_that_squared(monkeypatch: pytest.MonkeyPatch,
                                                                            dense: bool) -> None:
    """All on one spot (every mark meets every other) or spread 100 px apart (none meets another): the
    comparisons stay within three pairs of MAX_MARKS x MAX_MARKS."""
    count = counted(monkeypatch)
    rows = []
    for w in range(3):
        pts = [("eye", 5.0, 5.0) if dense else ("eye", 100.0 * i + 50 * w, 100.0 * w) for i in range(MAX_MARKS)]
        rows.append({"assignment_id": f"a{w}", "worker_id": f"w{w}", "image_id": "i", "field": "pts",
                     "answer": points_answer(pts)})
    flags = ma.mark_agreement(pd.DataFrame(rows), {})
    assert flags.empty  # all agree (dense) or nobody agrees with anybody: no one is evidence against another
    assert 0 < count["pairs"] <= 3 * MAX_MARKS**2
    assert ma.pair_f1(ma.marks_of(rows[0]["answer"]), ma.marks_of(rows[1]["answer"]), "keypoints") == (
        1.0 if dense else 0.0)


def test_the_largest_answer_the_bounds_allow_is_not_compared_and_is_malformed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two accounts posting the most keypoints one answer can hold (10,000 keys in one JSON text: 3,333
    keypoints of three keys) each on an item three others marked: the rule compares none of their marks,
    and the element's check calls each answer malformed with why. A 4 Mi-character list is past the key
    bound: not read at all."""
    most = points_answer([("eye", 5.0, 5.0)] * ((wv.MAX_KEYS - 1) // 3))
    assert wv.read_json(most) is not None and len(ma_marks(most)) > 3 * MAX_MARKS
    mark = '{"label":"eye","x":5,"y":5},'
    huge = '{"keypoints":[' + mark * ((MAX_TEXT_CHARS - 30) // len(mark)) + '{"label":"eye","x":5,"y":5}]}'
    assert len(huge) <= MAX_TEXT_CHARS and huge.count('"label"') > 100 * MAX_MARKS
    count = counted(monkeypatch)
    honest = points_answer([("eye", 5.0, 5.0), ("nose", 40.0, 40.0)])
    for big in (most, huge):
        rows = [{"assignment_id": f"a{w}", "worker_id": f"w{w}", "image_id": "i", "field": "pts",
                 "answer": big if w < 2 else honest} for w in range(5)]
        assert ma.marks_of(big) is None
        assert ma.mark_agreement(pd.DataFrame(rows), {}).empty
    assert count["pairs"] <= 2 * 3 * 2 * 2  # the three honest answers' two marks each, nothing of the big ones
    # max_marks: drawn by hitflow's widget, which refuses more (tests/test_mark_cap.py); else held, not rejected
    field = {"type": "annotations", "name": "pts", "input": "crowd-keypoint", "options": ["eye", "nose"],
             "max_marks": MAX_MARKS}
    assert check_field(field, most) == "too_many_marks" and check_field(field, huge) == "malformed"
    assert check_field({**field, "max_marks": None}, most) == "marks_past_cap"
    at_the_bound = points_answer([("eye", 1.0, 1.0)] * MAX_MARKS)
    assert check_field(field, at_the_bound) == "" and ma.marks_of(at_the_bound) is not None


def ma_marks(answer: str) -> list[Any]:
    return list(json.loads(answer)["keypoints"])


class CountingOptions(list[str]):
    """A field's options that count each time a tick is looked up in them one by one."""

    looked_up = 0

    def __contains__(self, item: object) -> bool:
        CountingOptions.looked_up += 1
        return super().__contains__(item)


def test_a_checkbox_answer_of_millions_of_ticks_is_checked_in_one_pass() -> None:
    ticks = "|".join(["z"] * ((MAX_TEXT_CHARS + 1) // 2))  # 2 Mi ticks of the last option: all valid options
    options = CountingOptions([f"o{n}" for n in range(200)] + ["z"])
    CountingOptions.looked_up = 0
    assert check_field({"type": "many", "name": "tags", "options": options}, ticks) == "not_an_option"  # repeats
    question = {"type": "many", "name": "tags", "options": options}
    assert check_answers({"questions": [question]}, {"tags": ticks}) == []  # judgement pages: each an option
    assert CountingOptions.looked_up <= 2 * len(options)


def test_the_tfidf_and_peers_taken_in_parts_equal_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sixth security round takes the batch's tokens, weights and same-image pairs a part at a time: with
    parts of 7 texts (several per image, images cut nowhere) every number equals the one-part result."""
    import numpy as np

    from qc import peer_match as pm
    from qc import text_similarity as ts

    rng = random.Random(5)
    vocabulary = ["a", "dog", "cat", "on", "the", "mat", "red", "car", "blue", "sky", "man", "woman", "bench",
                  "café", "ünïcode"]
    texts = tuple(" ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 7))) for _ in range(300))
    images = np.array([f"i{rng.randrange(40)}" for _ in texts], dtype=object)
    authors = np.array([f"w{rng.randrange(25)}" for _ in texts], dtype=object)

    def fitted() -> tuple[Any, ...]:
        fit = ts.fit_vectors(texts)
        assert fit is not None
        return fit, list(fit.vocabulary), fit.idf, pm.best_peers(fit, images, authors)

    whole = fitted()
    monkeypatch.setattr(ts, "TOKEN_PART", 7)
    monkeypatch.setattr(pm, "PART_ROWS", 7)
    parts = fitted()
    for k in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(whole[0], k), getattr(parts[0], k))
    assert whole[1] == parts[1] and np.array_equal(whole[2], parts[2])
    assert all(np.array_equal(a, b) for a, b in zip(whole[3], parts[3], strict=True))
    assert (whole[3][1] >= 0).sum() > 200  # most texts had a peer: the pairs were exercised
