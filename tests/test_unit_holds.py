"""The fifth security round over real HTTP: a crowd of forged Prolific sessions beside real participants of a small
adaptive-overlap study (2 units of 2 items, min 2, max 5 judgements, 4 places). Before the bounds, 10 forged
sessions held both units at max_judgements and every real newcomer read "no work left" until the holds lapsed.

The server sits behind a trusted proxy on loopback (``--trusted-proxy 127.0.0.1``), so each request's
``X-Forwarded-For`` is its client's address, as uvicorn decides for a real deployment: one forged address,
or one per forged session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.core.config.config import hold_seconds, load_config
from flows.core.ledger.store import Store
from flows.core.pages.mturk_forms import form_fields
from flows.platforms.mturk import adapter as mturk
from flows.platforms.prolific.submission_records import store_submissions
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import TaskServer
from flows.taskserver.unit_holds import HOLDS_UNIT
from tests.test_adaptive_campaign import adaptive_project

STUDY = "5" * 24
PLACES = 4  # 2 units x min_judgements 2


@pytest.fixture
def study(tmp_path: Path, ledger_location: str) -> Iterator[dict[str, Any]]:
    cfg = load_config(adaptive_project(tmp_path, items=8, platform="prolific"))  # batch 1: 2 units
    store = Store(ledger_location)
    plan_items(Run(cfg, store, None, mturk.Target("sim", "http://unused")), limit=8)
    store.set_batch(cfg.name, 1, status="published")
    store.table("studies").insert({"study_id": STUDY, "campaign": cfg.name, "batch": 1, "status": "ACTIVE",
                                   "places": PLACES, "created_at": 0.0}, pk=("campaign", "study_id"))
    site = TaskSite(store.location, {cfg.name: cfg}, secret=b"h" * 32)
    with TaskServer(site, trusted_proxies=("127.0.0.1",)) as server, \
            httpx.Client(base_url=server.url, follow_redirects=False, timeout=60) as http:
        yield {"store": store, "cfg": cfg, "site": site, "http": http}


def arrive(s: dict[str, Any], pid: str, address: str, session: str = "") -> httpx.Response:
    return s["http"].get(f"/task/{s['cfg'].name}", headers={"X-Forwarded-For": address},
                         params={"PROLIFIC_PID": pid, "STUDY_ID": STUDY, "SESSION_ID": session or f"S{pid}"})


def finish(s: dict[str, Any], page: httpx.Response, address: str) -> httpx.Response:
    values = {f.name: f.value for f in form_fields(page.text)}  # the page's first choice for each item
    return s["http"].post(f"/task/{s['cfg'].name}/submit", data=values, headers={"X-Forwarded-For": address})


def holders(s: dict[str, Any]) -> dict[int, int]:
    stale = s["site"].now() - hold_seconds(s["cfg"])
    return {int(r["unit"]): int(r["n"]) for r in s["store"].rows(
        f"SELECT t.unit, COUNT(*) AS n FROM task_sessions t WHERE {HOLDS_UNIT} GROUP BY t.unit", [stale])}


def prolific_looks(s: dict[str, Any], sessions: dict[str, str], status: str = "ACTIVE") -> None:
    """The run's look at the study: Prolific lists these sessions (id -> participant), stored as a run stores them."""
    run = Run(s["cfg"], s["store"], None, mturk.Target("sim", "http://unused"))
    subs = [{"id": sid, "participant_id": pid, "status": status, "started_at": "2026-11-26T12:00:00Z",
             "completed_at": None} for sid, pid in sessions.items()]
    store_submissions(run, 1, STUDY, subs)


def open_forged(s: dict[str, Any]) -> int:
    return int(s["store"].rows("SELECT COUNT(*) AS n FROM task_sessions WHERE participant_id LIKE 'forged%' "
                               "AND released = 0 AND submitted_at IS NULL")[0]["n"])


def real_and_forged(s: dict[str, Any], forged_address: Any, n_forged: int = 50,
                    n_real: int = 5) -> tuple[list[int], int]:
    """``n_forged`` made-up participants with ``n_real`` real ones among them (every tenth arrival is real);
    each real one finishes their page. Their status codes, real ones' first, and the most forged open holds
    there were at once. Every real participant must get work, and the batch never holds more than its bound."""
    real_codes, forged_codes, real, most_open, most_held = [], [], 0, 0, 0
    for n in range(n_forged):
        forged_codes.append(arrive(s, f"forged{n:02d}", forged_address(n)).status_code)
        most_open = max(most_open, open_forged(s))
        if n % 10 == 9 and real < n_real:
            page = arrive(s, f"real{real}", f"192.0.2.{real + 1}")
            real_codes.append(page.status_code)
            if page.status_code == 200:
                assert finish(s, page, f"192.0.2.{real + 1}").status_code == 303
            real += 1
        most_held = max(most_held, sum(holders(s).values()))
    assert 500 not in real_codes + forged_codes
    assert real_codes == [200] * n_real  # every real participant got work
    assert most_held <= PLACES + 2  # places + margin holders, whoever asks
    return real_codes + forged_codes, most_open


