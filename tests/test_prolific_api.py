"""The simulated Prolific API, driven by a plain httpx client that knows nothing of hitflow,
with a real task server for participants to work on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.core.site_secrets import completion_code
from flows.platforms.mturk import adapter as mturk
from flows.platforms.prolific.adapter import SIM_TOKEN
from flows.sim.service.server import SimServer
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import TaskServer

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"
PLACEHOLDERS = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
LONG = "Your descriptions did not follow the task's instructions: each image needed one full sentence of at least " \
       "eight words."


@pytest.fixture
def world(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A simulator, and a task server serving batch 1 of the VizWiz campaign (10 images)."""
    cfg = load_config(CONFIG)
    store = Store(tmp_path / "h.db")
    with SimServer(seed=4) as sim:
        target = mturk.Target("sim", sim.url)
        plan_items(Run(cfg, store, None, target), limit=50)
        store.set_batch(cfg.name, 1, status="published")
        site = TaskSite(store.path, {cfg.name: cfg}, secret=b"k" * 32)
        with TaskServer(site) as server:
            api = httpx.Client(base_url=f"{sim.url}/api/v1/", headers={"Authorization": f"Token {SIM_TOKEN}"})
            yield {"sim": sim, "api": api, "store": store, "cfg": cfg, "task": server.url,
                   "code": completion_code(site.secret, cfg.name, 1)}


def study_body(world: dict[str, Any], places: int = 4, **extra: Any) -> dict[str, Any]:
    return {"name": "Describe images", "description": "Five images", "prolific_id_option": "url_parameters",
            "external_study_url": f"{world['task']}/task/{world['cfg'].name}?{PLACEHOLDERS}",
            "completion_codes": [{"code": world["code"], "code_type": "COMPLETED"}],
            "total_available_places": places, "estimated_completion_time": 6, "maximum_allowed_time": 30,
            "reward": 90, "device_compatibility": ["desktop"], **extra}


def open_study(world: dict[str, Any], places: int = 4, **extra: Any) -> str:
    api, store = world["api"], world["store"]
    study = api.post("studies/", json=study_body(world, places, **extra)).json()
    store.table("studies").insert({"study_id": study["id"], "campaign": world["cfg"].name, "batch": 1,
                                   "status": "ACTIVE", "places": places, "created_at": 0.0},
                                  pk=("campaign", "study_id"))
    assert api.post(f"studies/{study['id']}/transition/", json={"action": "PUBLISH"}).json()["status"] == "ACTIVE"
    return str(study["id"])


def finish(world: dict[str, Any]) -> None:
    """Move the clock until no participant is still working (returned places are refilled)."""
    for _ in range(10):
        httpx.post(f"{world['sim'].url}/_sim/clock", json={"advance_seconds": 3600 * 2})
        subs = world["api"].get("submissions/", params={"page_size": 200}).json()["results"]
        if not any(s["status"] == "ACTIVE" for s in subs):
            return


def all_pages(api: httpx.Client, path: str) -> list[dict[str, Any]]:
    page = api.get(path, params={"page_size": 2}).json()
    out = page["results"]
    while page["_links"]["next"]["href"]:
        page = api.get(page["_links"]["next"]["href"]).json()
        out += page["results"]
    return out


def test_missing_or_malformed_token_gets_401(world: dict[str, Any]) -> None:
    url = f"{world['sim'].url}/api/v1/users/me/"
    for headers in ({}, {"Authorization": "Bearer x"}, {"Authorization": "Token"}, {"Authorization": "Token anything"}):
        resp = httpx.get(url, headers=headers)
        assert resp.status_code == 401 and resp.json()["error"]["status"] == 401
    assert world["api"].get("users/me/").json()["user_type"] == "researcher"


def test_invalid_study_gets_prolific_shaped_errors(world: dict[str, Any]) -> None:
    body = study_body(world)
    body["external_study_url"] = "https://example.org/no-placeholders"
    del body["reward"]
    err = world["api"].post("studies/", json=body).json()["error"]
    assert err["status"] == 400 and {"reward", "external_study_url"} <= set(err["detail"])
    study = world["api"].post("studies/", json=study_body(world)).json()
    again = world["api"].post(f"studies/{study['id']}/transition/", json={"action": "STOP"})
    assert again.status_code == 400 and "UNPUBLISHED" in str(again.json()["error"]["detail"])


