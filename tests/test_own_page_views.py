"""A newcomer's own page (a sentiment page with an optional comment, control items, ``review = "flagged"``) on
MTurk-sim and Prolific-sim, through the CLI as a person runs it: every view speaks the
route's words (HITs and assignments on MTurk; studies, places and submissions on Prolific); while a batch
waits for review the report exists, marked so, and the ``ui`` serves it; the run's "review done" line, ``hitflow
status`` and the review queue count the same items a person decided; the queue's "keep worker" is recorded as
a keep; the finished own-page report has "People and the rules"; and ``hitflow aggregate`` on the campaign's
dataset.csv with ``--field`` gives its answers.csv byte for byte."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import httpx
import pytest

from bench.newcomer_kit import edit_config, write_sentiment
from flows.cli.main import main
from flows.core.ledger.store import Store
from flows.driver.campaign_status import campaign_status
from flows.driver.operations import open_campaign_run
from flows.driver.review_demo import decide_open_cards, sign_in
from flows.review.overview_app import OverviewServer, OverviewSite
from flows.review.review_app import ReviewServer, ReviewSite
from tests.review_helpers import form_fields

NAME = "feel"
# the route's own words, and the other routes' that must not show (the Prolific route said "0 HIT(s); assignments")
WORDS = {"mturk": (("HITs", "assignments", "worker(s) blocked"), ("study", "studies", "submissions", "participant")),
         "prolific": (("study", "places", "submissions", "participant(s) blocked"), ("HIT", "assignment", "worker"))}


def own_page(folder: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """`hitflow new`, a sentiment page of 20 reviews and 6 controls, review = "flagged", one batch (the views are
    read while it waits and once it ends; a run that goes on to a second batch after a review: test_review.py and
    test_review_prolific.py)."""
    assert main(["new", NAME, "--dir", str(folder)]) == 0
    config = folder / "config" / f"{NAME}.toml"
    write_sentiment(config.parent, NAME, items=20, controls=6)
    missing = edit_config(config, {"images_per_hit": "5", "assignments_per_image": "3", "batches": "1",
                                   "control_share": "0.2", "controls": f'"{NAME}_controls.csv"',
                                   "budget": '"200.00 USD"'})
    assert not missing, missing
    config.write_text(config.read_text(encoding="utf-8").replace("[policy]\n", '[policy]\nreview = "flagged"\n', 1),
                      encoding="utf-8")
    capsys.readouterr()
    return config


def hitflow(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(list(args))
    said = capsys.readouterr()
    assert code == 0, said.out + said.err
    return said.out + said.err


def decide_queue(db: Path) -> None:
    """Every open card decided as the rules advise, through the review page as a person's browser does."""
    with open_campaign_run(str(db), NAME, progress=lambda _: None) as run:
        site = ReviewSite(run, "ann", run.cfg.review)
        with ReviewServer(site) as server:
            web = sign_in(f"{server.url}/?token={site.login_token}")
            decide_open_cards(web)
            web.close()


def queue_decided_by_person(db: Path, batch: int) -> int:
    """The review queue page's cards of ``batch`` that carry a person's verdict."""
    with open_campaign_run(str(db), NAME, progress=lambda _: None) as run:
        site = ReviewSite(run, "ann", run.cfg.review)
        with ReviewServer(site) as server:
            web = sign_in(f"{server.url}/?token={site.login_token}")
            page = web.get("/", params={"batch": str(batch)}).text
            web.close()
    cards = re.findall(r'<section class="card .*?</section>', page, re.S)
    return sum('class="verdict"' in c for c in cards)


