"""Caption top-ups: an image short of accepted captions after QC gets more
assignments in a later round (at most [answers] top_up_rounds a batch); what is still short ran out of
rounds and the summary, the report and short_images.csv say so."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from flows.campaigns.review_data import ReviewPending
from flows.campaigns.summary import summarize
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.driver.campaign_status import campaign_status
from flows.driver.operations import open_campaign_run
from flows.driver.review_demo import clear_queue, review_config
from flows.platforms.registry import platform_for
from flows.platforms.targets import simulator
from flows.review.review_app import ReviewServer, ReviewSite
from postprocess.answers.extension_rounds import short_items, short_reasons, top_up_units
from tests.small_configs import small_vizwiz


def test_top_up_units_by_hand() -> None:
    units = pd.DataFrame({"unit_id": ["h1", "h1", "h2", "h3", "h4"], "item_id": ["a", "b", "c", "d", "e"],
                          "asked": [5, 5, 5, 8, 5], "received": [5, 5, 5, 8, 4]})
    accepted = pd.Series({"a": 5, "b": 3, "c": 5, "d": 2})
    # h1: b lacks 2; h2 is full; h3 lacks 3 but may only reach 9; h4 came back short: not asked again
    assert top_up_units(accepted, units, target=5, cap=9) == ["h1", "h1", "h3"]
    captions = pd.DataFrame({"image_id": ["a", "a", "b", "b"], "caption": ["x", " ", "y", "z"],
                             "is_rejected": [False, False, True, False]})
    assert short_items(captions, pd.Series(["a", "b", "c"]), 2).to_dict("records") == [
        {"item_id": "a", "accepted": 1}, {"item_id": "b", "accepted": 1}, {"item_id": "c", "accepted": 0}]


def test_short_reasons_by_hand() -> None:
    units = pd.DataFrame({"unit_id": ["h1", "h1", "h2", "h3"], "item_id": ["a", "b", "c", "d"],
                          "asked": [7, 7, 9, 6], "received": [7, 7, 9, 5]})
    short = pd.DataFrame({"item_id": ["a", "c", "d", "e"], "accepted": [4, 3, 2, 0]})
    # a: its unit got all it asked, under the cap (rounds ran out); c: at the cap of 9; d: its unit came back
    # short (more asked would not come); e: on no unit at all
    assert short_reasons(short, units, cap=9)["reason"].tolist() == ["rounds", "cap", "unfilled", "unposted"]
    # rounds left unused: a was not short when they ended (a caption struck in review since)
    assert short_reasons(short, units, cap=9, rounds_ran_out=False)["reason"].tolist() == [
        "after", "cap", "unfilled", "unposted"]
    assert short_reasons(short.iloc[:0], units, cap=9).empty


def test_the_summary_counts_units_of_each_batch_apart(tmp_path: Path) -> None:
    """Invite links name a batch's units invite:u0, invite:u1, ... in every batch: the same unit id in two
    batches is two units, each with its own extra assignments."""
    from flows.campaigns.summary import top_up_lines

    pd.DataFrame({"image_id": ["a", "b", "c", "d"], "batch": [1, 1, 2, 2],
                  "hit_id": ["invite:u0", "invite:u0", "invite:u0", "invite:u1"],
                  "more_assignments": [2, 2, 3, 1]}).to_csv(tmp_path / "top_ups.csv", index=False)
    pd.DataFrame(columns=["image_id", "accepted", "batch", "reason"]).to_csv(tmp_path / "short_images.csv",
                                                                             index=False)
    assert top_up_lines(tmp_path)[0].startswith("images topped up: 4 on 3 unit(s) where QC left an image short, "
                                                "6 more assignment(s)")
    # MTurk's HITs keep their name
    pd.DataFrame({"image_id": ["a", "b"], "batch": [1, 1], "hit_id": ["3XH7ZQ9", "3XH7ZQA"],
                  "more_assignments": [1, 2]}).to_csv(tmp_path / "top_ups.csv", index=False)
    assert top_up_lines(tmp_path)[0].startswith("images topped up: 2 on 2 HIT(s) where QC left an image short, ")


def accepted_per_image(out: Path) -> pd.Series:
    data = pd.read_csv(out / "dataset.raw.csv", dtype={"image_id": str})
    kept = data[~data["is_rejected"].astype(bool) & data["caption"].fillna("").str.strip().ne("")]
    return kept.groupby("image_id").size()


@pytest.mark.slow
def test_short_images_get_more_captions_until_rounds_run_out(tmp_path: Path) -> None:
    # one batch of 20 images: two rounds leave some images short, so the report's ran-out line is checked
    # (in two batches every image was filled and that check never ran)
    config = small_vizwiz(tmp_path, edits={"batches = 5": "batches = 1"}, items=20, top_ups=True)  # the demo's 2
    db, out_root = tmp_path / "h.db", tmp_path / "runs"
    run_campaign(config, db_path=db, out_root=out_root, progress=lambda _: None)
    out = out_root / "vizwiz_captions"
    ledger = Store(db).rows("SELECT batch, params, status FROM ledger WHERE operation = "
                            "'CreateAdditionalAssignmentsForHIT'")
    assert ledger and {r["status"] for r in ledger} == {"ok"}
    rounds = {(r["batch"], json.loads(r["params"])["round"]) for r in ledger}
    assert max(r for _, r in rounds) <= 2
    # every extension's work was decided like any other (no assignment left without a decision)
    store = Store(db)
    assert store.rows("SELECT count(*) AS n FROM assignments a WHERE a.batch > 0 AND NOT EXISTS "
                      "(SELECT 1 FROM decisions d WHERE d.assignment_id = a.assignment_id)")[0]["n"] == 0
    accepted = accepted_per_image(out)
    short = pd.read_csv(out / "short_images.csv", dtype={"image_id": str})
    items = pd.read_csv(tmp_path / "items.csv", dtype=str).iloc[:, 0]
    really_short = {i for i in items if accepted.get(i, 0) < 5}
    assert set(short["image_id"]) == really_short  # the file names exactly the images still short
    said = summarize(out)
    assert "top-up round" in said
    # top_ups.csv names the images of every HIT the ledger extended, and the summary counts them
    topped = pd.read_csv(out / "top_ups.csv", dtype={"image_id": str, "hit_id": str})
    extended = {json.loads(r["params"])["HITId"] for r in ledger}
    assert set(topped["hit_id"]) == extended
    more = sum(json.loads(r["params"])["NumberOfAdditionalAssignments"] for r in ledger)
    assert f"images topped up: {topped['image_id'].nunique()} on {len(extended)} HIT(s) where QC left an image " \
           f"short, {more} more assignment(s)" in said
    assert really_short and "ran out of top-up rounds" in (out / "report.html").read_text()
    # hitflow status commits every assignment the extensions asked for: what was paid never exceeds it
    status = campaign_status(store, "vizwiz_captions")[0]
    hits = store.table("hits").count_where("batch > 0", [])
    assert Decimal(status["committed"]) == Decimal("0.66") * (5 * hits + more) >= Decimal(status["spent"]) > 0


@pytest.mark.slow
def test_top_ups_under_flagged_review_leave_no_item_a_person_cannot_close(tmp_path: Path) -> None:
    """The review demo's campaign with its top-ups: each top-up round's late work is checked again, and
    its review sample used to be drawn afresh over the whole batch, picking work already approved, which no
    person can decide any more (the run waited for review for ever)."""
    config = review_config(tmp_path / "cfg")
    assert "top_up_rounds = 2" in config.read_text()
    # the demo's first batch at its size (12 images a batch, limit 60 over 5): without the fix batch 1 already
    # stayed open with one item no person could close (05ea87e); a second batch only repeated the case
    config.write_text(config.read_text().replace("batches = 5 ", "batches = 1 ", 1), encoding="utf-8")
    db, out = tmp_path / "h.db", tmp_path / "runs"
    finished = False
    with simulator("", seed=1, crowd=None) as sim:
        for _ in range(6):  # the batch stopping once or twice for review
            try:
                run_campaign(config, endpoint_url=sim.endpoint_url, db_path=db, out_root=out, limit=12,
                             progress=lambda _: None)
                finished = True
                break
            except ReviewPending:
                pass
            with open_campaign_run(str(db), "vizwiz_captions") as run:
                site = ReviewSite(run, "tester", run.cfg.review)
                with ReviewServer(site) as server:
                    clear_queue(f"{server.url}/?token={site.login_token}", max_steps=50)
    assert finished
    store = Store(db)
    assert store.table("ledger").count_where("operation = 'CreateAdditionalAssignmentsForHIT'", [])  # topped up
    # a batch both topped up and sampled for review: the case the sample used to get wrong
    assert store.rows("SELECT DISTINCT l.batch FROM ledger l JOIN qc_flags f ON f.batch = l.batch "
                      "WHERE l.operation = 'CreateAdditionalAssignmentsForHIT' AND f.rule = 'random_sample'")
    unseen = store.rows("SELECT f.assignment_id FROM qc_flags f WHERE f.rule = 'random_sample' AND NOT EXISTS "
                        "(SELECT 1 FROM review_actions r WHERE r.assignment_id = f.assignment_id)")
    assert unseen == []  # every sampled assignment got a person's verdict


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["prolific", "links"])
def test_short_images_are_topped_up_on_served_units_and_the_rest_say_why(tmp_path: Path, platform: str) -> None:
    """Prolific (more places on the batch's study) and invite links (further invitees): the task server
    hands the extended units out like adaptive overlap's; an image still short says why in short_images.csv,
    each reason checked against the ledger's rounds and the units' stored work."""
    config = small_vizwiz(tmp_path, edits={"batches = 5": "batches = 2"}, items=40, top_ups=True)
    db, out_root = tmp_path / "h.db", tmp_path / "runs"
    run_campaign(config, db_path=db, out_root=out_root, platform=platform, progress=lambda _: None)
    out, store = out_root / "vizwiz_captions", Store(db)
    ledger = [{**json.loads(r["params"]), "batch": r["batch"], "status": r["status"]}
              for r in store.rows("SELECT batch, params, status FROM ledger WHERE operation = 'ExtendUnit'")]
    assert ledger and {r["status"] for r in ledger} == {"ok"}
    assert store.rows("SELECT count(*) AS n FROM assignments a WHERE a.batch > 0 AND NOT EXISTS "
                      "(SELECT 1 FROM decisions d WHERE d.assignment_id = a.assignment_id)")[0]["n"] == 0
    topped = pd.read_csv(out / "top_ups.csv", dtype={"image_id": str, "hit_id": str})
    assert set(topped["hit_id"]) == {r["unit"] for r in ledger}
    accepted = accepted_per_image(out)
    items = pd.read_csv(tmp_path / "items.csv", dtype=str).iloc[:, 0]
    short = pd.read_csv(out / "short_images.csv", dtype={"image_id": str})
    assert set(short["image_id"]) == {i for i in items if accepted.get(i, 0) < 5}
    received = {(r["batch"], r["hit_id"]): r["n"] for r in store.rows(
        "SELECT batch, hit_id, count(*) AS n FROM assignments WHERE batch > 0 GROUP BY batch, hit_id")}
    with open_campaign_run(str(db), "vizwiz_captions") as run:
        unit_of = {item: (batch, unit) for batch in (1, 2)
                   for unit, items in platform_for(platform).posted_units(run, batch) for item in items}
    assert set(items) <= set(unit_of)
    extra = pd.DataFrame(ledger).groupby(["batch", "unit"])["NumberOfAdditionalAssignments"].sum()
    rounds = {b: {r["round"] for r in ledger if r["batch"] == b} for b in {r["batch"] for r in ledger}}
    for row in short.to_dict("records"):
        unit = unit_of[row["image_id"]]
        asked = 5 + int(extra.get(unit, 0))
        ran_out = len(rounds.get(row["batch"], set())) == 2  # the batch used every round it had
        expected = "unfilled" if received.get(unit, 0) < asked else "cap" if asked >= 9 else \
            "rounds" if ran_out else "after"
        assert row["reason"] == expected, (row, received.get(unit), asked)
    said = summarize(out)
    units = len(topped.drop_duplicates(["batch", "hit_id"]))
    assert f"images topped up: {topped['image_id'].nunique()} on {units} unit(s)" in said
    assert ("after the top-up rounds: none" in said) if short.empty else (f"round: {len(short)} (" in said)


def test_every_short_reason_is_worded_on_both_surfaces() -> None:
    """postprocess.answers.extension_rounds.SHORT_REASONS is what short_images.csv may say; the summary's short words
    (summary.SHORT_WHY) and the report's longer ones (outputs.short_reasons_text) each cover every one,
    so a reason added there cannot reach a user as a KeyError or go uncounted."""
    from flows.campaigns.summary import SHORT_WHY
    from flows.captions.outputs import short_reasons_text
    from flows.core.config.config import load_config
    from postprocess.answers.extension_rounds import SHORT_REASONS

    assert set(SHORT_WHY) == set(SHORT_REASONS)
    cfg = load_config(Path(__file__).resolve().parents[1] / "config" / "vizwiz_captions.toml")
    counts = pd.Series({reason: k + 1 for k, reason in enumerate(SHORT_REASONS)})
    text = short_reasons_text(counts, cfg)
    assert [part.split(" ", 1)[0] for part in text.split(", ") if part[:1].isdigit()] == \
        [str(k + 1) for k in range(len(SHORT_REASONS))]