def test_participants_work_and_every_page_is_followed(world: dict[str, Any]) -> None:
    api = world["api"]
    study = open_study(world, places=7)
    finish(world)
    subs = all_pages(api, f"studies/{study}/submissions/")
    done = [s for s in subs if s["status"] == "AWAITING REVIEW"]
    assert len(done) == 7 and all(s["study_code"] == world["code"] for s in done)
    stored = world["store"].rows("SELECT assignment_id FROM assignments WHERE campaign = ?", [world["cfg"].name])
    assert {s["id"] for s in done} <= {r["assignment_id"] for r in stored}
    assert len(subs) == api.get(f"studies/{study}/submissions/").json()["meta"]["count"]


def test_approve_reject_and_the_100_character_rule(world: dict[str, Any]) -> None:
    api = world["api"]
    study = open_study(world, places=3)
    finish(world)
    subs = [s for s in all_pages(api, f"studies/{study}/submissions/") if s["status"] == "AWAITING REVIEW"]
    before = api.get(f"workspaces/{api.get('workspaces/').json()['results'][0]['id']}/balance/").json()
    short = api.post(f"submissions/{subs[0]['id']}/transition/",
                     json={"action": "REJECT", "rejection_category": "LOW_EFFORT", "message": "Too short."})
    assert short.status_code == 400 and "message" in short.json()["error"]["detail"]
    ok = api.post(f"submissions/{subs[0]['id']}/transition/",
                  json={"action": "REJECT", "rejection_category": "FAILED_INSTRUCTIONS", "message": LONG})
    assert ok.json()["status"] == "REJECTED"
    api.post("submissions/bulk-approve/", json={"study_id": study, "submission_ids": [s["id"] for s in subs[1:]]})
    statuses = {s["id"]: s["status"] for s in all_pages(api, f"studies/{study}/submissions/")}
    assert [statuses[s["id"]] for s in subs] == ["REJECTED", "APPROVED", "APPROVED"]
    twice = api.post(f"submissions/{subs[1]['id']}/transition/", json={"action": "APPROVE"})
    assert twice.status_code == 400
    after = api.get(f"workspaces/{api.get('workspaces/').json()['results'][0]['id']}/balance/").json()
    assert before["total_balance"] - after["total_balance"] == 2 * (90 + 30)  # reward + a third in fees
    assert api.get(f"studies/{study}/").json()["status"] == "COMPLETED"


def test_bonus_is_set_up_then_paid(world: dict[str, Any]) -> None:
    api = world["api"]
    study = open_study(world, places=2)
    finish(world)
    pid = all_pages(api, f"studies/{study}/submissions/")[0]["participant_id"]
    workspace = api.get("workspaces/").json()["results"][0]["id"]
    before = api.get(f"workspaces/{workspace}/balance/").json()["total_balance"]
    bad = api.post("submissions/bonus-payments/", json={"study_id": study, "csv_bonuses": "nobody,1.00"})
    assert bad.status_code == 400
    bonus = api.post("submissions/bonus-payments/", json={"study_id": study, "csv_bonuses": f"{pid},0.50"}).json()
    assert (bonus["amount"], bonus["fees"]) == (50, 17)
    assert api.get(f"workspaces/{workspace}/balance/").json()["total_balance"] == before  # set up is not paid
    assert api.post(f"bulk-bonus-payments/{bonus['id']}/pay/").status_code == 202
    assert api.get(f"workspaces/{workspace}/balance/").json()["total_balance"] == before - 67


