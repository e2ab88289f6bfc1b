"""Review shows the work on a page of one's own: with ``review = "flagged"``, control items
and the starter page of `hitflow new`, every review card lists each item the worker answered with the
item's columns the page showed, every answer field by field (the text with how it was typed), and a
control item's known answer beside the worker's; on the MTurk and the Prolific simulators, through the CLI
as a person runs it and through the review page itself."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import httpx
import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.ledger.store import Store
from flows.driver.operations import ledger_run
from flows.review.review_cards import queue_cards
from tests.review_helpers import review_server

FIELDS = {"description": "text", "has_text": "choice", "problems": "choice", "setting": "choice", "people": "number"}


def own_page(tmp_path: Path, capsys) -> Path:
    """`hitflow new rate`, with nine items, three control items mixed into the pages, and every response
    (a random sample of all of them) waiting for a person."""
    assert main(["new", "rate", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    folder = tmp_path / "config"
    rows = [{"item_id": f"p{n}", "image_url": f"https://example.org/p/{n}.jpg", "note": f"A {w} on a table."}
            for n, w in enumerate(["cup", "lamp", "book", "plate", "phone", "key", "pen", "bowl", "clock"])]
    pd.DataFrame(rows).to_csv(folder / "rate_items.csv", index=False)
    controls = [{"item_id": f"c{n}", "field": "has_text", "answer": answer, "image_url": f"https://example.org/c/{n}.jpg",
                 "note": note} for n, (answer, note) in enumerate([("yes", "A stop sign."), ("no", "A bare wall."),
                                                                   ("yes", "A shop sign.")])]
    pd.DataFrame(controls).to_csv(folder / "rate_controls.csv", index=False)
    config = folder / "rate.toml"
    text = config.read_text(encoding="utf-8")
    text = re.sub(r'(?m)^budget = "[^"]*"', 'budget = "200.00 USD"', text)
    text = text.replace("random_sample_share = 0.1", "random_sample_share = 1.0")
    text = text.replace("[policy]\n", '[policy]\nreview = "flagged"\n')
    text = text.replace('# controls = "NAME_controls.csv"'.replace("NAME", "rate"), 'controls = "rate_controls.csv"')
    text = text.replace("# control_share = 0.1 ", "control_share = 0.25")
    config.write_text(text, encoding="utf-8")
    assert 'controls = "rate_controls.csv"' in text and "control_share = 0.25" in text
    return config


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_every_card_shows_the_answers_field_by_field_and_controls_beside_their_answers(tmp_path: Path, capsys,
                                                                                       platform: str) -> None:
    config, db = own_page(tmp_path, capsys), tmp_path / "h.db"
    assert main(["run", str(config), "--no-prefect", "--platform", platform, "--db", str(db), "--out",
                 str(tmp_path / "runs")]) == 0
    said = capsys.readouterr()
    assert "waits for review" in said.err and "stop it (Ctrl-C) when the queue is clear" in said.err
    run = ledger_run(str(db), "rate")
    page = queue_cards(run, "flagged", {}, now=run.clock())
    stored = {(r["assignment_id"], r["item_id"], r["field"]): r["value"] for r in Store(db).rows(
        "SELECT assignment_id, item_id, field, value FROM answers")}
    items = {r["item_id"]: r for r in csv.DictReader((config.parent / "rate_items.csv").open(encoding="utf-8"))}
    items |= {r["item_id"]: r for r in csv.DictReader((config.parent / "rate_controls.csv").open(encoding="utf-8"))}
    controls_seen = 0
    assert page["cards"] and page["unit"] == "answer"
    for card in page["cards"]:
        assert card["rows"] and 1 <= card["from_assignments"] <= card["assignments"]
        for row in card["rows"]:
            answers = {field: (kind, value) for field, kind, value, _ in row.answers}
            assert {f: k for f, (k, _) in answers.items()} == FIELDS  # every field the page asks, with its kind
            for field, (_, value) in answers.items():
                assert value == stored[(row.assignment_id, row.item_id, field)]  # as the worker gave it
            assert dict(row.shown)["note"] == items[row.item_id]["note"]  # the item's column the page showed
            assert row.images == (("image_url", items[row.item_id]["image_url"]),)
            text, typed = next((value, words) for field, _, value, words in row.answers if field == "description")
            assert typed.startswith(("typed", "no telemetry")) if text else typed == ""  # how the text came in
            if row.item_id.startswith("c"):
                controls_seen += 1
                assert row.known == (("has_text", items[row.item_id]["answer"]),)
            else:
                assert row.known == ()
    assert controls_seen  # the cards' pages held control items, shown with their known answers
    with review_server(db, "rate") as (server, site):
        web = httpx.Client(base_url=server.url, headers={"origin": server.url})
        web.get(f"/?token={site.login_token}")
        html = web.get("/").text
    assert "the captions of" not in html and "no answer stored" not in html
    assert html.count('data-field="has_text"') == sum(len(c["rows"]) for c in page["cards"])
    assert re.search(r"control item: the known has_text is <strong>(yes|no)</strong>", html)
    assert re.search(r'<dt>note</dt><dd>A [a-z ]+\.</dd>', html)
    # the page in the route's words: a Prolific participant's submission is not an MTurk assignment
    work, works = ("submission", "submissions") if platform == "prolific" else ("assignment", "assignments")
    page_words = re.sub(r"<[^>]+>", " ", html)
    assert f"&middot; {work} <code>" in html and f"<th>{works}</th>" in html
    assert (re.search(r"\bassignments?\b", page_words) is None) == (platform == "prolific")
