"""Every item with a known answer keeps it in the rehearsal: on a page whose question follows the item's own
text, an item whose text said "headphones" had its question read as one about the worker's listening device
(flows/core/pages/asks_worker.py), so workers answered it about themselves, no latent answer was kept, and
sim_items.json lacked exactly those items while the summary counted only the others ("61 of 61")."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

SENTIMENT = """<p>${review}</p>
<p>What is the sentiment of this review?</p>
<label><input type="radio" name="sentiment" value="Positive" required> Positive</label>
<label><input type="radio" name="sentiment" value="Negative"> Negative</label>
<label><input type="radio" name="sentiment" value="Neutral"> Neutral</label>
"""
REVIEWS = {"r00": ("These headphones sound great and the battery lasts all week.", "Positive"),
           "r01": ("The headphones broke after two days, a waste of money.", "Negative"),
           "r02": ("Great kettle, I love how quickly it boils.", "Positive"),
           "r03": ("The strap broke on the first day, terrible.", "Negative"),
           "r04": ("The parcel was delivered on a Tuesday morning by courier.", "Neutral"),
           "r05": ("I use the headphones on the train; they came in a grey box.", "Neutral")}


def test_every_item_with_a_known_answer_is_in_sim_items_and_the_summary_counts_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "sentiment.html").write_text(SENTIMENT, encoding="utf-8")
    assert main(["new", "sentiment", "--from", "sentiment.html", "--dir", str(tmp_path)]) == 0
    with (tmp_path / "config" / "sentiment_items.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["item_id", "review", "gold"], *([i, r, g] for i, (r, g) in REVIEWS.items())])
    config = tmp_path / "config" / "sentiment.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("\nitems = ", '\ntruth = {sentiment = "gold"}\nitems = ', 1), encoding="utf-8")
    capsys.readouterr()
    assert main(["run", "config/sentiment.toml", "--no-prefect"]) in (0, 10)
    said = capsys.readouterr().out
    kept = json.loads((tmp_path / "runs" / "sentiment" / "sim_items.json").read_text(encoding="utf-8"))
    assert {(r["item_id"], r["answer"], r["source"]) for r in kept} == {(i, g, "known")
                                                                        for i, (_, g) in REVIEWS.items()}
    assert f"sentiment: known answers on {len(REVIEWS)} of {len(REVIEWS)} items" in said


def test_the_summary_counts_answered_items_that_sim_items_lacks() -> None:
    from flows.custom.truth_source import report_lines

    rows = [{"item_id": i, "field": "sentiment", "answer": "Positive", "source": "known"} for i in ("a", "b")]
    (line,) = report_lines(rows, {"sentiment": 3})
    assert line.startswith("sentiment: known answers on 2 of 3 items") and line.endswith("none kept on 1")
    assert report_lines(rows, {"sentiment": 2}) == report_lines(rows)  # nothing missing: as before
