"""The review queue (pure), the review page's access rules, and a person's decisions through the ledger."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pandas as pd
import pytest

from flows.core.config.config import load_config
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.sim.service.server import SimServer
from qc.decisions import DecisionPolicy
from qc.review_queue import build_queue, people_vs_rules
from tests.forked_hitflow import ForkServer
from tests.review_helpers import form_fields, review_config, review_server, run_until_review

FLAG_COLS = ["worker_id", "rule", "value", "threshold", "assignment_id", "image_id", "detail", "batch"]


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    flags = pd.DataFrame([
        ["W1", "random_sample", "", "", "A1", "", "sampled", 1],
        ["W2", "min_words", "2", "3", "A2", "i1", "too short", 1],
        ["W3", "caps_lock", "0.9", "0.5", "A3", "i2", "shouting", 1],
        ["W4", "quality_words", "1", "2", "A4", "i3", "", 2],
    ], columns=FLAG_COLS)
    assignments = pd.DataFrame([["A1", "W1", 1, 1000.0], ["A2", "W2", 1, 1100.0], ["A3", "W3", 1, 1200.0],
                                ["A5", "W5", 1, 1300.0], ["A4", "W4", 2, float("nan")]],
                               columns=["assignment_id", "worker_id", "batch", "auto_approval_time"])
    return flags, assignments


def test_queue_sample_and_flagged_modes() -> None:
    flags, assignments = _frames()
    actions = pd.DataFrame([[1, "W2", "A2", "approve", "ann"]],
                           columns=["batch", "worker_id", "assignment_id", "action", "reviewer"])
    sample = build_queue(flags, assignments, actions, DecisionPolicy(), "sample", now=900.0)
    assert list(sample["item"]) == ["a:A1"] and sample["seconds_left"].iloc[0] == 100.0
    full = build_queue(flags, assignments, actions, DecisionPolicy(), "flagged", now=900.0).set_index("item")
    assert set(full.index) == {"a:A1", "a:A2", "a:A3", "a:A4", "w:W2", "w:W3"}  # W4: one quality_words flag of 2
    assert full.loc["a:A2", "auto_action"] == "reject" and full.loc["a:A2", "decided"] == "approve"
    assert full.loc["w:W3", "why"] == "would_block" and full.loc["w:W3", "rules"] == "caps_lockx1"
    assert math.isnan(full.loc["a:A4", "seconds_left"])
    summary = people_vs_rules(full.reset_index()).set_index("batch")
    assert summary.loc[1, "overturned"] == 1 and summary.loc[1, "changes"] == "reject->approve x1"
    assert summary.loc[1, "open"] == 4 and summary.loc[2, "reviewed"] == 0


def test_a_block_no_rule_proposed_counts_as_overturning_keep() -> None:
    flags, assignments = _frames()
    actions = pd.DataFrame([[1, "W5", "", "block", "ann"], [1, "W3", "", "block", "ann"]],
                           columns=["batch", "worker_id", "assignment_id", "action", "reviewer"])
    full = build_queue(flags, assignments, actions, DecisionPolicy(), "flagged", now=900.0).set_index("item")
    assert full.loc["w:W5", ["why", "auto_action", "decided"]].tolist() == ["person", "keep", "block"]
    assert full.loc["w:W3", "why"] == "would_block" and list(full.index).count("w:W3") == 1
    assert people_vs_rules(full.reset_index()).set_index("batch").loc[1, "changes"] == "keep->block x1"
    sample = build_queue(flags, assignments, actions, DecisionPolicy(), "sample", now=900.0).set_index("item")
    assert sample.loc["w:W3", "auto_action"] == "block" and sample.loc["w:W5", "auto_action"] == "keep"


def test_review_keys_are_checked(tmp_path: Path) -> None:
    assert load_config(review_config(tmp_path, "sample", 60)).review_deadline_s == 60
    bad = review_config(tmp_path, "sometimes")
    with pytest.raises(ConfigError, match=r"\[policy\]\.review must be \"none\", \"sample\" or \"flagged\""):
        load_config(bad)
    assert load_config(Path(__file__).resolve().parents[1] / "config" / "vizwiz_captions.toml").review == "none"


@pytest.fixture(scope="module")
def waiting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The review demo's campaign waiting for review on batch 1, for the tests that only read it (a refused POST
    writes nothing, `hitflow review` serves it): its ledger and the message it stopped with."""
    folder = tmp_path_factory.mktemp("waiting")
    with SimServer(seed=3) as sim:
        yield folder / "h.db", run_until_review(review_config(folder), sim.url, folder / "h.db", folder)


