"""The review loop on the Prolific route, end to end on the simulator (its Prolific API and
hitflow's task server): a person clears batch 1's queue through the page over HTTP, every
verdict reaches Prolific exactly once, a block puts the participant in the blocklist group, and
the next study is published with that block in force. The report compares people and rules."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from flows.campaigns.review_data import campaign_queue
from flows.core.decisions import Decision
from flows.core.ledger.store import Store
from flows.driver.operations import open_campaign_run
from flows.driver.review_demo import REJECT_REASON, decide_open_cards, sign_in
from flows.review.review_actions import apply_decision
from flows.sim.service.server import SimServer
from tests.review_helpers import form_fields, review_config, review_server, run_until_review

NAME = "vizwiz_captions"
VERDICT = {"approve": "APPROVED", "reject": "REJECTED"}


def _message(response: httpx.Response) -> str:
    return str(httpx.URL(response.headers["location"]).params["msg"])


def _finish(config: Path, url: str, db: Path, out: Path) -> None:
    """Later batches: a script takes the rules' advice, until the campaign is done."""
    while run_until_review(config, url, db, out, platform="prolific"):
        with open_campaign_run(str(db), NAME, progress=lambda _: None) as run:
            queue = campaign_queue(run.store, NAME, run.cfg.policy, run.cfg.review)
            for row in queue[queue["decided"] == ""].itertuples():
                apply_decision(run, Decision(row.auto_action, row.batch, row.worker_id, row.assignment_id,
                                             reason=REJECT_REASON, category="LOW_EFFORT", reviewer="script",
                                             idem_key=f"script:{row.item}"))


def test_a_person_clears_batch_1_on_prolific_and_study_2_excludes_their_block(tmp_path: Path) -> None:
    db, config = tmp_path / "h.db", review_config(tmp_path)
    text = config.read_text()
    assert "\nbatches = 5 " in text
    config.write_text(text.replace("\nbatches = 5 ", "\nbatches = 2 ", 1))  # one study after batch 1's review
    with SimServer(seed=2) as sim:
        assert run_until_review(config, sim.url, db, tmp_path, platform="prolific").startswith(
            "batch 1 waits for review")
        with review_server(db, NAME, reviewer="ann") as (server, site):
            assert site.run.platform == "prolific"  # the stored campaign reopens on its own platform
            web = sign_in(f"{server.url}/?token={site.login_token}")
            page = web.get("/").text
            assert '<select name="category">' in page
            reject = {**form_fields(page, "reject"), "category": "LOW_EFFORT"}
            sid, person = reject["assignment_id"], reject["worker_id"]
            short = web.post("/decide", data={**reject, "reason": "Too short for Prolific."})
            assert "not sent: Prolific needs a rejection category" in _message(short)
            assert sim.prolific.submissions[sid]["status"] == "AWAITING REVIEW"
            first = web.post("/decide", data={**reject, "reason": REJECT_REASON})
            again = web.post("/decide", data={**reject, "reason": REJECT_REASON})  # a retried POST
            assert _message(first).startswith("sent: reject") and "already sent" in _message(again)
            web.post("/decide", data=form_fields(page, "block"))  # the first card's participant
            decided = decide_open_cards(web)  # the rest as the rules advise
            bonus = {**form_fields(page, "bonus"), "amount": "0.50", "reason": "careful work"}
            assert "sent: bonus" in _message(web.post("/decide", data=bonus))
            assert "already sent" in _message(web.post("/decide", data=bonus))
            lift = _message(web.post("/decide", data=form_fields(page, "unblock")))
            assert lift.startswith("not sent:") and "Prolific's participant groups page" in lift
            assert "Nothing needs a person" in web.get("/", params={"show": "open"}).text
        on_prolific = sim.prolific.submissions[sid]
        assert on_prolific["status"] == "REJECTED" and on_prolific["rejection"] == {
            "category": "LOW_EFFORT", "message": REJECT_REASON}
        group = next(iter(sim.prolific.groups.values()))
        assert person in group["participants"]  # and still there: hitflow takes no one out
        paid = [b for b in sim.prolific.bonuses.values() if b["paid"]]
        assert len(paid) == 1 and paid[0]["rows"] == [(person, 50)]  # set up and paid once
        store = Store(db)
        people = store.rows("SELECT assignment_id, action FROM review_actions WHERE action IN ('approve', 'reject')")
        assert len(people) == 1 + decided.get("approve", 0) + decided.get("reject", 0)

        # the run goes on: batch 1's decisions and blocks, then study 2
        assert run_until_review(config, sim.url, db, tmp_path, platform="prolific") != ""
        assert all(sim.prolific.submissions[p["assignment_id"]]["status"] == VERDICT[p["action"]]
                   for p in people)  # Prolific holds each person's verdict ...
        for p in people:  # ... sent once: one ledger entry, and the bulk approval left it out
            assert len(store.rows("SELECT * FROM ledger WHERE idem_key LIKE ?", [f"%:{p['assignment_id']}"])) == 1
            kept = store.rows("SELECT action, applied FROM decisions WHERE assignment_id = ?", [p["assignment_id"]])
            assert kept == [{"action": p["action"], "applied": VERDICT[p["action"]]}]  # the decide step kept it
        bulk = json.loads(store.rows("SELECT params FROM ledger WHERE idem_key = ?",
                                     [f"{NAME}:b1:bulk-approve"])[0]["params"])
        assert not {p["assignment_id"] for p in people} & set(bulk["submission_ids"])
        batch_1 = [s for s in sim.prolific.submissions.values() if s["study_id"] == _study(store, 1)]
        assert {s["status"] for s in batch_1} <= {"APPROVED", "REJECTED", "RETURNED", "TIMED-OUT"}
        assert store.rows("SELECT status FROM ledger WHERE idem_key = ?", [f"{NAME}:block:{person}"]) == [
            {"status": "ok"}]  # the block step found the person's block settled
        study_2 = sim.prolific.studies[_study(store, 2)]
        assert {"filter_id": "participant_group_blocklist", "selected_values": [group["id"]]} in study_2["filters"]
        assert not [s for s in sim.prolific.submissions.values()
                    if s["study_id"] == study_2["id"] and s["participant_id"] == person]
        blocked_at = store.rows("SELECT created_at FROM ledger WHERE idem_key = ?", [f"{NAME}:block:{person}"])
        published = store.rows("SELECT created_at FROM ledger WHERE idem_key = ?", [f"{NAME}:b2:publish"])
        assert blocked_at[0]["created_at"] < published[0]["created_at"]

        _finish(config, sim.url, db, tmp_path)
    report = (tmp_path / NAME / "report.html").read_text()
    assert "People and the rules" in report
    row_1 = report.split('<table id="review">')[1].split("</tr>")[1]
    assert "<td>1</td>" in row_1 and "approve-&gt;reject x1" in row_1 and "keep-&gt;block x1" in row_1
    assert "<td>0</td><td></td></tr>" in row_1 + "</tr>"  # nothing of batch 1 left to the rules
    blocked = (tmp_path / NAME / "blocked_workers.csv").read_text()
    assert person in blocked


