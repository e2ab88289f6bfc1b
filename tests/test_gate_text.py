"""The seed's text heuristics on every free-text field of any page, read by field kind: a requester's own page
with the simulator's canned-text abusers, caps-lockers and speeders gets them flagged with evidence; a summary
that pastes its source back is flagged; an honest answer quoting a few words of its item is not."""

from __future__ import annotations

import csv
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from flows.custom.custom_text_qc import field_questions, field_submit_rules, page_canned_texts, text_flags
from flows.custom.scaffold import scaffold
from qc.asked_limits import asks_for_copy, asks_own_words, stated_banned_openings, stated_min_words
from qc.custom_rules import CUSTOM_RULES
from qc.runner import run_rules
from qc.short_answer import short_answer
from qc.source_copy import source_copy
from tests.honest_pages import run_shape

ROOT = Path(__file__).resolve().parents[1]

PASSAGE = ("The town council voted on Monday to close the old public library on Mill Street after a long debate "
           "about its heating and repair costs. Its books will move to the new community centre, which opens in "
           "the spring, and two of the four librarians will work there. ")
LONG_PASSAGE = " ".join((PASSAGE * 4).split()[:185])  # 185 words, as the page that approved two pastes of it
CAPTION = "A dog running along a sandy beach with a stick in its mouth."