def test_page_refuses_without_token_cookie_page_token_or_own_origin(waiting: tuple[Path, str]) -> None:
    db, stopped = waiting
    assert stopped.startswith("batch 1 waits for review") and "hitflow review vizwiz_captions" in stopped
    with review_server(db, "vizwiz_captions") as (server, site):
        assert httpx.get(server.url).status_code == 403
        assert httpx.get(f"{server.url}/?token=wrong").status_code == 403
        client = httpx.Client(base_url=server.url)
        login = client.get(f"/?token={site.login_token}")
        cookie = login.headers["set-cookie"]
        assert login.status_code == 303 and "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert httpx.get(f"{server.url}/?token={site.login_token}").status_code == 403  # one time only
        page = client.get("/")
        assert page.status_code == 200 and "default-src 'none'" in page.headers["content-security-policy"]
        fields = form_fields(page.text, "approve")
        origin = {"origin": server.url}
        assert client.post("/decide", data={**fields, "csrf": "forged"}, headers=origin).status_code == 403
        assert client.post("/decide", data=fields, headers={"origin": "http://evil.example"}).status_code == 403
        assert client.post("/decide", data=fields).status_code == 403  # no Origin at all
        rebound = client.get("/", headers={"host": "attacker.example"})
        assert rebound.status_code == 403
        assert httpx.post(f"{server.url}/decide", data=fields, headers=origin).status_code == 403  # no cookie
        assert not Store(db).rows("SELECT * FROM review_actions")
        # every answer, refusals and errors too, with the page's security headers; a favicon, not a 404
        others = [httpx.get(server.url), rebound, client.get("/nosuch"), client.get("/decide"),
                  httpx.get(f"{server.url}/favicon.ico")]
        assert [r.status_code for r in others] == [403, 403, 404, 405, 200]
        assert all(r.headers["x-content-type-options"] == "nosniff" and "default-src 'none'" in
                   r.headers["content-security-policy"] and r.headers["referrer-policy"] == "same-origin"
                   for r in [login, page, *others])