def test_blocklisted_participants_never_start(world: dict[str, Any]) -> None:
    api = world["api"]
    workspace = api.get("workspaces/").json()["results"][0]["id"]
    group = api.post("participant-groups/", json={"workspace_id": workspace, "name": "blocked"}).json()
    first = open_study(world, places=6)
    finish(world)
    blocked = sorted({s["participant_id"] for s in all_pages(api, f"studies/{first}/submissions/")})
    api.post(f"participant-groups/{group['id']}/participants/", json={"participant_ids": blocked})
    members = all_pages(api, f"participant-groups/{group['id']}/participants/")
    assert sorted(m["participant_id"] for m in members) == blocked
    filters = [{"filter_id": "participant_group_blocklist", "selected_values": [group["id"]]}]
    second = open_study(world, places=6, filters=filters)
    finish(world)
    later = {s["participant_id"] for s in all_pages(api, f"studies/{second}/submissions/")}
    assert later and not later & set(blocked)


def test_cost_calculator_and_messages(world: dict[str, Any]) -> None:
    api = world["api"]
    quote = api.post("study-cost-calculator/", json={"reward": 90, "total_available_places": 10}).json()
    assert (quote["rewards"], quote["fees"], quote["total_cost"]) == (900, 300, 1200)
    msg = api.post("messages/", json={"recipient_id": "p1", "body": "Thanks!", "study_id": "s1"})
    assert msg.status_code == 204 and not msg.content  # Prolific's OpenAPI: 204, no body
    assert [m["body"] for m in api.get("messages/", params={"user_id": "p1"}).json()["results"]] == ["Thanks!"]


def test_an_unreachable_study_url_never_stalls_the_api(world: dict[str, Any]) -> None:
    """Participants who cannot open the page return the study at once, as on Prolific, and the
    API keeps answering (it once hung for minutes calling newcomer after newcomer)."""
    import socket
    import time

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    api = world["api"]
    body = study_body(world, places=5)
    body["external_study_url"] = f"http://127.0.0.1:{closed}/task?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
    study = api.post("studies/", json=body).json()["id"]
    started = time.monotonic()
    assert api.post(f"studies/{study}/transition/", json={"action": "PUBLISH"}).json()["status"] == "ACTIVE"
    for _ in range(3):
        httpx.post(f"{world['sim'].url}/_sim/clock", json={"advance_seconds": 60})
        assert api.get(f"studies/{study}/").json()["places_taken"] == 0
    assert time.monotonic() - started < 10
    subs = api.get(f"studies/{study}/submissions/").json()["results"]
    assert subs and {s["status"] for s in subs} == {"RETURNED"} and len(subs) <= 3


def test_places_increase_reopens_a_study_and_lists_filter_and_page_by_offset(world: dict[str, Any]) -> None:
    api = world["api"]
    study = open_study(world, places=2)
    finish(world)
    for s in api.get(f"studies/{study}/submissions/").json()["results"]:
        if s["status"] == "AWAITING REVIEW":
            api.post(f"submissions/{s['id']}/transition/", json={"action": "APPROVE"})
    assert api.get(f"studies/{study}/").json()["status"] == "COMPLETED"
    draft = api.post("studies/", json=study_body(world, places=1)).json()["id"]
    assert [s["id"] for s in api.get("studies/", params={"state": "UNPUBLISHED"}).json()["results"]] == [draft]
    refused = api.patch(f"studies/{study}/", json={"total_available_places": 1})
    assert refused.status_code == 400 and "error" in refused.json()
    assert api.patch(f"studies/{study}/", json={"total_available_places": 4}).json()["status"] == "ACTIVE"
    finish(world)
    taken = [s for s in all_pages(api, f"studies/{study}/submissions/")
             if s["status"] in ("AWAITING REVIEW", "APPROVED")]
    assert len(taken) == 4
    page = api.get(f"studies/{study}/submissions/", params={"limit": 3, "offset": 1}).json()
    everything = api.get(f"studies/{study}/submissions/", params={"page_size": 200}).json()["results"]
    assert page["results"] == everything[1:4] and page["meta"]["count"] == len(everything)
    assert api.delete(f"studies/{draft}/").status_code == 200
    assert api.get(f"studies/{draft}/").status_code == 404
    assert api.delete(f"studies/{study}/").status_code == 400  # a published study is stopped, not deleted
