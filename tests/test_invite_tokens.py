"""Invite tokens and page signatures (itsdangerous, flows/taskserver/task_site.py) over the real task
server: a good invite opens a page; a tampered, expired, other-campaign or other-secret one gets
the same 403 page; a page signature is bound to its campaign, session and items."""

from __future__ import annotations

import base64
import dataclasses
import time
from typing import Any

import httpx

from flows.core.site_secrets import INVITE_MAX_AGE_S, invite_link, invited_name, page_signature, page_signature_valid
from tests.test_task_server import served  # noqa: F401  (the fixture)

REFUSAL = "invite token is not valid"
SECRET = b"s" * 32  # the served fixture's


def opened(s: dict[str, Any], link: str) -> httpx.Response:
    return s["http"].get(link.removeprefix(s["url"]))


def test_a_fresh_invite_opens_a_page_and_names_its_person(served) -> None:  # noqa: F811
    link = invite_link(served["site"].secret, served["url"], served["cfg"].name, "ann")
    assert opened(served, link).status_code == 200
    rows = served["store"].rows("SELECT participant_id, session_id FROM task_sessions")
    assert [r["participant_id"] for r in rows] == ["invite:ann"] and rows[0]["session_id"].startswith("inv-")


def test_tampered_expired_and_foreign_invites_get_the_same_refusal(served) -> None:  # noqa: F811
    cfg, now = served["cfg"], time.time()
    token = invite_link(SECRET, "", cfg.name, "ann").split("invite=")[1]
    payload, stamp, sig = token.split(".")
    other_name = base64.urlsafe_b64encode(b'"bob"').decode().rstrip("=")
    window = served["site"].invite_window_s(cfg)
    bad = {
        "tampered signature": f"{payload}.{stamp}.{sig[:-3]}{'AAA' if not sig.endswith('AAA') else 'BBB'}",
        "another name under ann's signature": f"{other_name}.{stamp}.{sig}",
        "expired": invite_link(SECRET, "", cfg.name, "ann", clock=lambda: now - window - 60).split("invite=")[1],
        "another campaign's": invite_link(SECRET, "", "other_campaign", "ann").split("invite=")[1],
        "another server's secret": invite_link(b"t" * 32, "", cfg.name, "ann").split("invite=")[1],
        "the old hand-made format": "ann.0123456789abcdef",
    }
    for why, value in bad.items():
        page = served["http"].get(f"/task/{cfg.name}", params={"invite": value})
        assert (page.status_code, REFUSAL in page.text) == (403, True), why
    assert served["store"].table("task_sessions").count == 0


def test_an_invite_lasts_a_month_or_a_whole_batch_window() -> None:
    made = 1_800_000_000.0
    token = invite_link(SECRET, "", "c", "ann", clock=lambda: made).split("invite=")[1]
    assert invited_name(SECRET, "c", token, INVITE_MAX_AGE_S, lambda: made + INVITE_MAX_AGE_S - 5) == "ann"
    assert invited_name(SECRET, "c", token, INVITE_MAX_AGE_S, lambda: made + INVITE_MAX_AGE_S + 5) == ""
    assert invited_name(SECRET, "c", token, 90 * 86400, lambda: made + 60 * 86400) == "ann"


def test_a_page_signature_is_bound_to_campaign_session_and_items() -> None:
    sig = page_signature(SECRET, "c", "sess-1", '["a", "b"]')
    assert page_signature_valid(SECRET, "c", "sess-1", '["a", "b"]', sig)
    assert not page_signature_valid(SECRET, "c", "sess-1", '["a", "c"]', sig)
    assert not page_signature_valid(SECRET, "c", "sess-2", '["a", "b"]', sig)
    assert not page_signature_valid(SECRET, "d", "sess-1", '["a", "b"]', sig)
    assert not page_signature_valid(b"t" * 32, "c", "sess-1", '["a", "b"]', sig)
    assert not page_signature_valid(SECRET, "c", "sess-1", '["a", "b"]', "")


def test_a_served_sites_invite_sessions_are_random_and_only_a_rehearsals_come_from_its_seed(served) -> None:  # noqa: F811
    # Two invitees' sessions on the served site: 128 random bits each (32 hex digits), unrelated to
    # what a rehearsal with any seed would derive for the same person and count.
    site = served["site"]
    for name in ("ann", "bob"):
        assert opened(served, invite_link(site.secret, served["url"], served["cfg"].name, name)).status_code == 200
    ids = {r["participant_id"]: r["session_id"] for r in served["store"].rows("SELECT * FROM task_sessions")}
    assert all(len(i) == len("inv-") + 32 and int(i[4:], 16) >= 0 for i in ids.values())
    rehearsal = dataclasses.replace(site, session_seed=1)
    derived = {rehearsal.invite_session_id(served["cfg"].name, p, 0) for p in ids}
    assert derived.isdisjoint(ids.values()) and len(derived) == 2
    again = dataclasses.replace(site, session_seed=1)  # another run with the same seed
    first = rehearsal.invite_session_id("c", "invite:ann", 0)
    assert first == again.invite_session_id("c", "invite:ann", 0) != rehearsal.invite_session_id("c", "invite:ann", 1)
    assert site.invite_session_id("c", "invite:ann", 0) != site.invite_session_id("c", "invite:ann", 0)