def _study(store: Store, batch: int) -> str:
    rows = store.rows("SELECT study_id FROM studies WHERE campaign = ? AND batch = ?", [NAME, batch])
    return str(rows[0]["study_id"])


def test_a_batch_nobody_reviews_is_decided_by_the_rules_before_prolifics_21_day_auto_approval(tmp_path: Path) -> None:
    """Prolific approves what still awaits review after 21 days: the gate stops waiting an hour
    before (the config's review_deadline_s) and the rules decide; before it, the batch waits."""
    from flows.platforms.prolific.submission_records import AUTO_APPROVAL_S
    from tests.conftest import advance

    db, config = tmp_path / "h.db", review_config(tmp_path)
    with SimServer(seed=2) as sim:
        assert run_until_review(config, sim.url, db, tmp_path, platform="prolific").startswith("batch 1 waits")
        store = Store(db)
        due = store.rows("SELECT MIN(auto_approval_time - submit_time) AS d FROM assignments WHERE batch = 1")[0]["d"]
        assert due == AUTO_APPROVAL_S
        advance(sim, AUTO_APPROVAL_S - 2 * 3600)  # two hours before: still the person's
        assert run_until_review(config, sim.url, db, tmp_path, platform="prolific").startswith("batch 1 waits")
        advance(sim, 2 * 3600)
        assert not run_until_review(config, sim.url, db, tmp_path, platform="prolific").startswith("batch 1")
    note = store.rows("SELECT review_note FROM batches WHERE campaign = ? AND batch = 1", [NAME])[0]["review_note"]
    assert note.endswith("open at the deadline: automatic")
    assert store.table("decisions").count_where("batch = 1") > 0
