"""hitflow's Prolific route against the statuses and settings the real platform has and a
forgiving simulator hid: SCREENED OUT (with a space) and RESERVED submissions, a workspace
billed in another currency, a maximum time below Prolific's minimum, paging without links."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from flows.core.config.config import load_config
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.platforms.prolific import adapter as prolific
from flows.sim.service.server import SimServer

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"
NAME = "vizwiz_captions"


def quiet(_: str) -> None:
    pass


def test_screened_out_and_reserved_submissions_are_counted_and_paid_as_prolific_does(tmp_path: Path) -> None:
    with SimServer(seed=5) as sim:
        people = sim.prolific.pumps[0]
        people.screen_out_rate, people.reserve_rate = 0.2, 0.3  # type: ignore[attr-defined]
        before = sim.prolific.balance
        run_campaign(CONFIG, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path, limit=25,
                     progress=quiet, platform="prolific")
        subs = list(sim.prolific.submissions.values())
        spent = before - sim.prolific.balance
        reward = sim.prolific.studies[subs[0]["study_id"]]["reward"]
    store = Store(tmp_path / "h.db")
    stored = {r["submission_id"]: r["status"]
              for r in store.rows("SELECT submission_id, status FROM platform_submissions")}
    screened = [s["id"] for s in subs if s["status"] == "SCREENED OUT"]
    assert screened and all(stored[sid] == "SCREENED OUT" for sid in screened)
    # a screened-out participant's unit went back to the pool: every image still got its answers
    answers = store.rows("SELECT count(*) AS n FROM assignments a JOIN decisions d ON d.assignment_id = "
                         "a.assignment_id WHERE a.campaign = ? AND d.action = 'approve'", [NAME])[0]["n"]
    approved = sum(s["status"] == "APPROVED" for s in subs)
    assert approved == answers and approved >= 5 * 5 // 5  # five units of five images, each place filled
    # hitflow paid (and Prolific charged) the approved places only, reward plus a third in fees
    bonus = sum(b["amount"] + b["fees"] for b in sim.prolific.bonuses.values() if b["paid"])
    assert spent == approved * (reward + round(reward / 3)) + bonus
    never_decided = store.rows("SELECT count(*) AS n FROM ledger WHERE operation IN ('RejectSubmission', "
                               "'DecideUnanswered') AND idem_key LIKE ?", [f"%{screened[0]}%"])[0]["n"]
    assert never_decided == 0
    marks = ",".join("?" * len(screened))
    released = store.rows(f"SELECT released FROM task_sessions WHERE session_id IN ({marks})", screened)
    assert released and all(r["released"] == 1 for r in released)


def test_reserved_holds_a_place_and_is_waited_for_and_every_spelling_counts() -> None:
    """Prolific's statuses (its OpenAPI's enums), counted as collect counts a study's places."""
    from flows.platforms.prolific.statuses import place_counts

    statuses = ["RESERVED", "ACTIVE", "UNKNOWN", "AWAITING REVIEW", "APPROVED", "REJECTED", "RETURNED",
                "TIMED-OUT", "TIME-OUT", "SCREENED OUT"]
    assert place_counts(statuses) == {"finished": 3, "pending": 3, "taken": 6, "unpaid": 4}


def test_a_workspace_in_another_currency_is_refused_before_any_money_is_estimated(tmp_path: Path) -> None:
    with SimServer(seed=5) as sim:
        sim.prolific.currency = "USD"
        calls: list[str] = []
        with pytest.raises(ConfigError, match=r"billed in USD but \[prolific\] currency is GBP"):
            run_campaign(CONFIG, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path, limit=50,
                         progress=calls.append, platform="prolific")
        assert sim.prolific.studies == {}  # no study drafted, nothing priced or published
    assert not Store(tmp_path / "h.db").rows("SELECT 1 FROM ledger WHERE operation IN ('CreateStudy', 'PublishStudy')")


