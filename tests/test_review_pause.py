"""Under Prefect a batch waiting for review pauses its flow run: a person clearing the queue on the
review page resumes it with the typed input, and near the deadline the pause times out and the
policy's automatic decisions apply."""

from __future__ import annotations

import contextvars
import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from flows.campaigns.campaign_needs import format_review_status, review_status
from flows.core.ledger.store import Store
from flows.driver.review_demo import decide_open_cards, sign_in
from tests.conftest import advance
from tests.review_helpers import review_config, review_server

DELAY_S, DEADLINE_S = 259200, 3600  # the demo config's auto-approval delay and default review deadline


@pytest.fixture
def prefect_api(on_prefect_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The xdist worker's Prefect server; a paused run asks every second whether it was resumed."""
    import flows.review.review_pause as pause

    monkeypatch.setattr(pause, "POLL_S", 1)


def three_batches(config: Path) -> Path:
    """The review config in three batches of one HIT (the first twelve images, as start_flow runs it):
    two pauses are what the tests below need, and a third shows the run goes on after them."""
    text = config.read_text(encoding="utf-8")
    assert "batches = 5 " in text, "the demo config no longer has five batches"
    config.write_text(text.replace("batches = 5 ", "batches = 3 ", 1), encoding="utf-8")
    return config


def start_flow(config: Path, sim_url: str, tmp_path: Path) -> tuple[threading.Thread, dict[str, Any]]:
    """The campaign flow on a thread of its own (on the worker's Prefect server), as a served run would be."""
    from flows.driver.campaign_flow import whole_campaign

    out: dict[str, Any] = {}

    def go() -> None:
        out["state"] = whole_campaign(config_path=str(config), endpoint_url=sim_url, db_path=str(tmp_path / "h.db"),
                                       out_root=str(tmp_path), limit=12, return_state=True)

    thread = threading.Thread(target=contextvars.copy_context().run, args=(go,), daemon=True)
    thread.start()
    return thread, out


def next_pause(thread: threading.Thread, db: Path, seen: int, timeout: float = 60) -> Any:
    """This campaign's flow run once Paused with more than ``seen`` pauses; None when the flow ended instead.
    The server is asked for its paused runs only: it holds the whole session's runs, and reading them all
    three times a second cost it and this process more than the test's own flow."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterState, FlowRunFilterStateType
    from prefect.client.schemas.objects import StateType

    paused_runs = FlowRunFilter(state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.PAUSED])))
    end = time.monotonic() + timeout
    with get_client(sync_client=True) as client:
        while time.monotonic() < end:
            mine = [r for r in client.read_flow_runs(flow_run_filter=paused_runs)
                    if r.parameters.get("db_path") == str(db)]
            if mine and mine[0].state is not None and mine[0].state.is_paused() \
                    and len(mine[0].empirical_policy.pause_keys or ()) > seen:
                return mine[0]
            if not thread.is_alive():
                return None
            time.sleep(0.3)
    raise AssertionError(f"the flow neither paused again (after {seen}) nor ended within {timeout} s")


def failed_tasks(db: Path) -> list[str]:
    """The names of this campaign's task runs that ended Failed (waiting for a person is no failure),
    once the server has recorded each as ended: it records task runs from the run's events, in
    batches at least every 2 s (tests/prefect_server.py), so the last may still show as running."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    deadline = time.monotonic() + 30
    with get_client(sync_client=True) as client:
        runs = FlowRunFilter(id=FlowRunFilterId(any_=[r.id for r in client.read_flow_runs()
                                                      if r.parameters.get("db_path") == str(db)]))
        while True:
            tasks = client.read_task_runs(flow_run_filter=runs)
            if all(t.state and t.state.is_final() for t in tasks) or time.monotonic() > deadline:
                return [t.name for t in tasks if t.state and t.state.is_failed()]
            time.sleep(0.5)


def pauses(db: Path) -> list[dict[str, Any]]:
    return Store(db).rows("SELECT batch, status, result FROM ledger WHERE operation = 'pause_flow_run' ORDER BY id")


@pytest.mark.slow
@pytest.mark.prefect
def test_a_cleared_queue_resumes_the_paused_flow_run(prefect_api: None, sim, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("flows.review.review_pause.SIM_SLICE_S", 120)  # no timeout while the reviewer works
    thread, out = start_flow(three_batches(review_config(tmp_path)), sim.url, tmp_path)
    db, cleared = tmp_path / "h.db", []
    while (paused := next_pause(thread, db, len(cleared))) is not None:
        batch = len(cleared) + 1
        ledgered = pauses(db)[-1]
        assert ledgered["batch"] == batch and ledgered["status"] == "paused"
        assert str(paused.id) in ledgered["result"]
        assert paused.state.state_details.run_input_keyset  # the UI's resume form: ReviewDone's fields
        assert f"Prefect flow run {paused.id} paused for it" in format_review_status(review_status(Store(db),
                                                                                                  "vizwiz_captions"))
        with review_server(db, "vizwiz_captions", reviewer="ann") as (server, site):
            web = sign_in(f"{server.url}/?token={site.login_token}")
            web.timeout = httpx.Timeout(60)  # a decision resumes the run through Prefect's API: slow on a loaded host
            cleared.append(decide_open_cards(web))  # the last decision resumes the run
            web.close()
        assert pauses(db)[-1]["status"] in ("resume_sent", "resumed")  # the flow notes it when it goes on
    thread.join(60)
    assert out["state"].is_completed() and out["state"].result()["done"] > 0
    # each pause ended with the typed input the run loaded (who, and the form's note field)
    assert [(r["status"], json.loads(r["result"])["by"], json.loads(r["result"])["note"]) for r in pauses(db)] \
        == [("resumed", "ann", "")] * len(cleared)
    assert len(cleared) >= 2 and all(cleared), "each batch paused and was cleared by the reviewer"
    store = Store(db)
    assert {r["batch"] for r in store.rows("SELECT batch FROM review_actions WHERE reviewer = 'ann'")} \
        == set(range(1, len(cleared) + 1))
    assert not store.rows("SELECT * FROM batches WHERE review_note LIKE '%automatic%'")


@pytest.mark.prefect
def test_the_deadline_ends_the_pause_and_the_rules_decide(prefect_api: None, sim, tmp_path: Path,
                                                          monkeypatch) -> None:
    monkeypatch.setattr("flows.review.review_pause.SIM_SLICE_S", 2)  # the virtual clock is looked at every 2 s
    thread, out = start_flow(three_batches(review_config(tmp_path)), sim.url, tmp_path)
    db, seen, advanced = tmp_path / "h.db", 0, set()
    while (paused := next_pause(thread, db, seen)) is not None:
        seen = len(paused.empirical_policy.pause_keys)  # a 2-s pause may have timed out and paused again
        if (batch := pauses(db)[-1]["batch"]) not in advanced:  # once a batch: inside its deadline, unpaid
            advance(sim, DELAY_S - DEADLINE_S + 600)
            advanced.add(batch)
    thread.join(60)
    assert out["state"].is_completed() and len(advanced) >= 2
    assert not failed_tasks(db)  # each stop for review ended its task Completed, not Failed
    store = Store(db)
    assert not store.rows("SELECT * FROM review_actions")
    notes = [r["review_note"] for r in store.rows("SELECT review_note FROM batches WHERE batch > 0 ORDER BY batch")]
    assert {r["batch"] for r in pauses(db)} == advanced
    assert len([n for n in notes if n.endswith("open at the deadline: automatic")]) == len(advanced)
    assert {r["status"] for r in pauses(db)} == {"resumed"} and all('"by": "timeout"' in r["result"]
                                                                    for r in pauses(db))
    report = (tmp_path / "vizwiz_captions" / "report.html").read_text(encoding="utf-8")
    assert "open at the deadline: automatic" in report


def test_a_pause_lasts_until_the_review_deadline_in_slices_on_a_virtual_clock() -> None:
    from flows.campaigns.review_data import ReviewPending
    from flows.review.review_pause import LONGEST_PAUSE_S, SIM_SLICE_S, pause_seconds

    assert pause_seconds(ReviewPending("waits", "c", 1, 7200.4)) == 7201
    assert pause_seconds(ReviewPending("waits", "c", 1, 7200.0, virtual_clock=True)) == SIM_SLICE_S
    assert pause_seconds(ReviewPending("waits", "c", 1, -5.0)) == 1  # already due: look again at once
    assert pause_seconds(ReviewPending("waits", "c", 1, None)) == LONGEST_PAUSE_S
    import pickle

    copy = pickle.loads(pickle.dumps(ReviewPending("waits", "c", 2, 60.0, True, True)))
    assert (str(copy), copy.batch, copy.wait_s, copy.virtual_clock, copy.embedded) == ("waits", 2, 60.0, True, True)


@pytest.mark.prefect
def test_a_run_on_its_embedded_simulator_stops_instead_of_pausing(prefect_api: None, tmp_path: Path) -> None:
    """The review page opens the embedded simulator's state file, which a paused run would take back."""
    from prefect import flow

    from flows.campaigns.review_data import ReviewPending
    from flows.review.review_pause import wait_for_review

    waiting = ReviewPending("batch 1 waits for review", "c", 1, 60.0, True, embedded=True)
    state = flow(name="embedded-review")(lambda: wait_for_review(waiting, str(tmp_path / "h.db")))(return_state=True)
    assert state.is_failed() and isinstance(state.result(raise_on_failure=False), ReviewPending)
    assert not (tmp_path / "h.db").exists()  # never paused: nothing ledgered


@pytest.mark.prefect
def test_the_scheduled_batch_flow_ends_completed_while_its_batch_waits_for_review(prefect_api: None, sim,
                                                                                  tmp_path: Path) -> None:
    """A served schedule's run that meets a batch waiting for a person says so and ends Completed;
    the next scheduled run looks again (it ended Failed, with a failed task, before)."""
    from flows.driver.campaign_flow import next_batch

    db = tmp_path / "h.db"
    state = next_batch(config_path=str(review_config(tmp_path)), endpoint_url=sim.url, db_path=str(db),
                               out_root=str(tmp_path), return_state=True)
    assert state.is_completed(), state
    result = state.result()
    assert result["done"] is False and result["advanced_batch"] == 1 and "waits for review" in result["review"]
    assert not failed_tasks(db)
    assert Store(db).batch_status("vizwiz_captions", 1) == "qc_done"  # held before decisions, nothing lost


# --- a batch held for a person (one rule over [policy] hold_share) stops the same way --------------

def held_page(tmp_path: Path) -> Path:
    from flows.custom.scaffold import scaffold
    from tests.test_page_refusal import self_contradicting

    scaffold("page", tmp_path)
    return self_contradicting(tmp_path)


def flow_states(db: Path) -> list[str]:
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        return [r.state.type.value for r in client.read_flow_runs() if r.parameters.get("db_path") == str(db)
                and r.state is not None]


@pytest.mark.prefect
def test_a_scheduled_batch_flow_that_meets_a_held_batch_ends_completed(prefect_api: None, sim, tmp_path: Path) -> None:
    """Like a batch waiting for review: the held batch ends its task and the one-batch run Completed,
    saying how to release it (the run ended Failed before)."""
    from flows.driver.campaign_flow import next_batch

    db = tmp_path / "h.db"
    state = next_batch(config_path=str(held_page(tmp_path)), endpoint_url=sim.url, db_path=str(db),
                               out_root=str(tmp_path), return_state=True)
    assert state.is_completed(), state
    result = state.result()
    assert result["done"] is False and result["advanced_batch"] == 1
    assert "batch 1 HELD for review" in result["held"] and "--release-hold approve" in result["held"]
    assert not failed_tasks(db)
    assert not Store(db).rows("SELECT * FROM decisions") and not Store(db).rows("SELECT * FROM blocks")


@pytest.mark.prefect
def test_hitflow_run_under_prefect_ends_a_held_batch_completed_with_a_plain_line(prefect_api: None, tmp_path: Path,
                                                                                 capsys) -> None:
    from flows.cli.main import main

    db = tmp_path / "h.db"
    assert main(["run", str(held_page(tmp_path)), "--db", str(db), "--out", str(tmp_path / "runs")]) == 10
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("hitflow: batch 1 HELD for review") and "error" not in last, last
    assert flow_states(db) == ["COMPLETED"] and not failed_tasks(db)