@pytest.mark.slow
def test_decisions_are_sent_once_and_the_run_resumes_with_them(sim, client, tmp_path: Path) -> None:
    db, config = tmp_path / "h.db", review_config(tmp_path)
    # three batches of the demo's four images, not five: batch 1 is the one decided by hand, batch 2 the one
    # the run resumes to; the later batches only cost a review stop and a report each
    config.write_text(re.sub(r"(?m)^batches = 5\b", "batches = 3", config.read_text()))
    assert run_until_review(config, sim.url, db, tmp_path, limit=LIMIT)
    with review_server(db, "vizwiz_captions", reviewer="ann") as (server, site):
        web = httpx.Client(base_url=server.url, headers={"origin": server.url})
        web.get(f"/?token={site.login_token}")
        page = web.get("/").text
        reject = {**form_fields(page, "reject"), "reason": "Please describe the picture, not the task."}
        first = web.post("/decide", data=reject)
        again = web.post("/decide", data=reject)  # a retry of the same POST
        assert "sent: reject" in httpx.URL(first.headers["location"]).params["msg"]
        assert "already sent, not sent again" in httpx.URL(again.headers["location"]).params["msg"]
        block = form_fields(page, "block")
        web.post("/decide", data=block)
        strike = dict(form_fields(page, "approve", 1))  # a caption struck on the second assignment
        image = Store(db).rows("SELECT item_id FROM answers WHERE assignment_id = ? AND field = 'caption'",
                               [strike["assignment_id"]])[0]["item_id"]
        web.post("/decide", data={**strike, "action": "strike_caption", "image_id": image,
                                  "idem_key": strike["idem_key"] + ":strike"})
        for _ in range(20):  # approve what is left; keep workers the rules would block
            left = web.get("/", params={"show": "open"}).text
            if "Nothing needs a person" in left:
                break
            web.post("/decide", data=form_fields(left, "approve") if 'class="approve"' in left.split(
                "</section>")[0] else form_fields(left, "unblock"))
        assert "Nothing needs a person" in web.get("/", params={"show": "open"}).text
    store = Store(db)
    rejected_id, worker = reject["assignment_id"], block["worker_id"]
    ledger = store.rows("SELECT * FROM ledger WHERE idem_key = ?", [f"vizwiz_captions:reject:{rejected_id}"])
    assert len(ledger) == 1 and ledger[0]["status"] == "ok"
    assert client.get_assignment(AssignmentId=rejected_id)["Assignment"]["AssignmentStatus"] == "Rejected"
    assert store.rows("SELECT reviewer FROM review_actions WHERE action = 'reject'")[0]["reviewer"] == "ann"
    assert run_until_review(config, sim.url, db, tmp_path, limit=LIMIT).startswith("batch 2 waits for review")
    decided = store.rows("SELECT action, reasons FROM decisions WHERE assignment_id = ?", [rejected_id])[0]
    assert decided["action"] == "reject" and decided["reasons"].startswith("reviewer ann")
    assert len(store.rows("SELECT * FROM ledger WHERE idem_key LIKE ?", [f"%:{rejected_id}"])) == 1  # never twice
    assert not store.rows("SELECT * FROM assignments WHERE batch = 2 AND worker_id = ?", [worker])
    blocked = store.rows("SELECT rules FROM blocks WHERE worker_id = ?", [worker])
    assert blocked and blocked[0]["rules"].startswith("reviewer ann")
    assert store.rows("SELECT status FROM ledger WHERE idem_key = ?", [f"vizwiz_captions:block:{worker}"]) == [
        {"status": "ok"}]  # the automatic block step found it settled and sent nothing more
    _finish(config, sim.url, db, tmp_path)
    data = json.loads((tmp_path / "vizwiz_captions" / "dataset.json").read_text())
    struck = [a for a in data["annotations"] if a["assignment_id"] == strike["assignment_id"]]
    assert {str(a["image_id"]) for a in struck if a["is_rejected"]} == {image}
    report = (tmp_path / "vizwiz_captions" / "report.html").read_text()
    assert "People and the rules" in report and 'id="review"' in report
    # batch 1 as the person decided it: the rejection and the unprompted block overturn the rules,
    # the approval agrees (batch, reviewed, agreed, overturned, how, left open); the seeded review
    # sample is drawn from captions in the plan's order since the page-import work, no longer the fetch threads'
    row_1 = report.split('<table id="review">')[1].split("</tr>")[1]
    cells = "<td>1</td><td>3</td><td>1</td><td>2</td><td>approve-&gt;reject x1, keep-&gt;block x1</td><td>0</td>"
    assert cells in row_1


LIMIT = 12  # images: three batches of four


def _finish(config: Path, url: str, db: Path, out: Path) -> None:
    """Clear every later batch's queue the way the rules would, until the campaign is done."""
    from flows.campaigns.review_data import campaign_queue
    from flows.core.decisions import Decision
    from flows.driver.operations import open_campaign_run
    from flows.review.review_actions import apply_decision

    while run_until_review(config, url, db, out, limit=LIMIT):
        with open_campaign_run(str(db), "vizwiz_captions") as run:
            queue = campaign_queue(run.store, "vizwiz_captions", run.cfg.policy, run.cfg.review)
            for row in queue[queue["decided"] == ""].itertuples():
                action = {"approve": "approve", "reject": "reject", "block": "block"}[row.auto_action]
                apply_decision(run, Decision(action, row.batch, row.worker_id, row.assignment_id,
                                             reason="rules", reviewer="script", idem_key=f"script:{row.item}"))


def test_deadline_near_lets_the_rules_decide_and_the_report_says_so(sim, tmp_path: Path) -> None:
    config = review_config(tmp_path, "flagged", deadline_s=259200)  # the whole auto-approval delay
    assert run_until_review(config, sim.url, tmp_path / "h.db", tmp_path, limit=10) == ""
    store = Store(tmp_path / "h.db")
    assert not store.rows("SELECT * FROM review_actions")
    assert all(d["applied"] for d in store.rows("SELECT applied FROM decisions"))
    report = (tmp_path / "vizwiz_captions" / "report.html").read_text()
    assert "open at the deadline: automatic" in report


