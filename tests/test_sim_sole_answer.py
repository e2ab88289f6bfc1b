"""A page whose only answer is one optional box (a captioning page that marks nothing ``required``,
as third-party crowd templates often do) is answered by the honest simulated crowd: nobody takes a
HIT to hand back nothing, so skipping that box at the optional-comment rate emptied most of a batch,
which ``empty_answer`` then held (exit 10) though the page is fine."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from flows.cli.main import main

PAGE = """<script src="https://assets.crowd.aws/crowd-html-elements.js"></script>
<crowd-form>
  <p>Look at the photo and say in one sentence what it shows.</p>
  <img src="${photo}" alt="">
  <p>${note}</p>
  <crowd-text-area name="description" rows="3"></crowd-text-area>
</crowd-form>
"""
NOTES = ["A red bus waiting at a stop in the rain.", "Two dogs running along a sandy beach.",
         "A bowl of oranges on a wooden kitchen table.", "A cyclist crossing a bridge at sunset.",
         "Children flying a kite in a green park.", "A tabby cat asleep on a windowsill."]


def test_an_items_only_optional_box_is_answered_and_the_batch_not_held(tmp_path: Path, monkeypatch) -> None:
    page = tmp_path / "describe_page.html"
    page.write_text(PAGE, encoding="utf-8")
    assert main(["new", "sole", "--from", str(page), "--dir", str(tmp_path)]) == 0
    with (tmp_path / "config" / "sole_items.csv").open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["item_id", "photo", "note"])
        writer.writerows([[f"p-{n}", f"https://example.org/p/{n}.jpg", note] for n, note in enumerate(NOTES)])
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/sole.toml", "--no-prefect"]) == 0  # 10 (held by empty_answer) before
    data = pd.read_csv(tmp_path / "runs" / "sole" / "dataset.csv", keep_default_na=False, dtype=str)
    assert set(data["field"]) == {"description"}
    approved = data[data["decision"] == "approve"]["value"]
    assert len(approved) >= len(NOTES) * 3 - 3  # at most a speeder's empty hand-backs missing
    assert (approved.str.strip() != "").all(), approved.tolist()
