"""mark_agreement (qc/mark_agreement.py): marks on annotation fields that rarely meet the other
workers' on the same items (contrarian spans such as "The" as a person passed every rule)."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from qc.mark_agreement import mark_agreement, marks_of, pair_f1

TEXTS = {"s1": "The Red Cross sent Ana Lima to Porto.", "s2": "Ivo Kranjc sailed from Split to Venice.",
         "s3": "Leo Marsh joined Acme Robotics in Oslo.", "s4": "Mia Holt met Tom Reyes in Lyon."}


def spans(text: str, *marked: tuple[str, str]) -> str:
    return json.dumps({"entities": [{"label": label, "startOffset": text.index(words),
                                     "endOffset": text.index(words) + len(words)} for words, label in marked]})


def honest(item: str) -> str:
    names = {"s1": [("Red Cross", "org"), ("Ana Lima", "person"), ("Porto", "place")],
             "s2": [("Ivo Kranjc", "person"), ("Split", "place"), ("Venice", "place")],
             "s3": [("Leo Marsh", "person"), ("Acme Robotics", "org"), ("Oslo", "place")],
             "s4": [("Mia Holt", "person"), ("Tom Reyes", "person"), ("Lyon", "place")]}[item]
    return spans(TEXTS[item], *names)


def frame(answers: dict[str, dict[str, str]]) -> pd.DataFrame:
    return pd.DataFrame([{"assignment_id": f"{w}-{i}", "worker_id": w, "image_id": i, "field": "names", "answer": a}
                         for w, per in answers.items() for i, a in per.items()])


def test_f1_of_marks_by_hand() -> None:
    a = marks_of(spans(TEXTS["s1"], ("Red Cross", "org"), ("Ana Lima", "person")))
    b = marks_of(spans(TEXTS["s1"], ("Red Cro", "org"), ("Porto", "place")))  # 7 of "Red Cross"'s 9 characters
    assert a is not None and b is not None
    assert pair_f1(a, b, "entities") == pytest.approx(2 * 1 / 4)
    first_word = marks_of(spans(TEXTS["s1"], ("Red", "org")))  # 3 of 9: another mark
    assert first_word is not None and pair_f1(a, first_word, "entities") == 0.0
    wrong_label = marks_of(spans(TEXTS["s1"], ("Red Cross", "person")))
    assert wrong_label is not None and pair_f1(a, wrong_label, "entities") == 0.0
    assert pair_f1([], [], "entities") == 1.0  # both say "nothing to mark"
    # boxes 100x100 at (0,0) and (50,0): intersection 5000, union 15000, IoU 1/3 >= 0.3; at (60,0): 0.25
    box = [("car", 0.0, 0.0, 100.0, 100.0)]
    assert pair_f1(box, [("car", 50.0, 0.0, 100.0, 100.0)], "boundingBoxes") == 1.0
    assert pair_f1(box, [("car", 60.0, 0.0, 100.0, 100.0)], "boundingBoxes") == 0.0
    point = [("eye", 10.0, 10.0, 0.0, 0.0)]
    assert pair_f1(point, [("eye", 30.0, 20.0, 0.0, 0.0)], "keypoints") == 1.0  # 22.4 px apart
    assert pair_f1(point, [("eye", 40.0, 10.0, 0.0, 0.0)], "keypoints") == 0.0


def test_the_element_shapes_are_read_and_other_text_is_not() -> None:
    boxes = '{"boundingBoxes": [{"label": "car", "left": 1, "top": 2, "width": 3, "height": 4}]}'
    assert marks_of(boxes) == [("car", 1.0, 2.0, 3.0, 4.0)]
    assert marks_of('{"keypoints": [{"label": "eye", "x": 5, "y": 6}]}') == [("eye", 5.0, 6.0, 0.0, 0.0)]
    for other in ("a caption", '{"entities": [{"label": "x"}]}', "[1, 2]", '{"text": ""}', "{" * 5000):
        assert marks_of(other) is None


def test_a_contrarian_and_a_worker_who_marks_nothing_are_flagged_and_the_careful_are_not() -> None:
    items = sorted(TEXTS)
    answers = {f"h{n}": {i: honest(i) for i in items} for n in range(4)}
    answers["h3"]["s2"] = spans(TEXTS["s2"], ("Ivo Kranjc", "person"), ("Split", "place"))  # missed one name
    answers["contra"] = {i: spans(TEXTS[i], (TEXTS[i].split()[0], "person")) for i in items}
    answers["nothing"] = {i: '{"entities": []}' for i in items}
    flags = mark_agreement(frame(answers), {})
    assert flags.groupby("worker_id")["image_id"].apply(set).to_dict() == {"contra": set(items), "nothing": set(items)}
    assert set(flags["rule"]) == {"mark_agreement"} and (flags["value"] < 0.35).all()
    assert set(flags["assignment_id"]) == {f"{w}-{i}" for w in ("contra", "nothing") for i in items}
    assert flags["detail"].str.contains("names: marks met the other workers'").all()


def test_no_answer_is_flagged_where_nobody_agrees_or_with_one_other_worker() -> None:
    items = sorted(TEXTS)
    scattered = {f"w{n}": {i: spans(TEXTS[i], (TEXTS[i].split()[n], "person")) for i in items} for n in range(5)}
    assert mark_agreement(frame(scattered), {}).empty  # a page at fault: no one is evidence against another
    pair = {"h0": {i: honest(i) for i in items}, "contra": {i: spans(TEXTS[i], ("The", "person")) for i in items[:1]}}
    assert mark_agreement(frame(pair), {}).empty  # two workers: which of them is off cannot be told


def test_an_entity_campaign_on_the_simulator_blocks_contrarians_and_no_honest_worker(tmp_path: Path, monkeypatch,
                                                                                     capsys) -> None:
    """The documented entity page imported as a user would, 40 sentences x 5 workers in 3 batches: the
    simulated contrarians (the sentence's first word as a name) are flagged on most of their items and
    blocked once the evidence is there; no honest worker is blocked (a fifth of honest answers at most are
    flagged: the hurried ones)."""
    page = Path(__file__).parent / "pages_wild" / "entity_annotation.liquid.html"
    assert main(["new", "ner", "--from", str(page), "--dir", str(tmp_path)]) == 0
    rng = random.Random(3)
    people = [f"{a} {b}" for a in ("Nadia", "Leo", "Ivo", "Mia", "Omar") for b in ("Petrova", "Marsh", "Holt")]
    shapes = ["{p} joined Acme Robotics in {c}.", "{p} sailed from {c} to Venice.", "The Orchard Institute hired {p}.",
              "{p} moved to {c} last year."]
    with (tmp_path / "config" / "ner_items.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["item_id", "sentence"]] + [
            [f"s{n}", rng.choice(shapes).format(p=rng.choice(people), c=rng.choice(["Porto", "Oslo", "Lyon"]))]
            for n in range(40)])
    config = tmp_path / "config" / "ner.toml"
    text = config.read_text()
    for old, new in (("assignments_per_image = 3 ", "assignments_per_image = 5 "), ("batches = 1 ", "batches = 3 ")):
        assert old in text
        text = text.replace(old, new)
    config.write_text(text.replace('budget = "', 'budget = "1', 1))  # ten times the page's budget
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/ner.toml", "--no-prefect"]) == 0, capsys.readouterr().err
    out = tmp_path / "runs" / "ner"
    truth = pd.DataFrame(json.loads((out / "sim_workers.json").read_text())).set_index("worker_id")["profile"]
    flags = pd.read_csv(out / "flags.csv", keep_default_na=False, dtype=str)
    flagged = flags[flags["rule"] == "mark_agreement"].groupby("worker_id")["image_id"].nunique()
    responses = pd.read_csv(out / "responses.csv", keep_default_na=False, dtype=str)
    answered = responses.groupby("worker_id")["item_id"].nunique()
    share = flagged.reindex(answered.index, fill_value=0) / answered
    blocked = set(pd.read_csv(out / "blocked_workers.csv", keep_default_na=False, dtype=str)["worker_id"])
    contrarians = [w for w in answered.index if truth[w] == "contrarian" and answered[w] >= 5]
    honest = [w for w in answered.index if truth[w] in ("diligent", "typo_prone")]
    assert contrarians and len(honest) >= 10
    # most of a contrarian's marks meet nobody's (a sentence opening with a person's name is half right); one item a
    # page, a worker's rate blocks from block_min_evidence (5) flagged pages on
    assert all(share[w] >= 0.6 for w in contrarians)
    assert {w for w in contrarians if flagged.get(w, 0) >= 5} <= blocked and set(contrarians) & blocked
    honest_flagged = flagged.reindex(honest, fill_value=0).sum() / answered[honest].sum()
    assert not blocked & set(honest) and honest_flagged < 0.2, honest_flagged  # their hurried answers (skill)
