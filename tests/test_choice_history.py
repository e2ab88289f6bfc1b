"""Choice, number and tick answers judged over a worker's whole history in the campaign (qc/agreement_odds.py,
qc/straight_lining_odds.py): on a requester's page of one item a page (a 1-7 slider, a checkbox group, a radio
choice), constant raters are flagged with evidence after a few pages and blocked, honest workers whose opinions
differ are not. Judged one batch at a time, a one-item page gave a worker two or three items a batch, too few
for any run to be evidence, and nobody was flagged."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from flows.custom.scaffold import scaffold

PAGE = """{% extends "_custom_page.html.j2" %}
{% block instructions %}<p>Read the product review and answer three questions about it.</p>{% endblock %}
{% block item %}
<p class="note">{{ item.note }}</p>
<label>How helpful is this review? 1 (not at all) to 7 (very):
  <input type="range" name="helpful_{{ i }}" min="1" max="7" step="1" value="4"></label>
<fieldset><legend>What does the review talk about?</legend>
  <label><input type="checkbox" name="topics_{{ i }}" value="price"> price</label>
  <label><input type="checkbox" name="topics_{{ i }}" value="quality"> quality</label>
  <label><input type="checkbox" name="topics_{{ i }}" value="delivery"> delivery</label>
  <label><input type="checkbox" name="topics_{{ i }}" value="service"> service</label>
</fieldset>
<fieldset><legend>The review's sentiment</legend>
  <label><input type="radio" name="sentiment_{{ i }}" value="positive" required> positive</label>
  <label><input type="radio" name="sentiment_{{ i }}" value="mixed"> mixed</label>
  <label><input type="radio" name="sentiment_{{ i }}" value="negative"> negative</label>
