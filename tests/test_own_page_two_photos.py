"""A page of one's own imported as a user imports it (`hitflow new --from PAGE --items CSV`): two photos an
item, "which is sharper", control items, every response sent to review, run on the MTurk simulator. What the
user reads of it: the review card shows both photos (the CSP naming their hosts, a hostile value never an
image), one count of a worker's control answers; after a person decided everything, `hitflow status` says so,
and `hitflow cancel` gives one count of what it cancelled."""

from __future__ import annotations

import csv
import re
from html import escape
from typing import Any

import pytest

from flows.campaigns.block_evidence import control_scores_so_far
from flows.cli.main import main
from flows.core.ledger.store import Store
from flows.driver.review_demo import decide_open_cards, sign_in
from tests.review_helpers import review_server

PAGE = """<p>Which photo is sharper?</p>
<img src="${left_url}" alt="left"> <img src="${right_url}" alt="right">
<label><input type="radio" name="sharper" value="left" required> left</label>
<label><input type="radio" name="sharper" value="right"> right</label>
"""
# the page pictures both columns: a URL with an image's extension, and one without (a picture service's)
PAIRS = {f"pair{n}": (f"https://example.org/a/{n}.jpg", f"https://img.example.net/photo?id={n}") for n in range(6)}
PAIRS["pair6"] = ("javascript:alert(1)//.jpg", "https://evil.example;script-src *")  # never an image, nor a host
PAIRS["pair7"] = ('https://example.org/q.jpg" onerror="alert(1)', "https://img.example.net/photo?id=7")
CONTROLS = {f"c{n}": (f"https://example.org/c/{n}.jpg", f"https://img.example.net/photo?id=c{n}") for n in range(3)}


def hitflow(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(list(args))
    said = capsys.readouterr()
    assert code == 0, said.out + said.err
    return said.out + said.err


@pytest.fixture(scope="module")
def sharp(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The campaign waiting for review, and its review page and CSP as first served (later tests decide)."""
    folder = tmp_path_factory.mktemp("sharp")
    (folder / "sharp.html").write_text(PAGE, encoding="utf-8")
    with (folder / "items.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("item_id", "left_url", "right_url"), *((k, *v) for k, v in PAIRS.items())])
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert main(["new", "sharp", "--from", "sharp.html", "--items", "items.csv"]) == 0
        with (folder / "config" / "sharp_controls.csv").open("w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows([("item_id", "field", "answer", "left_url", "right_url"),
                                     *((k, "sharper", "left", *v) for k, v in CONTROLS.items())])
        config = folder / "config" / "sharp.toml"
        text = config.read_text(encoding="utf-8")
        for old, new in (('# controls = "sharp_controls.csv"', 'controls = "sharp_controls.csv"'),
                         ("# control_share = 0.1 ", "control_share = 0.25"),
                         ("random_sample_share = 0.1", "random_sample_share = 1.0"),
                         ("[policy]\n", '[policy]\nreview = "flagged"\n')):
            assert old in text, old
            text = text.replace(old, new)
        config.write_text(text, encoding="utf-8")
        assert main(["run", str(config), "--no-prefect"]) == 0
    db = folder / "runs" / "hitflow.db"
    with review_server(db, "sharp") as (server, site):
        web = sign_in(f"{server.url}/?token={site.login_token}")
        page = web.get("/")
        web.close()
    return {"folder": folder, "db": db, "html": page.text, "csp": page.headers["content-security-policy"]}


def cards(html: str) -> list[str]:
    return re.findall(r'<section class="card .*?</section>', html, re.S)


def test_a_two_photo_card_shows_both_photos_and_no_hostile_value_as_one(sharp: dict[str, Any]) -> None:
    figures = dict(re.findall(r'<figure class="answer[^"]*" data-answered="([^"]+)">(.*?)</figure>', sharp["html"],
                              re.S))
    shown = {**PAIRS, **CONTROLS}
    assert set(figures) >= {"pair0", "pair6", "pair7"}, sorted(figures)
    for item, figure in figures.items():
        sources = re.findall(r'<img src="([^"]*)"', figure)
        if item in ("pair6", "pair7"):
            continue
        assert sources == [escape(u) for u in shown[item]], (item, figure)  # both photos, in the page's order
        assert "<dd>" not in figure  # not their URLs as text
    hostile = figures["pair6"]
    assert "<img" not in hostile and escape(PAIRS["pair6"][0]) in hostile  # javascript: is text, escaped
    assert 'onerror="alert(1)"' not in sharp["html"]  # the quote in pair7's URL stays inside its attribute
    img_src = re.search(r"img-src ([^;]*)", sharp["csp"])[1]  # type: ignore[index]
    assert img_src.split() == ["'self'", "data:", "https://example.org", "https://img.example.net"], sharp["csp"]


def test_a_card_counts_a_workers_control_answers_once(sharp: dict[str, Any]) -> None:
    scores = control_scores_so_far(Store(sharp["db"]), "sharp", 10**9)
    assert scores is not None and len(scores)
    counted = {str(r.worker_id): f"{r.correct} of {r.controls} right" for r in scores.itertuples(index=False)}
    both = 0
    for card in cards(sharp["html"]):
        worker = re.search(r'worker <code class="worker">([^<]+)</code>', card)[1]  # type: ignore[index]
        said = re.findall(r"\d+ of \d+ right", card)
        assert said == ([counted[worker]] if worker in counted else []), (worker, said)
        both += 'class="pooled"' in card and worker in counted
    assert both  # a card with the pooled rule's line and control answers: they are counted once there too


def test_status_and_cancel_after_a_person_decided_everything(sharp: dict[str, Any],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    db = str(sharp["db"])
    with review_server(sharp["db"], "sharp") as (server, site):
        web = sign_in(f"{server.url}/?token={site.login_token}")
        decide_open_cards(web)
        web.close()
    decided = Store(db).rows("SELECT count(*) AS n FROM assignments a WHERE campaign = 'sharp' AND NOT EXISTS "
                             "(SELECT 1 FROM decisions d WHERE d.campaign = a.campaign AND d.assignment_id = "
                             "a.assignment_id AND d.applied != '')")
    assert decided[0]["n"] == 0  # every assignment approved or rejected on the platform
    status = hitflow(capsys, "status", "sharp", "--db", db)
    assert "wait for review" not in status and "  batch 1: decided (next: block flagged workers);" in status, status
    said = hitflow(capsys, "cancel", "sharp", "--db", db)
    lines = [line for line in said.splitlines() if line.startswith(("cancel", "sharp cancelled"))]
    assert lines[0] == "cancel: 11 finished HIT(s) deleted, their work decided", said  # not "closed"
    assert lines[1].startswith("sharp cancelled: closed 0 HITs still taking work; the partial dataset"), said
    status = hitflow(capsys, "status", "sharp", "--db", db)
    assert "unfinished" not in status and "batch 1: decided (all its work; stopped by the cancel)" in status, status
    assert "next: nothing (cancelled once every batch's work was in and decided)" in status
