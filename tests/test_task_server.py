"""The task server over real HTTP: balanced units, no item twice, stored before it answers,
idempotent resubmits, refusals with a clear page, nothing else served."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.core.config.config import load_config
from flows.core.http_clients import http_client, http_get
from flows.core.ledger.store import Store
from flows.core.pages.mturk_forms import form_fields, parse_answer_xml
from flows.core.site_secrets import completion_code, invite_link
from flows.platforms.mturk import adapter as mturk
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import TaskServer
from flows.taskserver.task_units import choose_unit

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"
CAPTION = "A red mug with a white handle sits on a wooden kitchen table."


@pytest.fixture
def served(ledger_location: str) -> Iterator[dict[str, Any]]:
    """The task server on either ledger (SQLite, PostgreSQL): units and stored responses are the store's contract."""
    cfg = load_config(CONFIG)
    store = Store(ledger_location)
    plan_items(Run(cfg, store, None, mturk.Target("sim", "http://unused")), limit=50)  # 10 images per batch
    store.set_batch(cfg.name, 1, status="published")
    store.table("studies").insert({"study_id": "s" * 24, "campaign": cfg.name, "batch": 1, "status": "ACTIVE",
                                   "places": 10, "created_at": 0.0}, pk=("campaign", "study_id"))
    site = TaskSite(store.location, {cfg.name: cfg}, secret=b"s" * 32)
    with TaskServer(site) as server:
        yield {"url": server.url, "store": store, "cfg": cfg, "site": site,
               "http": http_client(base_url=server.url, follow_redirects=False)}


def visit(s: dict[str, Any], pid: str, session: str) -> httpx.Response:
    return s["http"].get(f"/task/{s['cfg'].name}", params={"PROLIFIC_PID": pid, "STUDY_ID": "s" * 24,
                                                           "SESSION_ID": session})


def answers_for(page: str) -> dict[str, str]:
    values = {}
    for f in form_fields(page):
        if f.name.startswith("caption_"):
            values[f.name] = CAPTION
        elif f.name.startswith("text_present_"):
            values[f.name] = "no"
        else:
            values[f.name] = f.value
    return values


def submit(s: dict[str, Any], values: dict[str, str]) -> httpx.Response:
    return s["http"].post(f"/task/{s['cfg'].name}/submit", data=values)


def test_units_are_balanced_and_never_repeat_an_item(served: dict[str, Any]) -> None:
    units: Counter[str] = Counter()
    for n in range(10):  # 2 units x 5 places
        page = visit(served, f"p{n}", f"sess{n}")
        assert page.status_code == 200
        values = answers_for(page.text)
        units[values["image_id_0"]] += 1
        done = submit(served, values)
        code = completion_code(served["site"].secret, served["cfg"].name, 1)
        assert done.status_code == 303 and done.headers["location"].endswith(f"?cc={code}")
    assert sorted(units.values()) == [5, 5]
    seen: dict[str, list[str]] = {}
    for row in served["store"].rows("SELECT participant_id, item_ids FROM task_sessions"):
        seen.setdefault(row["participant_id"], []).extend(json.loads(row["item_ids"]))
    # the same participant in a second study session gets the other unit, never the same images
    again = answers_for(visit(served, "p0", "sess-again").text)
    assert again["image_id_0"] not in seen["p0"]


def test_response_is_stored_before_the_redirect_and_resubmit_is_harmless(served: dict[str, Any]) -> None:
    values = answers_for(visit(served, "pA", "sessA").text)
    first = submit(served, dict(values))
    rows = served["store"].rows("SELECT * FROM assignments WHERE assignment_id = 'sessA'")
    assert first.status_code == 303 and len(rows) == 1 and rows[0]["worker_id"] == "pA"
    assert parse_answer_xml(rows[0]["answer_xml"])["caption_0"] == CAPTION
    assert submit(served, dict(values)).headers["location"] == first.headers["location"]
    assert served["store"].table("assignments").count == 1
    assert visit(served, "pA", "sessA").status_code == 200  # the same session gets its own unit back


@pytest.mark.parametrize("change", ["sig", "image_id_0", "assignmentId"])
def test_tampered_or_unknown_submissions_are_refused(served: dict[str, Any], change: str) -> None:
    values = answers_for(visit(served, "pT", "sessT").text)
    values[change] = "forged"
    resp = submit(served, values)
    assert resp.status_code == 400 and "not accepted" in resp.text
    assert served["store"].table("assignments").count == 0


def test_refusals_and_nothing_else_served(served: dict[str, Any]) -> None:
    http = served["http"]
    assert http.get("/health").json()["ok"] is True
    assert http.get(f"/task/{served['cfg'].name}").status_code == 403
    assert "no such task" in http.get("/task/nope?PROLIFIC_PID=a&SESSION_ID=b").text
    for path in ("/", "/etc/passwd", "/task/../flows/config.py", "/runs/hitflow.db", "/static/x.js"):
        assert http.get(path).status_code == 404
    hostile = visit(served, "<script>alert(1)</script>", "sessX")
    assert "<script>alert(1)</script>" not in hostile.text


def test_invite_link_gets_a_thank_you_page(served: dict[str, Any]) -> None:
    link = invite_link(served["site"].secret, served["url"], served["cfg"].name, "ann")
    page = http_get(link, timeout=5)
    assert page.status_code == 200
    done = submit(served, answers_for(page.text))
    assert done.status_code == 200 and "Your answers were saved" in done.text
    tampered = link[:-4] + ("AAAA" if not link.endswith("AAAA") else "BBBB")
    bad = http_get(tampered, timeout=5)
    assert bad.status_code == 403


def test_choose_unit_prefers_the_least_held_new_unit() -> None:
    units = [(0, ["a", "b"], 2), (1, ["c", "d"], 1), (2, ["e"], 1)]
    assert choose_unit(units, set(), 3) == (1, ["c", "d"])
    assert choose_unit(units, {"c"}, 3) == (2, ["e"])
    assert choose_unit(units, {"a", "c", "e"}, 3) is None
    assert choose_unit([(0, ["a"], 3), (1, ["b"], 4)], set(), 3) == (0, ["a"])  # all full: least held


def test_a_full_batch_hands_out_the_unit_of_the_oldest_holder_not_finished() -> None:
    full = [(0, ["a"], 3), (1, ["b"], 3), (2, ["c"], 4)]  # u2 already took one newcomer beyond its target
    assert choose_unit(full, set(), 3, lambda: {0: [7.0], 1: [5.0]}) == (1, ["b"])  # its holder may have left first
    assert choose_unit(full, set(), 3, lambda: {1: [5.0], 2: [1.0]}) == (1, ["b"])  # u2's newcomer replaced 1.0
    assert choose_unit(full, set(), 3, lambda: {1: [5.0], 2: [1.0, 2.0]}) == (2, ["c"])  # and 2.0 is older than 5.0
    assert choose_unit(full, {"b"}, 3, lambda: {1: [5.0], 2: [1.0]}) == (0, ["a"])  # u1 seen, none left: least held


def test_the_task_servers_finished_statuses_are_prolifics() -> None:
    """unit_holds keeps its own copy of the statuses that never free a place (the task server imports no
    platform's module): it must stay Prolific's."""
    from flows.platforms.prolific.statuses import FINISHED as PROLIFIC_FINISHED
    from flows.taskserver.unit_holds import FINISHED

    assert FINISHED == PROLIFIC_FINISHED and "APPROVED" in FINISHED