</fieldset>
{% endblock %}
"""
REVIEWS = ["The price was fair and it arrived a day early.", "Broke after a week; support never answered.",
           "Great quality for the money, though delivery took ages.", "Exactly as described, friendly service.",
           "Overpriced and the stitching came apart.", "Fine, nothing special, shipping was quick.",
           "The seller refunded me at once when it arrived damaged.", "Cheap plastic, but it does the job."]
CROWD = """seed = 5
[[profile]]
name = "diligent"
count = 14
[[profile]]
name = "typo_prone"
count = 3
[[profile]]
name = "contrarian"
count = 3
"""


def run_campaign(tmp_path: Path, platform: str = "mturk") -> tuple[sqlite3.Connection, dict[str, str]]:
    scaffold("reviews", tmp_path)
    config = tmp_path / "config" / "reviews.toml"
    (tmp_path / "config" / "reviews.html.j2").write_text(PAGE, encoding="utf-8")
    # 24 items in 6 batches: 4 a batch, a page or two for each worker
    rows = [f"r-{k:03d},https://example.org/{k}.jpg,\"{REVIEWS[k % len(REVIEWS)]} (order {k})\"" for k in range(24)]
    (tmp_path / "config" / "reviews_items.csv").write_text("item_id,image_url,note\n" + "\n".join(rows) + "\n",
                                                           encoding="utf-8")
    text = config.read_text(encoding="utf-8")
    for old, new in (("images_per_hit = 3 ", "images_per_hit = 1 "), ("assignments_per_image = 3 ",
                     "assignments_per_image = 5 "), ("batches = 1 ", "batches = 6 ")):
        text = text.replace(old, new)
    config.write_text(text.replace('budget = "', 'budget = "9', 1), encoding="utf-8")
    crowd = tmp_path / "crowd.toml"
    crowd.write_text(CROWD, encoding="utf-8")
    db = tmp_path / "h.db"
    assert main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "runs"),
                 "--crowd", str(crowd), "--platform", platform]) in (0, 8)
    truth = json.loads((tmp_path / "runs" / "reviews" / "sim_workers.json").read_text(encoding="utf-8"))
    return sqlite3.connect(db), {w["worker_id"]: w["profile"] for w in truth}


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_constant_raters_on_one_item_pages_are_flagged_and_blocked_and_honest_workers_are_not(
        tmp_path: Path, platform: str) -> None:
    con, profile = run_campaign(tmp_path, platform)
    # pages (items) a worker did: a Prolific place may hold several of the one-item pages
    worked = {w: n for w, n in con.execute(
        "SELECT a.worker_id, COUNT(DISTINCT n.item_id) FROM answers n JOIN assignments a USING (assignment_id) "
        "WHERE a.batch > 0 AND n.item_id != '' GROUP BY a.worker_id")}
    flags = con.execute("SELECT worker_id, rule, detail FROM qc_flags WHERE rule IN ('item_blind', "
                        "'choice_straight_lining', 'choice_straight_lining_review')").fetchall()
    flagged = {w for w, _, _ in flags}
    blocking = {w for w, rule, _ in flags if not rule.endswith("_review")}
    blocked = {w for (w,) in con.execute("SELECT worker_id FROM blocks")}
    constant = {w for w, n in worked.items() if profile[w] == "contrarian" and n >= 3}
    honest = {w for w in worked if profile[w] in ("diligent", "typo_prone")}
    assert constant, "the crowd's constant raters did a few pages"
    # every one noticed; blocked where the run stands against every worker tested (three pages may only reach review)
    assert constant <= flagged and constant & blocked
    assert {w for w in constant if worked[w] >= 5} <= blocked
    assert not honest & blocking and not honest & blocked  # a review flag on an honest worker goes to a person
    # the evidence names the fields and the run: "helpful: '1' on all 3 items; ... probability 0.029; ..."
    assert all(" on all " in d and "probability" in d for w, rule, d in flags if rule.startswith("choice_straight"))


def _answers(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    """(worker, item, answer) of one yes/no/not sure choice, one page each."""
    from flows.custom.custom_review import ANSWER_COLUMNS

    return pd.DataFrame([{"assignment_id": f"{w}-{i}", "worker_id": w, "image_id": i, "field": "spam",
                          "kind": "choice", "answer": a, "telemetry": "", "telemetry_field": "spam", "options": 3,
                          "ticks": False, "scale": "choice 3"} for w, i, a in rows], columns=ANSWER_COLUMNS)


def test_a_worker_who_left_before_others_answered_their_items_is_blocked_when_they_do() -> None:
    from flows.custom.custom_review import RESPONSE_COLUMNS, custom_flags

    items = [f"i{k}" for k in range(8)]
    truth = ["no" if k % 2 else "yes" for k in range(8)]
    # batch 1: the constant rater answered 8 items first; batch 2: 30 others answer them
    early = _answers([("SAME", i, "not sure") for i in items])
    late = _answers([(f"W{j}", i, t) for j in range(30) for i, t in zip(items, truth, strict=True)])
    responses = pd.DataFrame([{"assignment_id": f"W{j}-i0", "worker_id": f"W{j}"} for j in range(30)],
                             columns=RESPONSE_COLUMNS)
    flags = custom_flags(responses, late, {"random_sample_share": 0.0}, ("choice_straight_lining",),
                         pd.concat([early, late], ignore_index=True))
    assert list(flags["worker_id"]) == ["SAME"] and list(flags["rule"]) == ["choice_straight_lining"]
    # a weaker run (3 items, p < 0.01 but not among 31 judged) is for a person to look at while the worker
    # works, not once they have left
    weak = _answers([("SAME", i, "not sure") for i in items[:3]])
    flags = custom_flags(responses, late, {"random_sample_share": 0.0}, ("choice_straight_lining",),
                         pd.concat([weak, late], ignore_index=True))
    assert flags.empty


def test_a_page_of_checkbox_groups_sent_unticked_goes_to_a_person_not_rejected() -> None:
    from qc.custom_rules import CUSTOM_POLICY, empty_answer
    from qc.decisions import decide

    # "which topics does the paragraph discuss?" with none ticked: the page let it through, perhaps none apply;
    # a page with a text box sent blank answers nothing
    responses = pd.DataFrame([{"assignment_id": "A1", "worker_id": "W1", "answered": 0, "fields": 1, "ticks": 1},
                              {"assignment_id": "A2", "worker_id": "W2", "answered": 0, "fields": 2, "ticks": 1}])
    flags = empty_answer(responses, {})
    assert dict(zip(flags["worker_id"], flags["rule"], strict=True)) == {"W1": "nothing_ticked", "W2": "empty_answer"}
    decided = decide(flags, responses, CUSTOM_POLICY).set_index("worker_id")
    assert decided.loc["W1", "action"] == "approve" and decided.loc["W1", "review"]
    assert decided.loc["W2", "action"] == "reject"
