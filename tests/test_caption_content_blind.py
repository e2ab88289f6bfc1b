"""A caption rehearsal's outputs say when its captions are content-blind: on the in-process
simulator, images its demo crowd's VizWiz bank does not hold (real Flickr8k ids from ../shared/data) get a
made-up scene, and report.html and the end-of-run summary say on how many items; the demo's own VizWiz
images, which the bank holds, get no such line."""

from __future__ import annotations

import html
from pathlib import Path

from flows.campaigns.summary import summarize
from flows.driver.campaign_run import run_campaign
from tests.small_configs import small_vizwiz
from tests.test_sim_unseen_captions import flickr_ids

SAID = "simulated answers for caption are content-blind: accuracy and agreement figures from this rehearsal say " \
       "nothing about it"


def rehearse(tmp_path: Path, rows: list[str] | None = None) -> Path:
    """The demo caption config on 3 images (``rows``: its own, else the demo's first 3), one batch, on the
    in-process simulator; the run folder."""
    config = small_vizwiz(tmp_path, items=3, edits={"batches = 5 ": "batches = 1 "})
    if rows is not None:
        (tmp_path / "items.csv").write_text("image_id,file_name,url\n" + "".join(f"{r}\n" for r in rows))
    run_campaign(config, db_path=tmp_path / "ledger.db", out_root=tmp_path / "runs", seed=3,
                 progress=lambda _line: None)
    return tmp_path / "runs" / "vizwiz_captions"


def test_flickr8k_images_on_the_vizwiz_crowd_are_said_content_blind(tmp_path: Path, shared_data: Path) -> None:
    ids = flickr_ids(shared_data, 3)
    out = rehearse(tmp_path, [f"{i},{i}.jpg,https://flickr8k-images.example.org/{i}.jpg" for i in ids])
    line = f"{SAID} (3 of 3 items: the simulator's caption bank (vizwiz_demo.toml) does not hold their images"
    assert line in summarize(out)  # what `hitflow run` prints at its end
    assert line in html.unescape((out / "report.html").read_text(encoding="utf-8"))


def test_the_demos_vizwiz_images_get_no_such_line(tmp_path: Path) -> None:
    out = rehearse(tmp_path)
    assert "captions:" in summarize(out)  # the summary is there, without the line
    assert "content-blind" not in summarize(out)
    assert "content-blind" not in (out / "report.html").read_text(encoding="utf-8")