def test_unblock_spares_the_worker_and_a_bonus_is_paid_once(sim, tmp_path: Path, capsys) -> None:
    from flows.campaigns.review_data import campaign_queue
    from flows.cli.main import main
    from flows.core.decisions import Decision
    from flows.driver.operations import open_campaign_run
    from flows.review.review_actions import apply_decision

    db, config = tmp_path / "h.db", review_config(tmp_path)
    # 4 images a batch: evidence of one HIT's captions is enough for a rate to propose a block
    config.write_text(config.read_text().replace("block_min_evidence = 5", "block_min_evidence = 1"))
    assert run_until_review(config, sim.url, db, tmp_path)
    assert main(["status", "vizwiz_captions", "--db", str(db)]) == 0
    shown = capsys.readouterr().out
    with open_campaign_run(str(db), "vizwiz_captions") as run:
        queue = campaign_queue(run.store, "vizwiz_captions", run.cfg.policy, "flagged")
        assert "next: batch 1: wait for review" in shown and f"review: {len(queue)} item(s) open" in shown
        worker = queue[queue["kind"] == "worker"].iloc[0]
        some = queue[queue["kind"] == "assignment"].iloc[0]
        for n, action in enumerate(("block", "unblock")):
            apply_decision(run, Decision(action, 1, worker.worker_id, reviewer="ann", idem_key=f"k{n}"))
        bonus = Decision("bonus", 1, some.worker_id, some.assignment_id, amount="0.50", reviewer="ann",
                         idem_key="bonus-1")
        assert not apply_decision(run, bonus)["repeat"] and apply_decision(run, bonus)["repeat"]
        with pytest.raises(Exception, match="bonus must be between"):
            apply_decision(run, Decision("bonus", 1, some.worker_id, some.assignment_id, amount="500.00",
                                         idem_key="bonus-2"))
        for row in queue[queue["kind"] == "assignment"].itertuples():
            apply_decision(run, Decision("approve", 1, row.worker_id, row.assignment_id, idem_key=row.item))
    assert len(sim.market.bonuses) == 1
    assert run_until_review(config, sim.url, db, tmp_path).startswith("batch 2 waits")
    store = Store(db)
    assert not store.rows("SELECT * FROM blocks WHERE worker_id = ?", [worker.worker_id])  # not blocked again
    lifted = store.rows("SELECT status FROM ledger WHERE operation = 'IncludeWorker'")
    assert lifted == [{"status": "ok"}]


def test_hitflow_review_prints_a_one_time_link(waiting: tuple[Path, str], hitflow_forks: ForkServer) -> None:
    import subprocess

    db, stopped = waiting
    assert stopped
    # forked from the session's fork server (tests/forked_hitflow.py): the command's own process, without
    # ~2 s of CPU importing hitflow again (what is tested is what it prints and serves, not its start)
    proc = hitflow_forks.popen(["review", "vizwiz_captions", "--db", str(db), "--reviewer", "ann"],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = ""
        while "token=" not in line:
            line = proc.stdout.readline()
            assert line, "hitflow review ended without printing its link"
        link = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=\S+", line)
        assert link and "reviewer ann" in line
        web = httpx.Client(base_url=link.group(1))
        assert web.get("/").status_code == 403
        assert web.get(link.group(0)).status_code == 303 and web.get("/").status_code == 200
        assert httpx.get(link.group(0)).status_code == 403  # the link works once
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_a_run_that_waits_for_review_says_so_without_calling_it_an_error(tmp_path: Path, capsys) -> None:
    from flows.cli.main import main

    config = review_config(tmp_path)
    argv = ["run", str(config), "--no-prefect", "--limit", "20", "--db", str(tmp_path / "h.db"), "--out",
            str(tmp_path)]
    assert main(argv) == 0
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith("hitflow: batch 1 waits for review") and "hitflow review vizwiz_captions" in said