def _config(tmp_path: Path, **prolific_lines: str) -> Path:
    """The demo config (a copy of its items beside it) with some [prolific] lines replaced."""
    (tmp_path / "items").mkdir(exist_ok=True)
    shutil.copy(CONFIG.parent / "items" / "vizwiz_demo_items.csv", tmp_path / "items")
    text = CONFIG.read_text()
    for key, value in prolific_lines.items():
        start = text.index(f"\n{key} = ", text.index("[prolific]"))
        end = text.index("\n", start + 1)
        text = text[:start] + f"\n{key} = {value}" + text[end:]
    (tmp_path / "c.toml").write_text(text)
    return tmp_path / "c.toml"


@pytest.mark.parametrize(("estimated", "maximum", "shortest"), [(20, 30, 31), (6, 12, 13), (1, 4, 5)])
def test_a_maximum_below_prolifics_minimum_is_refused_at_load(tmp_path: Path, estimated: int, maximum: int,
                                                             shortest: int) -> None:
    config = _config(tmp_path, estimated_minutes=str(estimated), maximum_minutes=str(maximum), reward='"3.00"')
    with pytest.raises(ConfigError, match=f"maximum_minutes must be at least {shortest} ") as err:
        load_config(config)
    assert "\n" not in str(err.value)
    config = _config(tmp_path, estimated_minutes=str(estimated), maximum_minutes=str(shortest), reward='"3.00"')
    assert load_config(config).prolific.maximum_minutes == shortest


def test_pay_below_prolifics_hourly_floor_is_refused_at_load(tmp_path: Path) -> None:
    config = _config(tmp_path, reward='"0.50"')  # 5.00 GBP/hour for 6 minutes
    with pytest.raises(ConfigError, match=r"below Prolific's minimum of 6.00; raise reward to at least 0.60"):
        load_config(config)
    assert load_config(_config(tmp_path, reward='"0.60"')).prolific.reward == Decimal("0.60")


def test_paging_by_offset_when_a_reply_carries_no_links(monkeypatch: pytest.MonkeyPatch) -> None:
    """Prolific documents limit/offset paging too: a reply with ``meta.count`` and no ``_links``
    is followed by offset until every result is in."""
    items = [{"id": f"{i:024x}"} for i in range(7)]
    seen: list[dict[str, str]] = []

    def reply(request: httpx.Request) -> httpx.Response:
        query = dict(request.url.params)
        seen.append(query)
        start, size = int(query.get("offset", 0)), int(query.get("limit", 3))
        return httpx.Response(200, json={"results": items[start:start + size], "meta": {"count": len(items)}})

    client = prolific.ProlificClient(httpx.Client(base_url="http://prolific.invalid/api/v1/",
                                                  transport=httpx.MockTransport(reply)), "http://prolific.invalid")
    monkeypatch.setattr(prolific, "PAGE_SIZE", 3)
    assert prolific.every_page(client, "studies/") == items
    assert [q.get("offset") for q in seen] == [None, "3", "6"]


def _sim_studies_then(client: prolific.ProlificClient) -> list[dict[str, Any]]:
    return prolific.every_page(client, "studies/")


def test_the_simulators_list_is_prolifics_short_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What adoption after a crash has to work with: list items without completion codes."""
    monkeypatch.delenv("PROLIFIC_TOKEN", raising=False)
    with SimServer(seed=5) as sim:
        client = prolific.make_client(sim.url, simulator=True)
        study = prolific.create_study(client, {
            "name": "n", "internal_name": "x batch 1", "description": "d", "prolific_id_option": "url_parameters",
            "external_study_url": "http://127.0.0.1:9/t?PROLIFIC_PID={{%PROLIFIC_PID%}}",
            "completion_code": "LEGACY1", "completion_option": "url", "total_available_places": 2,
            "estimated_completion_time": 6, "maximum_allowed_time": 30, "reward": 90, "device_compatibility": []})
        listed = _sim_studies_then(client)
        assert [s["id"] for s in listed] == [study] and "completion_codes" not in listed[0]
        assert listed[0]["internal_name"] == "x batch 1"
        assert [c["code"] for c in prolific.get_study(client, study)["completion_codes"]] == ["LEGACY1"]