def answers(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame([{"assignment_id": f"A{k}", "worker_id": w, "image_id": item, "caption": text}
                         for k, (w, item, text) in enumerate(rows)])


def test_a_summary_pasting_its_whole_source_is_flagged_with_the_words_copied() -> None:
    assert len(LONG_PASSAGE.split()) == 185
    extract = "The town council voted to close the old public library on Mill Street after a long debate about costs."
    frame = answers([("WPASTE", "n01", LONG_PASSAGE), ("WHONEST", "n01", extract)])
    flags = source_copy(frame, {"item_text": {"n01": [LONG_PASSAGE]}})
    assert flags["worker_id"].tolist() == ["WPASTE"]  # a summary lifting the first sentence covers part of it
    row = flags.iloc[0]
    assert row["assignment_id"] == "A0" and row["image_id"] == "n01" and float(row["value"]) == pytest.approx(1.0)
    assert "185 of its 185 words copied from its item's text" in row["detail"]


def test_a_paste_the_boxs_length_limit_cut_short_is_flagged_and_an_opening_quoted_is_not() -> None:
    """A box of 80 characters keeps a paste's first 14 words, a sixth of the passage: a copy all the same, from
    its first word on; a headline that opens with the passage's first words and goes on in its own is no copy."""
    cut = LONG_PASSAGE[:80].rsplit(" ", 1)[0]
    frame = answers([("WPASTE", "n01", cut), ("WCUT", "n01", LONG_PASSAGE[:78]),
                     ("WHONEST", "n01", "The town council voted on Monday to shut the Mill Street library"),
                     ("WSHORT", "n01", "The town council voted on Monday to close")])
    flags = source_copy(frame, {"item_text": {"n01": [LONG_PASSAGE]}})
    assert flags["worker_id"].tolist() == ["WPASTE", "WCUT"]


def test_an_honest_answer_quoting_a_few_words_of_its_item_is_not_flagged() -> None:
    frame = answers([("W1", "r01", 'I chose 4 because "sandy beach with a stick" is right, but the dog is walking.'),
                     ("W2", "r01", "The caption says a dog running along a sandy beach, which the photo shows."),
                     ("W3", "r01", "A dog running along a sandy beach with a stick in its mouth.")])
    flags = source_copy(frame, {"item_text": {"r01": [CAPTION]}})
    assert flags["worker_id"].tolist() == ["W3"]  # only the caption given back whole


def test_an_answer_that_is_a_line_of_the_page_instructions_is_flagged() -> None:
    page = "Read each news passage and summarise it in about 25 words, in your own words.\nSubmit"
    frame = answers([("WECHO", "n01", "Read each news passage and summarise it in about 25 words in your own words"),
                     ("W1", "n01", "The council will shut the Mill Street library and move its books.")])
    flags = source_copy(frame, {"page_text": page, "item_text": {}})
    assert flags["worker_id"].tolist() == ["WECHO"] and "the page's instructions" in flags.iloc[0]["detail"]


def test_a_field_asks_for_own_words_unless_it_asks_for_the_items_words_back() -> None:
    assert asks_own_words("Summarise the passage in your own words.")
    assert asks_own_words("Do not copy the passage. Write it in your own words.")  # forbidding is not asking
    assert not asks_own_words("Write a short caption for each photo.")
    assert asks_for_copy("Correct the sentence below and type it again.")
    assert not asks_own_words("Correct each sentence in your own words where you must; keep the rest as it is.")


def test_the_page_states_its_minimum_words_and_forbidden_openings() -> None:
    said = 'Write at least eight words. Don\'t start with "There is" or "This is".'
    assert stated_min_words(said) == 8 and stated_banned_openings(said) == ("There is", "This is")
    assert stated_min_words("A 100-word summary, in your own words") == 50  # half a length asked as a target
    assert stated_min_words("Rate the photo from 1 to 7") == 0 and stated_banned_openings("Rate it") == ()
    rules = field_submit_rules({"min_words": 3}, said)
    assert rules.min_words == 8 and rules.banned_prefixes == ("There is", "This is")


def test_a_field_takes_the_minimum_and_openings_its_page_states_to_workers() -> None:
    page = ("<p>Describe each photo in one sentence of at least eight words. Do not start with \"There is\".</p>"
            "<img src='a.jpg'><label>Description <textarea name='text_0'></textarea></label>")
    rows = [("W1", "There is a dog running along a sandy beach with a stick."),
            ("W2", "A dog on a beach."), ("W3", "A brown dog runs along the sand with a stick in its mouth.")]
    texts = pd.DataFrame([{"assignment_id": f"A{k}", "worker_id": w, "image_id": "i1", "field": "text", "kind": "text",
                           "answer": t, "telemetry": "", "telemetry_field": "text_0"} for k, (w, t) in enumerate(rows)])
    said = 'Describe each photo in one sentence of at least eight words. Do not start with "There is".'
    params = {"page_text": said, "field_questions": field_questions(page), "random_sample_share": 0.0}
    flags = pd.concat(text_flags(texts, params, CUSTOM_RULES))
    by_rule = {r: set(g["worker_id"]) for r, g in flags.groupby("rule")}
    assert by_rule["min_words"] == {"W2"} and by_rule["banned_prefix"] == {"W1"}
    assert flags.loc[flags["rule"] == "min_words", "detail"].str.startswith("text: ").all()


def test_an_answer_far_shorter_than_the_others_on_its_item_is_flagged() -> None:
    full = ["A grey cat asleep on a stack of old library books.", "A cat sleeping on top of a pile of books.",
            "A grey cat is curled up asleep on some library books.", "A tabby cat asleep on books in a library."]
    frame = answers([(f"W{k}", "c1", t) for k, t in enumerate(full)] + [("WRUSH", "c1", "A grey cat asleep")]
                    + [("W0", "c2", "Yes"), ("W1", "c2", "No"), ("W2", "c2", "Yes")])  # a one-word field: no median
    flags = short_answer(frame, {})
    assert flags["worker_id"].tolist() == ["WRUSH"]
    assert "4 words where the 4 other workers on the item wrote a median of 10.5" in flags.iloc[0]["detail"]
    assert not run_rules(frame, {"random_sample_share": 0.0}, ("short_answer",))["worker_id"].isin(
        [f"W{k}" for k in range(4)]).any()


def flags_of(db: Path) -> pd.DataFrame:
    with sqlite3.connect(db) as con:
        return pd.read_sql_query("SELECT batch, worker_id, assignment_id, rule, threshold, detail FROM qc_flags "
                                 "WHERE rule != 'random_sample'", con)


def test_canned_abusers_caps_lockers_and_speeders_on_an_own_page_are_flagged_with_evidence(tmp_path: Path) -> None:
    """A rating page with a required reason, a crowd mostly honest as the demo's: every bad worker has a flag
    naming what it saw; no honest one is blocked."""
    counts = {"diligent": 14, "canned_abuser": 2, "caps_locker": 2, "speeder": 2}
    run = run_shape(tmp_path, "rating", counts, per_item=5, batches=3, copies=2)
    assert run["code"] == 0 and not run["held"]
    flags = flags_of(tmp_path / "rating.db")
    with sqlite3.connect(tmp_path / "rating.db") as con:
        worked = dict(con.execute("SELECT assignment_id, worker_id FROM assignments WHERE batch > 0").fetchall())
    bad = {w for w, v in run["workers"].items() if v["profile"] in ("canned_abuser", "caps_locker", "speeder")}
    assert len(bad) >= 4, run["workers"]
    flagged = set(flags["worker_id"]) | {worked.get(a) for a in flags["assignment_id"] if a}
    assert bad <= flagged, {w: run["workers"][w]["profile"] for w in bad - flagged}
    caps = flags[flags["rule"] == "caps_lock"]
    assert set(caps["worker_id"]) == {w for w in bad if run["workers"][w]["profile"] == "caps_locker"}
    short = flags[flags["rule"] == "short_answer"]
    assert short["detail"].str.contains(r"^why: \d+ words where the \d+ other workers", regex=True).all()
    assert {run["workers"][w]["profile"] for w in short["worker_id"]} >= {"canned_abuser", "speeder"}
    assert not [w for w, v in run["workers"].items() if v["profile"] == "diligent" and v["blocked"]]


def test_a_summary_field_pasting_the_source_text_is_flagged(tmp_path: Path) -> None:
    """The summary page asks for about 25 words in the worker's own words; a copy-paster pastes the passage."""
    run = run_shape(tmp_path, "summary", {"diligent": 8, "copy_paster": 2}, per_item=4, batches=2)
    assert run["code"] == 0
    flags = flags_of(tmp_path / "summary.db")
    copied = flags[flags["rule"] == "source_copy"]
    pasters = {w for w, v in run["workers"].items() if v["profile"] == "copy_paster"}
    assert pasters and set(copied["worker_id"]) == pasters
    said = copied["detail"].str.extract(r"^summary: (\d+) of its (\d+) words copied from its item's text")
    assert said.notna().all().all() and (said[0] == said[1]).all()  # every word of the answer, copied


def test_where_own_words_are_asked_a_piece_of_the_item_and_nothing_else_is_flagged() -> None:
    """A reason that is the first words of the caption it judges has no word of the worker's own: flagged where
    the page asks for a sentence of the worker's own, not elsewhere; a reason quoting the caption is not."""
    assert asks_own_words("Give the reason for your choice in a sentence of your own.")
    caption = "A red kettle on a gas stove, taken at night."
    frame = answers([("WRUSH", "c01", "A red kettle on a"),
                     ("WHONEST", "c01", 'I chose 4 because "red kettle on a gas stove" is right but it is day.')])
    shown = {"item_text": {"c01": [caption]}}
    flagged = source_copy(frame, {**shown, "source_copy_fragments": True})
    assert list(flagged["worker_id"]) == ["WRUSH"]
    assert flagged["detail"].iloc[0].startswith("5 of its 5 words copied from its item's text")
    assert source_copy(frame, shown).empty  # a comment box that asks for no own words: a piece may be a quote


def test_an_optional_comment_pasting_its_item_back_is_flagged(tmp_path: Path) -> None:
    """The sentiment page's optional comment asks for no own words and no copy: a copy-paster who pastes each
    item's text into it is flagged (an answer that is its item again answers no question but "copy it");
    honest workers, who leave it empty or remark on the item, are not."""
    run = run_shape(tmp_path, "sentiment", {"diligent": 8, "copy_paster": 2}, per_item=4, batches=2)
    assert run["code"] == 0
    copied = flags_of(tmp_path / "sentiment.db").query("rule == 'source_copy'")
    pasters = {w for w, v in run["workers"].items() if v["profile"] == "copy_paster"}
    assert pasters and set(copied["worker_id"]) == pasters


def test_source_copy_reads_every_text_field_but_one_asking_for_the_items_words_back() -> None:
    from flows.custom.custom_text_qc import field_rules

    comment = {"page_text": "Choose the feeling the review expresses.",
               "field_questions": {"note": "Anything unclear?"}}
    assert "source_copy" in field_rules("note", comment, ("source_copy", "caps_lock"))
    retype = {"page_text": "Transcribe the receipt's total exactly as printed.", "field_questions": {"total": "Total"}}
    assert field_rules("total", retype, ("source_copy", "caps_lock")) == ("caps_lock",)


CANNED = "Quality issues are too severe to recognize visual content."
CANNED_PAGE = ("<p>Describe the photo.</p><img src='a.jpg'><textarea name='caption_0' id='c0'></textarea>"
               "<button type='button' onclick=\"document.getElementById('c0').value = "
               "'Quality issues are too severe to recognize visual content.'\">Can't see it</button>"
               "<script>document.getElementById('c0').value = '';</script>")


def test_the_canned_answer_a_page_offers_gets_the_seeds_canned_rules_on_its_field() -> None:
    """A page whose button fills the box with a canned answer: the worker who gives it on most items, and the
    only one to give it on an item, are flagged as on the caption task; a page without one gets no canned rule."""
    assert page_canned_texts(CANNED_PAGE) == [CANNED]  # the reset to "" is no canned answer
    described = ["A red mug on a wooden desk beside a laptop.", "A hand holding a can of soup over a counter.",
                 "A white cat asleep on a blue sofa cushion.", "A street sign for Main Street on a pole."]
    rows = [(w, f"i{k}", CANNED if (w == "WCAN" and k < 3) or (w == "WLONE" and k == 3) else described[k])
            for w in ("WCAN", "WLONE", "W1", "W2") for k in range(4)]
    texts = pd.DataFrame([{"assignment_id": f"A{w}{i}", "worker_id": w, "image_id": i, "field": "caption",
                           "kind": "text", "answer": t, "telemetry": "", "telemetry_field": "caption_0"}
                          for w, i, t in rows])
    params = {"canned_texts": page_canned_texts(CANNED_PAGE), "random_sample_share": 0.0}
    flags = pd.concat(text_flags(texts, params, CUSTOM_RULES))
    by_rule = {r: set(g["worker_id"]) for r, g in flags.groupby("rule")}
    assert by_rule["canned_overuse"] == {"WCAN"}  # 3 of 4 items; WLONE's 1 of 4 is no over-use
    assert by_rule["canned_lone_use"] == {"WCAN", "WLONE"}  # alone with it on an item the others described
    assert "caption: " in flags.loc[flags["rule"] == "canned_overuse", "detail"].iloc[0]
    assert "duplicate_text" not in by_rule  # the canned answer on three items is no text of the worker's own
    plain = pd.concat(text_flags(texts, {"random_sample_share": 0.0}, CUSTOM_RULES))
    assert not plain["rule"].str.startswith("canned").any()


def test_quality_words_judge_a_page_that_says_not_to_describe_image_quality() -> None:
    said = ["A blurry photo of a red mug on a desk.", "A blurry photo of a can of soup on a counter.",
            "A blurry photo of a cat asleep on a sofa.", "A street sign for Main Street."]
    honest = ["A red mug on a wooden desk.", "A can of soup held over a counter.", "A white cat asleep on a sofa.",
              "A green street sign on a pole."]
    rows = [(w, f"i{k}", t) for w, texts in (("WBLUR", said), ("W1", honest)) for k, t in enumerate(texts)]
    texts = pd.DataFrame([{"assignment_id": f"A{w}{i}", "worker_id": w, "image_id": i, "field": "caption",
                           "kind": "text", "answer": t, "telemetry": "", "telemetry_field": "caption_0"}
                          for w, i, t in rows])
    forbids = {"page_text": "Describe the photo in one sentence. Do not describe the image quality issues.",
               "random_sample_share": 0.0}
    flags = pd.concat(text_flags(texts, forbids, CUSTOM_RULES))
    assert set(flags.loc[flags["rule"] == "quality_words", "worker_id"]) == {"WBLUR"}
    assert set(flags.loc[flags["rule"] == "quality_words_rate", "worker_id"]) == {"WBLUR"}
    silent = pd.concat(text_flags(texts, {"page_text": "Describe the photo in one sentence.",
                                          "random_sample_share": 0.0}, CUSTOM_RULES))
    assert not silent["rule"].str.startswith("quality").any()  # naming blur breaks no instruction there


def test_the_seeds_own_page_written_as_a_requesters_gets_the_seeds_heuristics(tmp_path: Path) -> None:
    """The VizWiz page as a page of one's own (at least eight words, no image quality, a canned answer behind a
    button) on real VizWiz photos with the demo crowd: blur-talkers flagged by the quality words, speeders and
    canned-text abusers by the minimum the page states, caps-lockers by caps lock, each with its evidence."""
    scaffold("seed_caption", tmp_path)
    folder = tmp_path / "config"
    shutil.copy(Path(__file__).parent / "pages" / "gate" / "seed_caption.html.j2", folder / "seed_caption.html.j2")
    with (ROOT / "config" / "items" / "vizwiz_demo_items.csv").open(encoding="utf-8") as f:
        photos = list(csv.DictReader(f))[:60]
    (folder / "seed_caption_items.csv").write_text("item_id,url\n" + "".join(f"{r['image_id']},{r['url']}\n"
                                                                             for r in photos), encoding="utf-8")
    config = folder / "seed_caption.toml"
    text = re.sub(r"(?m)^images_per_hit = \d+", "images_per_hit = 4", config.read_text(encoding="utf-8"))
    text = re.sub(r"(?m)^assignments_per_image = \d+", "assignments_per_image = 5", text)
    text = re.sub(r'(?m)^budget = ".*?"', 'budget = "500.00 USD"', text)
    config.write_text(re.sub(r"(?m)^batches = \d+", "batches = 3", text), encoding="utf-8")
    db = tmp_path / "seed.db"
    assert main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "runs"),
                 "--crowd", str(ROOT / "config" / "crowds" / "vizwiz_demo.toml")]) == 0
    truth = {w["worker_id"]: w["profile"] for w in json.loads(
        (tmp_path / "runs" / "seed_caption" / "sim_workers.json").read_text(encoding="utf-8"))}
    flags = flags_of(db).assign(profile=lambda f: f["worker_id"].map(truth))
    flagged = {r: set(g["profile"]) for r, g in flags.groupby("rule")}
    assert "blur_talker" in flagged["quality_words_rate"] and "blur_talker" in flagged["quality_words"]
    assert {"speeder", "canned_abuser"} <= flagged["min_words"]
    assert flags.loc[flags["rule"] == "min_words", "threshold"].astype(int).eq(8).all()  # the page's "eight"
    assert "caps_locker" in flagged["caps_lock"]
    assert flagged["canned_lone_use"]  # the button's text, read from the page, is the field's canned answer