def test_fifty_forged_sessions_from_one_address_leave_work_for_every_real_participant(study: dict[str, Any]) -> None:
    codes, most_open = real_and_forged(study, lambda n: "203.0.113.7")
    real, forged = codes[:5], codes[5:]
    assert real == [200] * 5
    # four open holds from one address at once, then a page; a hold taken back lets the address try again, and
    # the session limit (30 new sessions per address in 10 minutes) stops it for good
    assert most_open == 4 and forged.count(429) >= 20 and forged.count(200) <= 30
    # one forged participant, many sessions: one open hold at most
    for n in range(5):
        arrive(study, "samepid", "198.51.100.200", f"same{n}")
    open_same = study["store"].rows("SELECT COUNT(*) AS n FROM task_sessions WHERE participant_id = 'samepid' "
                                    "AND released = 0")[0]["n"]
    assert open_same == 1


def test_an_address_with_four_open_holds_reads_a_page_and_a_real_one_still_gets_work(study: dict[str, Any]) -> None:
    pages = [arrive(study, f"forged{n}", "203.0.113.8") for n in range(6)]
    assert [p.status_code for p in pages] == [200] * 4 + [429] * 2
    assert "Too many task pages are open from your network" in pages[-1].text
    assert "content-security-policy" in pages[-1].headers  # the server's own page, not an error
    assert arrive(study, "real0", "192.0.2.1").status_code == 200


def test_fifty_forged_sessions_from_fifty_addresses_leave_work_for_every_real_participant(
        study: dict[str, Any]) -> None:
    codes, most_open = real_and_forged(study, lambda n: f"198.51.100.{n + 1}")
    assert codes[:5] == [200] * 5 and set(codes[5:]) == {200}  # nobody is refused: the oldest forged give way
    assert most_open <= PLACES + 2
    done = study["store"].rows("SELECT worker_id FROM assignments")
    assert sorted(r["worker_id"] for r in done) == [f"real{n}" for n in range(5)]  # every real one's work
    taken_back = study["store"].rows("SELECT participant_id FROM task_sessions WHERE released = 2")
    assert taken_back and all(r["participant_id"].startswith("forged") for r in taken_back)


def test_holds_prolific_confirmed_are_never_taken_and_forged_submissions_free_theirs(study: dict[str, Any]) -> None:
    s = study
    real = {f"R{n}": f"real{n}" for n in range(3)}
    for sid, pid in real.items():
        assert arrive(s, pid, f"192.0.2.{sid[1:]}", sid).status_code == 200
    prolific_looks(s, real)  # Prolific lists the three: confirmed
    forged_pages = [arrive(s, f"forged{n:02d}", f"198.51.100.{n + 1}") for n in range(50)]
    assert {p.status_code for p in forged_pages} == {200}
    assert s["store"].rows("SELECT COUNT(*) AS n FROM task_sessions WHERE session_id IN ('R0', 'R1', 'R2') "
                           "AND released = 0")[0]["n"] == 3  # the oldest holds, yet never taken back
    # forged sessions that submit: they hold their unit until the run's next look, which Prolific judges
    for n, page in enumerate(forged_pages[-10:]):
        finish(s, page, f"198.51.100.{n + 41}")
    assert sum(holders(s).values()) >= 10 > PLACES + 2  # submitted work counts: past the bound, for now
    prolific_looks(s, real)  # Prolific still lists only the real ones
    assert s["store"].rows("SELECT COUNT(*) AS n FROM assignments WHERE status = 'NOT ON PROLIFIC'")[0]["n"] == 10
    assert sum(holders(s).values()) <= 3 + 2  # the forged submissions hold nothing now
    assert arrive(s, "real3", "192.0.2.9", "R3").status_code == 200


def test_units_genuinely_taken_still_say_no_work_left(study: dict[str, Any]) -> None:
    """Ten real participants Prolific confirmed hold both units at max_judgements: the eleventh reads, as before,
    that there is no work left (409), and nobody's hold is taken back."""
    s = study
    real = {f"R{n}": f"real{n}" for n in range(10)}
    for sid, pid in real.items():
        assert arrive(s, pid, f"192.0.2.{int(sid[1:]) + 1}", sid).status_code == 200
        prolific_looks(s, {k: v for k, v in real.items() if int(k[1:]) <= int(sid[1:])})
    assert holders(s) == {0: 5, 1: 5}
    late = arrive(s, "real10", "192.0.2.50")
    assert late.status_code == 409 and "no work left" in late.text
    assert s["store"].rows("SELECT COUNT(*) AS n FROM task_sessions WHERE released != 0")[0]["n"] == 0

