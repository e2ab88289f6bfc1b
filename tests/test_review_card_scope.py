"""A review card shows what its decision acts on. On a one-item page, a card titled with one assignment listed
the worker's three items (their other assignments' too), and the next card the same three: which one
"approve" would act on was not to be seen. An assignment's card now shows that assignment's work alone (a
worker's card, for a block, the worker's in the batch), and a control item answered otherwise than known
is marked so."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from flows.cli.main import main
from flows.core.ledger.store import Store
from flows.driver.operations import ledger_run
from flows.review.review_cards import queue_cards
from tests.review_helpers import review_server
from tests.test_own_page_review import own_page


def test_an_assignment_card_shows_its_own_work_and_marks_a_control_answered_wrongly(tmp_path: Path, capsys) -> None:
    config, db = own_page(tmp_path, capsys), tmp_path / "h.db"
    assert main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "runs")]) == 0
    run = ledger_run(str(db), "rate")
    store = Store(db)
    # one control answer the other way round: a worker who got it wrong (the seeded crowd got them all right)
    control = store.rows("SELECT x.assignment_id, x.item_id, x.value FROM answers x WHERE x.campaign = 'rate' AND "
                         "x.field = 'has_text' AND x.item_id LIKE 'c%' AND x.value IN ('yes', 'no') LIMIT 1")[0]
    store.execute("UPDATE answers SET value = ? WHERE campaign = 'rate' AND assignment_id = ? AND item_id = ? AND "
                  "field = 'has_text'", [{"yes": "no", "no": "yes"}[control["value"]], control["assignment_id"],
                                         control["item_id"]])
    items = {}
    for r in store.rows("SELECT assignment_id, item_id FROM answers WHERE campaign = 'rate' AND item_id != ''"):
        items.setdefault(r["assignment_id"], set()).add(r["item_id"])
    given = {(r["assignment_id"], r["item_id"]): r["value"] for r in store.rows(
        "SELECT assignment_id, item_id, value FROM answers WHERE campaign = 'rate' AND field = 'has_text'")}
    wrong = right = busy = 0
    pages = queue_cards(run, "flagged", {}, now=run.clock())["pages"]["of"]
    for number in range(1, pages + 1):
        for card in queue_cards(run, "flagged", {"page": str(number)}, now=run.clock())["cards"]:
            if not card["assignment_id"]:  # a worker's card: their work under a worker-level flag, marks and all
                wrong += sum(bool(r.wrong) for r in card["rows"])
                continue
            assert {r.assignment_id for r in card["rows"]} == {card["assignment_id"]}  # its own work alone
            assert {r.item_id for r in card["rows"]} == items[card["assignment_id"]]
            busy += card["assignments"] > 1  # the worker did more in the batch: left to their own cards
            for row in card["rows"]:
                if row.known:
                    [(_, known)] = row.known
                    answered_wrongly = given[(row.assignment_id, row.item_id)].strip() not in ("", known)
                    assert row.wrong == (("has_text",) if answered_wrongly else ())
                    wrong, right = wrong + answered_wrongly, right + (not answered_wrongly)
    assert busy and right and wrong  # workers with several assignments in a batch; controls answered both ways
    with review_server(db, "rate") as (server, site):
        web = httpx.Client(base_url=server.url, headers={"origin": server.url})
        web.get(f"/?token={site.login_token}")
        html = "".join(web.get(f"/?page={n}").text for n in range(1, pages + 1))
    assert html.count("answered wrongly") == wrong
    assert not re.search(r"<td>\[-\d", html)  # no threshold reads negative seconds
