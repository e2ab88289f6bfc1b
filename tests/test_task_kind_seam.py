"""A task kind is one seam: a kind declared here alone, in the tests folder, with no other
file changed, runs through the dry run on MTurk and on Prolific, a run on each simulator, the review
cards, the report and a schedule's next-batch runs. Its page asks for 1-5 stars and a reason; its QC,
outputs and page are the generic ones of a page of one's own, handed its own template."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.config.config import CampaignConfig
from flows.core.run.run_context import Run
from flows.core.task_kinds import AnswerField, PlanDefaults, TaskKind, register, unit_minutes
from qc.custom_rules import CUSTOM_POLICY

STARS = AnswerField("stars", "choice", ("1", "2", "3", "4", "5"))
WHY = AnswerField("why", "text")
PAGE = """{% extends "_custom_page.html.j2" %}
{% block instructions %}<p>How well does the sentence describe the photo? Give 1 to 5 stars and say why.</p>
{% endblock %}
{% block item %}
<img src="{{ item.image_url | safe_url }}" alt="photo {{ i + 1 }}">
<p class="sentence">{{ item.sentence }}</p>
<fieldset><legend>Stars</legend>
{% for n in range(1, 6) %}<label><input type="radio" name="stars_{{ i }}" value="{{ n }}" required> {{ n }}</label>
{% endfor %}</fieldset>
<label>Why? <textarea name="why_{{ i }}" required minlength="10" maxlength="300"></textarea></label>
{% endblock %}
"""
TEMPLATE: dict[str, Path] = {}  # the page's file, written by the fixture into the test's own folder


def _own(cfg: CampaignConfig) -> CampaignConfig:
    return dataclasses.replace(cfg, template=TEMPLATE["page"])


def _on_page(run: Run) -> Run:
    return dataclasses.replace(run, cfg=_own(run.cfg))


def _stars_kind() -> TaskKind:
    from flows.campaigns.answer_cards import answer_cards
    from flows.custom.custom_outputs import write_custom_outputs
    from flows.custom.custom_review import custom_qc_batch
    from flows.custom.custom_task import custom_item_plan, custom_page, custom_spec, ordinary_items

    return TaskKind(
        names=("star_rating",), label="star rating", unit_word="rating", done_key="responses",
        fields=lambda cfg: [STARS, WHY],
        cards=lambda run, cards, most: answer_cards(run, [STARS, WHY], cards, most),
        plan=lambda cfg: PlanDefaults(minutes=unit_minutes([STARS, WHY], cfg.images_per_hit)),
        qc=lambda run, batch: custom_qc_batch(_on_page(run), batch),
        outputs=lambda run, out, truth, asked=False, items=None: write_custom_outputs(_on_page(run), out, truth, items),
        page=lambda cfg, items, **extra: custom_page(_own(cfg), items, **extra),
        rules=lambda cfg, items: custom_spec(_own(cfg), items),
        item_plan=lambda cfg, limit, **grown: custom_item_plan(_own(cfg), limit, **grown),
        item_ids=lambda cfg: [r["item_id"] for r in ordinary_items(_own(cfg))],
        qc_rules=("invalid_answer", "empty_answer", "time_outlier", "random_sample", "choice_straight_lining"),
        policy=dataclasses.replace(CUSTOM_POLICY, review_rules=("random_sample", "time_outlier")))


CONFIG = """[campaign]
name = "{name}"
task = "star_rating"
items = "stars_items.csv"
title = "Rate a sentence"
description = "Give stars to a sentence about a photo."
keywords = "photo, stars"
images_per_hit = 2
assignments_per_image = 3
batches = 2
reward_usd = "0.20"
budget = "60.00 USD"
fx_rates = {{GBP = "1.27"}}
seed = 4

[timing]
auto_approval_delay_s = 259200
poll_interval_s = 600

