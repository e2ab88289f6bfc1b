"""Image items the caption bank does not hold: honest simulated workers never write
another image's caption about them, and the rehearsal says their text is content-blind."""

from __future__ import annotations

import random

from flows.core.pages.mturk_forms import form_fields
from flows.custom.truth_source import report_lines
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.people.crowd_model import PROFILE_DEFAULTS, BankEntry, Worker
from flows.sim.people.latent_choices import item_truth
from flows.sim.people.unseen_images import BLIND_TEXT, blind_descriptions

# a caption bank of one VizWiz image, as config/crowds/*.toml load it
BANK = {"VizWiz_val_00000001": BankEntry(["A lighthouse on a cliff above a stormy sea at dusk.",
                                          "A white lighthouse standing on rocks by the sea."], 0)}
PAGE = """<form action="/submit"><p>Describe each photo for someone who cannot see it.</p>{items}
<input type="submit" value="Send"></form>"""
ITEM = """<section><img src="https://images.example.org/{item}" alt="photo">
<input type="hidden" name="image_id_{i}" value="{item}">
<textarea name="description_{i}" required minlength="20" maxlength="200"></textarea>
<input type="radio" name="has_text_{i}" value="yes" required><input type="radio" name="has_text_{i}" value="no">
</section>"""
FLICKR = ["1000268201_693b08cb0e.jpg", "1001773457_577c3a7d70.jpg", "1002674143_1b742ab4b8.jpg"]


def page(items: list[str]) -> str:
    return PAGE.format(items="".join(ITEM.format(i=i, item=item) for i, item in enumerate(items)))


def worker(n: int) -> Worker:
    return Worker(f"WD{n}", "diligent", dict(PROFILE_DEFAULTS["diligent"]), 1000, 99, skill=0.9)


def fill(w: Worker, html: str, seed: int = 0) -> dict[str, str]:
    return fill_form(w, form_fields(html), page_rules(html), 0, 100, BANK, random.Random(seed), html=html)


def words(text: str) -> set[str]:
    return {t.strip(".,").lower() for t in text.split() if len(t) > 3}


def test_an_image_the_bank_does_not_hold_gets_no_other_images_caption() -> None:
    html = page(FLICKR)
    bank_words = {w for c in BANK["VizWiz_val_00000001"].captions for w in words(c)}
    for n in range(6):
        values = fill(worker(n), html, seed=n)
        for i in range(len(FLICKR)):
            text = values[f"description_{i}"]
            assert text and not words(text) & bank_words, text  # not a word of the bank's captions


def test_its_workers_agree_on_one_item_and_differ_between_items() -> None:
    html = page(FLICKR)
    texts = [fill(worker(n), html, seed=n) for n in range(4)]
    scenes = [set().union(*(words(d) for d in blind_descriptions(item))) for item in FLICKR]
    for i, scene in enumerate(scenes):
        assert all(words(t[f"description_{i}"]) & scene for t in texts)  # about the item's own made-up scene
    assert all(len({t[f"description_{i}"] for i in range(len(FLICKR))}) == len(FLICKR) for t in texts)  # no repeat


def test_the_report_says_the_text_is_content_blind() -> None:
    workers = [worker(n) for n in range(2)]
    for n, w in enumerate(workers):
        fill(w, page(FLICKR), seed=n)
    rows = [r for r in item_truth(workers) if r["source"] == BLIND_TEXT]
    assert {(r["item_id"], r["field"]) for r in rows} == {(item, "description") for item in FLICKR}
    lines = report_lines(item_truth(workers))
    assert any(line.startswith("simulated text for description is content-blind: ") and "3 of its items" in line
               for line in lines), lines


def test_a_bank_image_and_a_generated_item_keep_their_captions() -> None:
    values = fill(worker(0), page(["VizWiz_val_00000001", "VizWizSynth_00000007"]))
    assert "lighthouse" in values["description_0"].lower()  # the bank's own image
    assert "lighthouse" in values["description_1"].lower()  # a load test's made-up id adopts the bank's only image
    w = worker(1)
    fill(w, page(["VizWiz_val_00000001", "VizWizSynth_00000007"]))
    assert not [r for r in item_truth([w]) if r["source"] == BLIND_TEXT]


def test_a_rehearsal_on_images_the_bank_lacks_says_their_text_is_content_blind(tmp_path) -> None:
    """End to end on the starter page with Flickr8k-like ids, none in the demo crowd's VizWiz bank."""
    import json
    import re

    import pandas as pd

    from flows.custom.scaffold import scaffold
    from flows.driver.campaign_run import run_campaign
    from flows.sim.people.crowd import load_crowd
    from flows.sim.service.server import DEFAULT_CROWD

    scaffold("photos", tmp_path)
    items = tmp_path / "config" / "photos_items.csv"
    items.write_text("item_id,image_url,note\n" + "".join(f"{i},https://example.org/flickr/{i},\n" for i in FLICKR))
    run_campaign(tmp_path / "config" / "photos.toml", db_path=tmp_path / "ledger.db", out_root=tmp_path / "runs",
                 seed=3, progress=lambda _line: None)
    out = tmp_path / "runs" / "photos"
    summary = (out / "summary.txt").read_text()
    assert f"simulated text for description is content-blind: {len(FLICKR)} of its items show no text of their own " \
           "and an image the simulator's caption bank does not hold" in summary
    latent = pd.DataFrame(json.loads((out / "sim_items.json").read_text()))
    assert set(latent.loc[latent["source"] == BLIND_TEXT, "field"]) == {"description"}
    _, bank = load_crowd(DEFAULT_CROWD)

    def grams(text: str) -> set[tuple[str, ...]]:  # runs of five words: "a photo of a" is anyone's
        w = re.findall(r"[a-z']+", text.lower())
        return {tuple(w[k:k + 5]) for k in range(len(w) - 4)}

    bank_grams = set().union(*(grams(c) for e in bank.values() for c in e.captions))
    data = pd.read_csv(out / "responses.csv", dtype=str, keep_default_na=False)
    texts = data.loc[data["field"] == "description", "value"]
    assert len(texts) >= 9 and not any(grams(t) & bank_grams for t in texts)
