"""The caption task on images the simulator's caption bank does not hold ("Flickr8k ids get
VizWiz captions of other images"): honest workers describe a declared made-up scene there, never
another image's real captions, and the dry run says simulated captions for them are content-blind.
Real Flickr8k ids from ../shared/data (flickr8k-text/Flickr_8k.testImages.txt) against the demo
crowd's VizWiz bank."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.sim.people.captions import write_caption
from flows.sim.people.crowd import load_bank, load_crowd
from flows.sim.people.crowd_model import PROFILE_DEFAULTS, Worker
from flows.sim.people.unseen_images import blind_descriptions
from flows.sim.service.server import DEFAULT_CROWD
from qc.submit_rules import SubmitRules

ROOT = Path(__file__).resolve().parents[1]
RULES = SubmitRules(min_words=0, one_sentence=True, banned_prefixes=(), max_chars=100, required=True,
                    canned_text="")


def flickr_ids(shared: Path, n: int) -> list[str]:
    """The first ``n`` images of Flickr8k's test split, as the bank keys them (file name without .jpg)."""
    names = (shared / "flickr8k-text" / "Flickr_8k.testImages.txt").read_text(encoding="utf-8").split()
    return [name.removesuffix(".jpg") for name in names[:n]]


def grams(text: str) -> set[tuple[str, ...]]:
    """Runs of five words: "a photo of a" is anyone's, five words in a row are a caption's own."""
    w = re.findall(r"[a-z']+", text.lower())
    return {tuple(w[k:k + 5]) for k in range(len(w) - 4)}


def honest(n: int) -> Worker:
    return Worker(f"WD{n}", "diligent", dict(PROFILE_DEFAULTS["diligent"]), 1000, 99, skill=0.9)


def test_a_flickr8k_image_the_vizwiz_bank_lacks_gets_no_other_images_caption(shared_data: Path) -> None:
    ids = flickr_ids(shared_data, 8)
    _, bank = load_crowd(DEFAULT_CROWD)
    assert not set(ids) & set(bank)  # the demo crowd's bank is VizWiz's: it holds none of them
    bank_grams = set().union(*(grams(c) for e in bank.values() for c in e.captions))
    workers = [honest(n) for n in range(5)]
    texts = {i: [write_caption(w, i, bank, RULES, random.Random(n)) for n, w in enumerate(workers)] for i in ids}
    for item, written in texts.items():
        scene = set(re.findall(r"[a-z]+", " ".join(blind_descriptions(item)).lower()))
        assert not any(grams(t) & bank_grams for t in written), written  # no VizWiz caption, whole or in part
        assert all(len(set(re.findall(r"[a-z]+", t.lower())) & scene) >= 3 for t in written), written
    firsts = {written[0] for written in texts.values()}
    assert len(firsts) == len(ids)  # another item, another scene: no text repeats across items


def test_the_flickr8k_bank_still_gives_each_image_its_own_captions(shared_data: Path) -> None:
    ids = flickr_ids(shared_data, 4)
    bank = load_bank(shared_data / "flickr8k-text" / "Flickr8k.token.txt")
    for item in ids:
        own = set().union(*(grams(c) for c in bank[item].captions))
        others = set().union(*(grams(c) for k in ids if k != item for c in bank[k].captions)) - own
        text = write_caption(honest(0), item, bank, RULES, random.Random(1))
        assert grams(text) & own and not grams(text) & others, text


def dry_run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    main(["run", str(ROOT / "config" / "flickr8k_captions.toml"), "--dry-run", *args])
    return capsys.readouterr().out


def test_the_dry_run_says_captions_of_images_the_bank_lacks_are_content_blind(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, shared_data: Path) -> None:
    out = dry_run(capsys, "--crowd", str(DEFAULT_CROWD))  # the VizWiz crowd on Flickr8k's images
    line = next(line for line in out.splitlines() if "content-blind" in line)
    assert line.startswith("simulated answers for caption are content-blind on 50 of 50 items: ")
    assert "accuracy and agreement figures from this rehearsal say nothing about it" in line
    assert "vizwiz_demo.toml" in line  # which crowd's bank, so the user knows what to change
    monkeypatch.setenv("HITFLOW_ALLOW_OUTSIDE_PATHS", "1")  # the Flickr8k crowd reads its bank from ../shared/data
    assert "content-blind" not in dry_run(capsys)  # its own crowd holds every image
    assert "content-blind" not in dry_run(capsys, "--target", "mturk", "--endpoint-url", "https://example.org")


def photos_project(tmp_path: Path, ids: list[str]) -> Path:
    """The starter photo page (a description box and a choice per image) on the given image ids."""
    from flows.custom.scaffold import scaffold

    scaffold("photos", tmp_path)
    items = tmp_path / "config" / "photos_items.csv"
    items.write_text("item_id,image_url,note\n" + "".join(f"{i},https://example.org/img/{i}.jpg,\n" for i in ids))
    return tmp_path / "config" / "photos.toml"


def test_a_custom_pages_dry_run_says_its_text_on_images_the_bank_lacks_is_content_blind(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], shared_data: Path) -> None:
    config = photos_project(tmp_path / "flickr", flickr_ids(shared_data, 3))
    main(["run", str(config), "--dry-run"])
    line = next(line for line in capsys.readouterr().out.splitlines() if "are content-blind on" in line)
    assert line.startswith("simulated answers for description are content-blind on 3 of the first page's 3 items")
    _, bank = load_crowd(DEFAULT_CROWD)
    vizwiz = sorted(k for k, e in bank.items() if e.captions)[:3]  # images the demo crowd's bank holds
    main(["run", str(photos_project(tmp_path / "vizwiz", vizwiz)), "--dry-run"])
    assert "are content-blind on" not in capsys.readouterr().out
