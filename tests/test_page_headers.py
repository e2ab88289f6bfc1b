"""Every response of the local pages (``hitflow ui``, its review queues and reports) carries a CSP and
``X-Content-Type-Options: nosniff``, and sends its referrer to its own origin only, whatever its status: the
overview's gate in front of a report or a review queue answered 403 and 303 without them. A browser's
/favicon.ico gets a picture, not a 404 in its console."""

from __future__ import annotations

from pathlib import Path

import httpx

from flows.core.ledger.store import Store
from flows.driver.campaign_status import campaign_status
from flows.review.overview_app import OverviewServer, OverviewSite


def _guarded(reply: httpx.Response) -> bool:
    csp = reply.headers.get("content-security-policy", "")
    return ("default-src 'none'" in csp and reply.headers.get("x-content-type-options") == "nosniff"
            and reply.headers.get("referrer-policy") == "same-origin")


def test_every_response_of_the_overview_has_the_security_headers(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    Store(db)  # an empty ledger: no campaign, so no report and no review queue to give
    site = OverviewSite(db_path=db, out_root=tmp_path / "runs", read_status=campaign_status, open_run=None)
    with OverviewServer(site) as server:
        stranger = httpx.Client(base_url=server.url)
        replies = {"no cookie": stranger.get("/"), "wrong link": stranger.get("/?token=wrong"),
                   "report, no cookie": stranger.get("/report/x"), "queue, no cookie": stranger.get("/review/x/"),
                   "foreign host": stranger.get("/", headers={"host": "evil.example"})}
        assert {why: r.status_code for why, r in replies.items()} == dict.fromkeys(replies, 403)
        person = httpx.Client(base_url=server.url)
        replies["sign-in"] = person.get(f"/?token={site.login_token}")
        assert replies["sign-in"].status_code == 303
        signed_in = {"page": person.get("/"), "status": person.get("/status.json"),
                     "no such report": person.get("/report/nosuch"), "no such queue": person.get("/review/nosuch/"),
                     "no such page": person.get("/nosuch"), "POST to the page": person.post("/", data={"a": "b"}),
                     "favicon": stranger.get("/favicon.ico")}
        assert {why: r.status_code for why, r in signed_in.items()} == {
            "page": 200, "status": 200, "no such report": 403, "no such queue": 403, "no such page": 404,
            "POST to the page": 405, "favicon": 200}
        replies.update(signed_in)
    assert [why for why, reply in replies.items() if not _guarded(reply)] == []
    favicon = replies["favicon"]
    assert favicon.headers["content-type"].startswith("image/svg+xml") and favicon.text.startswith("<svg")