def keep_one_worker(db: Path) -> str:
    """Press "keep worker" on the first worker card (a block the rules proposed); the worker kept."""
    with open_campaign_run(str(db), NAME, progress=lambda _: None) as run:
        site = ReviewSite(run, "ann", run.cfg.review)
        with ReviewServer(site) as server:
            web = sign_in(f"{server.url}/?token={site.login_token}")
            page = web.get("/", params={"show": "open"}).text
            cards = [c for c in re.findall(r'<section class="card open".*?</section>', page, re.S)
                     if ">keep worker</button>" in c]
            assert cards, "no worker card open: the seed no longer proposes a block in batch 1"
            fields = form_fields(cards[0], "unblock")
            assert fields["action"] == "keep"
            assert web.post("/decide", data=fields).status_code in (200, 303)
            web.close()
    return fields["worker_id"]


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_an_own_page_campaign_reads_the_same_in_every_view(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch, platform: str) -> None:
    monkeypatch.chdir(tmp_path)
    config = own_page(tmp_path, capsys)
    db, out = tmp_path / "runs" / "hitflow.db", tmp_path / "runs" / NAME
    # a crowd with one contrarian in ten, so that batch 1 proposes a block to keep on both routes (with the
    # default crowd, whether a batch of 9 responses holds a bad worker is the draw's)
    crowd = Path(__file__).resolve().parents[1] / "config" / "crowds" / "straight_liners.toml"
    run = ["run", str(config), "--no-prefect", "--platform", platform, "--crowd", str(crowd)]
    said = hitflow(capsys, *run)
    assert "batch 1 waits for review" in said
    own, others = WORDS[platform]

    # the run and status name the platform, in the route's words; a run stopped for a person says so
    label = {"mturk": "MTurk", "prolific": "Prolific"}[platform]
    first = next(line for line in said.splitlines() if not line.startswith("note: "))  # the config's notes first
    assert first.startswith("target: simulator") and first.endswith(f"({label} API)")
    status = hitflow(capsys, "status", NAME)
    assert status.startswith(f"{NAME} (waiting for review) on {label} via simulator"), status
    batch_lines = "\n".join(line for line in status.splitlines() if line.startswith("  batch "))
    assert all(word in batch_lines for word in own), batch_lines
    assert not any(re.search(rf"\b{w}", batch_lines) for w in others), batch_lines

    # the report of the work so far, marked, and the ui serves it and says so, in the route's words
    report = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="waiting"' in report and f"Target: {label} via simulator" in report
    site = OverviewSite(db_path=db, out_root=tmp_path / "runs", read_status=campaign_status)
    with OverviewServer(site) as server, httpx.Client(base_url=server.url, follow_redirects=True) as web:
        page = web.get(f"/?token={site.login_token}").text
        served = web.get(f"/report/{NAME}")
    assert served.status_code == 200 and 'id="waiting"' in served.text
    assert "(waiting for review: the work so far)" in page and f"On {label} via simulator" in page
    rows = page.split('<table class="batches">')[1].split("</table>")[0]
    assert not any(re.search(rf"\b{w}", rows) for w in others), rows

    # a person keeps one proposed block and decides the rest; every view counts the same items
    kept = keep_one_worker(db)
    decide_queue(db)
    actions = sqlite3.connect(db).execute("SELECT action FROM review_actions WHERE worker_id = ? AND campaign = ?",
                                          [kept, NAME]).fetchall()
    assert actions[0] == ("keep",), actions  # recorded as what it is, not "unblock"
    again = hitflow(capsys, *run)
    done = re.search(r"batch 1: review done \((\d+) item\(s\) decided by a person", again)
    assert done, again
    status = hitflow(capsys, "status", NAME)
    listed = re.search(r"decided by people: batch 1: (\d+) item\(s\)", status)
    assert listed and listed[1] == done[1], status
    assert queue_decided_by_person(db, 1) == int(done[1])
    assert kept not in {r["worker_id"] for r in Store(db).rows("SELECT worker_id FROM blocks")}

    # the campaign ends: its own-page report has People and the rules, and no waiting mark
    while "waits for review" in again:
        decide_queue(db)
        again = hitflow(capsys, *run)
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "<h2>People and the rules</h2>" in report and 'id="waiting"' not in report

    # hitflow aggregate on the campaign's dataset.csv with --field: its answers.csv, byte for byte (blocked
    # workers' labels, which the campaign's answers leave out, are left out by aggregate too: it reads the
    # blocked_workers.csv beside the dataset)
    hitflow(capsys, "aggregate", str(out / "dataset.csv"), "--field", "sentiment", "--out",
            str(tmp_path / "mine" / "answers.csv"))
    assert (tmp_path / "mine" / "answers.csv").read_bytes() == (out / "answers.csv").read_bytes()
    assert (tmp_path / "mine" / "workers.csv").read_bytes() == (out / "workers.csv").read_bytes()
    hitflow(capsys, "aggregate", NAME, "--db", str(db), "--field", "sentiment", "--out", str(tmp_path / "b.csv"))
    assert (tmp_path / "b.csv").read_bytes() == (out / "answers.csv").read_bytes()
    hitflow(capsys, "aggregate", NAME, "--field", "sentiment", "--out", str(tmp_path / "c.csv"))  # the default ledger
    assert (tmp_path / "c.csv").read_bytes() == (out / "answers.csv").read_bytes()