[policy]
review = "{review}"
"""


@pytest.fixture
def stars(tmp_path: Path) -> Path:
    """A star-rating campaign's folder: its config, its items; the kind declared (its page in the test's folder)."""
    TEMPLATE["page"] = tmp_path / "stars_page.html.j2"
    TEMPLATE["page"].write_text(PAGE, encoding="utf-8")
    register(_stars_kind())
    colours = ["red", "blue", "green", "black", "white", "grey"]
    rows = [{"item_id": f"s{n}", "image_url": f"https://example.org/photo/{n}.jpg",
             "sentence": f"A {colour} bicycle leans on a fence."} for n, colour in enumerate(colours)]
    pd.DataFrame(rows).to_csv(tmp_path / "stars_items.csv", index=False)
    return tmp_path


def config(folder: Path, name: str, review: str = "none") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(CONFIG.format(name=name, review=review), encoding="utf-8")
    return path


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_the_dry_run_plans_a_kind_of_ones_own_from_its_declaration(stars: Path, capsys, platform: str) -> None:
    code = main(["run", str(config(stars, "stars_dry")), "--dry-run", "--platform", platform])
    out = capsys.readouterr().out
    assert code == 0, out
    minutes = (30 + 2 * (6 + 40)) / 60  # the page read once, then two items of a choice and a free text
    assert f"star rating: 2 answer field(s) an item (1 choice, 1 text), 2 item(s) a unit: about {minutes:.1f} min" \
        in out
    # 9.00 GBP an hour for 2 minutes (2.03 to the nearest); 2 units a batch (3 items, 2 a page), 3 places each
    if platform == "prolific":
        assert "reward 0.30 GBP (from the page), estimated 2 min (from the page), maximum 7 min (from the page)" in out
        assert re.search(r"POST studies/ internal_name='stars_dry batch 1' places=6 reward=0\.30 GBP", out), out
    else:
        assert "reward 0.20 USD a HIT" in out and "dry run: 4 HITs, 12 assignments" in out


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_a_kind_of_ones_own_runs_is_reviewed_and_reported(stars: Path, capsys, platform: str) -> None:
    """On each simulator: the run waits for review; every card shows the two answers of each item beside the
    item's sentence; after the queue is cleared the run ends with the kind's dataset and report."""
    from flows.driver.operations import ledger_run
    from flows.review.review_cards import queue_cards

    name, db = f"stars_{platform}", stars / "h.db"
    path = config(stars, name, review="flagged")
    args = ["run", str(path), "--no-prefect", "--platform", platform, "--db", str(db), "--out", str(stars / "runs")]
    assert main(args) == 0
    waiting = capsys.readouterr()
    assert "waits for review" in waiting.out + waiting.err, waiting
    run = ledger_run(str(db), name)
    page = queue_cards(run, "flagged", {}, now=run.clock())
    assert page["cards"] and page["unit"] == "rating"
    for card in page["cards"]:
        assert card["rows"] and card["from_assignments"] >= 1
        for row in card["rows"]:
            fields = {f: (kind, value) for f, kind, value, _ in row.answers}
            assert set(fields) == {"stars", "why"} and fields["stars"][0] == "choice" and fields["why"][0] == "text"
            assert fields["stars"][1] in STARS.options and fields["why"][1]  # what the worker gave, from the ledger
            assert dict(row.shown)["sentence"].endswith("bicycle leans on a fence.")
            telemetry = next(words for f, _, _, words in row.answers if f == "why")
            assert telemetry  # how the reason was entered, in words
    stored = {(r["assignment_id"], r["item_id"], r["field"]): r["value"] for r in run.store.rows(
        "SELECT assignment_id, item_id, field, value FROM answers")}
    shown = {(row.assignment_id, row.item_id, f): v for c in page["cards"] for row in c["rows"]
             for f, _, v, _ in row.answers}
    assert all(stored[k] == v for k, v in shown.items())  # every value on a card is the stored answer
    out = stars / "runs" / name
    for _ in range(4):  # batch 1's queue cleared, the run goes on to batch 2's (cleared too) and ends
        _clear_queue(run, queue_cards(run, "flagged", {}, now=run.clock()))
        assert main(args) == 0
        if "waits for review" not in capsys.readouterr().err:
            break  # the campaign ended (a report is written while a batch waits too: its end is the test)
    data = pd.read_csv(out / "dataset.csv", dtype=str)
    # one row an assignment, item and field: every item's stars and reason
    assert set(data["field"]) >= {"stars", "why"} and set(data["item_id"]) == {f"s{n}" for n in range(6)}
    stars = data[data["field"] == "stars"]  # a star on every row the rules approved (the tester approves all)
    assert (stars["value"].isin(STARS.options) | (stars["reasons"] == "reviewer tester")).all()
    report = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (out / "report.html").read_text(encoding="utf-8")))
    given = {f: sum(1 for r in run.store.rows("SELECT x.value FROM answers x JOIN assignments a ON a.assignment_id = "
                                              "x.assignment_id WHERE a.campaign = ? AND x.field = ?", [name, f])
                    if r["value"].strip()) for f in ("stars", "why")}
    for field, rules in (("stars", "required, one of 5 options"), ("why", "required, minlength=10, maxlength=300")):
        # each field's answers as the ledger holds them, of 6 items x 3 workers, in the report's table of fields
        assert f"{field} {rules} accepted answers with a value: {given[field]} of 18" in report and given[field] >= 16
    assert re.search(r"Needs a person: nothing now; every (assignment|submission) is decided", report), report


def _clear_queue(run: Run, page: dict[str, Any]) -> None:
    """A person approves every open assignment and keeps every worker the rules would block."""
    from flows.core.decisions import Decision
    from flows.driver.operations import open_campaign_run
    from flows.review.review_actions import apply_decision

    with open_campaign_run(run.store.location, run.cfg.name, progress=lambda _: None) as live:
        for card in page["cards"]:
            if card["state"] == "open":
                action = "approve" if card["kind"] == "assignment" else "unblock"
                apply_decision(live, Decision(action=action, idem_key=f"t:{card['item']}", worker_id=card["worker_id"],
                                              assignment_id=card["assignment_id"], batch=int(card["batch"]),
                                              reviewer="tester"))


@pytest.mark.filterwarnings("ignore:Logger .hitflow.progress. attempted to send logs:UserWarning")
def test_a_schedule_advances_a_kind_of_ones_own_batch_by_batch(stars: Path, sim, monkeypatch) -> None:
    """The scheduled flow's body, a batch a run, against a simulator that outlives the runs (as a schedule's
    does); its steps called directly rather than as Prefect tasks (a Prefect server per test costs too much)."""
    from flows.driver import campaign_flow
    from flows.driver.campaign import call_directly

    monkeypatch.setattr(campaign_flow, "prefect_call", call_directly)
    path, db, out = config(stars, "stars_scheduled"), stars / "s.db", stars / "runs"
    advanced = []
    for _ in range(4):
        result = campaign_flow.next_batch_fn(str(path), endpoint_url=sim.url, db_path=str(db), out_root=str(out))
        advanced.append(result["advanced_batch"])
        if result["done"]:
            break
    assert advanced == [1, 2] and result["done"]  # the run that advanced the last batch finished the campaign
    data = pd.read_csv(out / "stars_scheduled" / "dataset.csv", dtype=str)
    assert len(set(data["item_id"])) == 6 and data.loc[data["field"] == "stars", "value"].isin(STARS.options).all()
    assert json.loads((out / "stars_scheduled" / "hitflow-manifest.json").read_text(encoding="utf-8"))["campaign"] \
        == "stars_scheduled"
