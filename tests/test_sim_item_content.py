"""The simulated crowd answers from the item's content, not from the page (Done-when
line 1: "choices that follow the item's content", "text about the item"). Two pages of our own in
the shapes of public Ground Truth templates: a crowd-classifier whose categories a review's words
decide, and a one-item captioning page whose instructions sit in the item's block beside the image
(honest workers typed them as their caption: the page could not tell them from the item's text).
Before the fix the classifier's answers were drawn at random per item (about 4 of 12 right) and
instruction sentences were approved as captions; on Prolific and the invite links, whose simulated
people saw no other page of the study, they still were (24 of 24 answers, before flows/sim/pages/page_common.py's
OpenedPages)."""

from __future__ import annotations

import csv
import json
import re
from itertools import combinations
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from flows.sim.people.content_choice import content_answers
from flows.sim.people.crowd_model import HONEST_PROFILES

CLASSIFIER = """<crowd-form>
  <crowd-classifier name="tone" categories="['Positive', 'Negative', 'Neutral']" header="How does the review sound?">
    <classification-target>${review}</classification-target>
    <full-instructions header="Tone">Positive: praise. Negative: complaints. Neutral: plain facts.</full-instructions>
    <short-instructions>Pick the tone of the review.</short-instructions>
  </crowd-classifier>
</crowd-form>
"""
REVIEWS = [("Great kettle, I love how quickly it boils.", "Positive"),
           ("The strap broke on the first day, terrible.", "Negative"),
           ("The parcel was delivered on a Tuesday morning by courier.", "Neutral"),
           ("Wonderful service and a perfect fit, thank you.", "Positive"),
           ("Awful smell from the box and the lid was crushed.", "Negative"),
           ("The manual is printed in four languages and has twelve pages.", "Neutral")] * 2
CAPTIONING = """<crowd-form>
  <img src="${photo}" alt="">
  <h3>Write a caption</h3>
  <p>Name the main thing in the picture first and keep to what can be seen.</p>
  <p>Mention colours and how many there are when it matters to the picture.</p>
  <crowd-text-area name="caption" rows="3" required></crowd-text-area>
</crowd-form>
"""
INSTRUCTIONS = ("Name the main thing in the picture first", "Mention colours and how many there are")


def _campaign(tmp_path: Path, name: str, page: str, header: list[str], rows: list[list[str]],
              platform: str = "mturk") -> pd.DataFrame:
    (tmp_path / f"{name}.html").write_text(page, encoding="utf-8")
    assert main(["new", name, "--from", str(tmp_path / f"{name}.html"), "--dir", str(tmp_path)]) == 0
    with (tmp_path / "config" / f"{name}_items.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([header, *rows])
    config = tmp_path / "config" / f"{name}.toml"  # Prolific's hourly minimum costs more than the default budget
    config.write_text(config.read_text(encoding="utf-8").replace('budget = "20.00 USD"', 'budget = "100.00 USD"'),
                      encoding="utf-8")
    assert main(["run", f"config/{name}.toml", "--no-prefect", "--platform", platform]) in (0, 10)
    out = tmp_path / "runs" / name
    honest = {w["worker_id"] for w in json.loads((out / "sim_workers.json").read_text())
              if w["profile"] in HONEST_PROFILES}
    data = pd.read_csv(out / "dataset.csv", keep_default_na=False, dtype=str)
    return data[data["worker_id"].str.removeprefix("invite:").isin(honest)]  # an invitee's id names the link's


def test_a_classifiers_answers_follow_what_each_review_says(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    rows = [[f"r{n:02d}", text] for n, (text, _) in enumerate(REVIEWS)]
    data = _campaign(tmp_path, "tone", CLASSIFIER, ["item_id", "review"], rows)
    truth = {f"r{n:02d}": tone for n, (_, tone) in enumerate(REVIEWS)}
    majority = data.groupby("item_id")["value"].agg(lambda v: v.mode().iloc[0])
    right = sum(majority[i] == truth[i] for i in majority.index)
    assert right >= len(majority) - 2, majority.to_dict()  # about a third right when drawn at random
    items = json.loads((tmp_path / "runs" / "tone" / "sim_items.json").read_text())
    latent = {r["item_id"]: r["answer"] for r in items}
    assert latent == truth  # what the simulator holds true is what the review says


@pytest.mark.parametrize("platform", ["mturk", "prolific", "links"])
def test_honest_captions_are_about_the_photo_not_the_instructions_beside_it(tmp_path: Path, monkeypatch,
                                                                            platform: str) -> None:
    monkeypatch.chdir(tmp_path)
    rows = [[f"c{n:02d}", f"https://example.org/photos/{n}.jpg"] for n in range(8)]
    data = _campaign(tmp_path, "captions", CAPTIONING, ["item_id", "photo"], rows, platform)
    written = data["value"][data["value"].str.strip() != ""]
    assert len(written) >= 12
    echoed = [v for v in written if any(sentence.lower() in v.lower() for sentence in INSTRUCTIONS)]
    assert not echoed, echoed
    # still about the photo: most photos' honest captions share a word the page does not (its bank caption's)
    page_words = set(re.findall(r"[a-z]+", CAPTIONING.lower()))
    words = [{w for w in re.findall(r"[a-z]+", v.lower()) if len(w) > 3} - page_words for v in written]
    by_item: dict[str, list[set[str]]] = {}
    for item, ws in zip(data.loc[written.index, "item_id"], words, strict=True):
        by_item.setdefault(item, []).append(ws)
    agreeing = [i for i, sets in by_item.items() if any(a & b for a, b in combinations(sets, 2))]
    assert len(agreeing) >= len(by_item) // 2, list(written)


def test_content_answers_need_evidence() -> None:
    """No cue, too short to state a fact: the seeded draw stands (a bench's "Review number 5.")."""
    assert content_answers(["Review number 5."], ["negative", "neutral", "positive"]) is None
    assert content_answers(["A wireless mouse"], ["Yes", "No"], "Relevant to someone who searched for: fishing?") \
        == ["No"]
    assert content_answers(["A fishing rod"], ["Yes", "No"], "Relevant to someone who searched for: fishing?") \
        == ["Yes"]
    assert content_answers(["I am so mad at the made-up excuse"], ["Anger", "Sadness"]) == ["Anger"]
    assert content_answers(["Who made this chair and where?"], ["Purchase", "Return", "Other"]) == ["Other"]
