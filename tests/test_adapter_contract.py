"""The MTurk adapter's own checks against the simulator (below the Platform interface): tokens,
paging, approve/reject outcomes, soft and hard blocks, balance, and closed endpoints. The contract
every platform keeps is tests/test_platform_contract.py."""

from __future__ import annotations

from decimal import Decimal

import pytest

from flows.core.errors import ClosedEndpointError, PlatformError
from flows.core.pages.mturk_forms import html_question
from flows.platforms.mturk import adapter as mturk
from flows.platforms.targets import advance_sim_clock, resolve_target
from tests.test_sim_contract import PAGE


@pytest.fixture
def conn(sim):
    target = mturk.Target("sim", sim.url)
    return target, mturk.make_client(target)


def _type(client, quals=()) -> str:
    return mturk.create_hit_type(client, {"Title": "t", "Description": "d", "Reward": "0.20",
                                          "AssignmentDurationInSeconds": 600, "AutoApprovalDelayInSeconds": 86400,
                                          "QualificationRequirements": list(quals)})


def _params(item: str = "1") -> dict:
    return {"MaxAssignments": 3, "LifetimeInSeconds": 86400, "Question": html_question(PAGE.replace("{item}", item))}


def test_publish_is_idempotent_by_token(conn) -> None:
    _, client = conn
    type_id = _type(client)
    first, adopted = mturk.create_hit(client, type_id, _params(), "token-a")
    again, adopted_again = mturk.create_hit(client, type_id, _params(), "token-a")
    assert adopted is False
    assert again == first and adopted_again is True
    assert len(mturk.list_hits(client)) == 1


def test_list_follows_every_page(sim, conn) -> None:
    _, client = conn
    type_id = _type(client)
    ids = {mturk.create_hit(client, type_id, {**_params(str(i)), "MaxAssignments": 1}, f"t{i}")[0] for i in range(105)}
    assert {h["HITId"] for h in mturk.list_hits(client)} == ids


def test_submissions_decisions_and_balance(sim, conn) -> None:
    target, client = conn
    hit_id, _ = mturk.create_hit(client, _type(client), _params(), "t-1")
    advance_sim_clock(target, 4 * 3600)
    subs = mturk.list_submissions(client, hit_id)
    assert len(subs) == 3
    before = mturk.balance(client)
    assert mturk.approve(client, subs[0]["AssignmentId"]) == "approved"
    assert mturk.reject(client, subs[1]["AssignmentId"], "broke the rules") == "rejected"
    assert mturk.reject(client, subs[1]["AssignmentId"], "again") == "already rejected"
    assert before - mturk.balance(client) == Decimal("0.24")  # 0.20 reward + 20% fee
    advance_sim_clock(target, 86400)  # the third is auto-approved by the platform
    assert mturk.approve(client, subs[2]["AssignmentId"]) == "already approved"


def test_exclude_soft_and_hard(sim, conn) -> None:
    target, client = conn
    qual = mturk.ensure_qualification_type(client, "blocked-x", "soft block")
    assert mturk.ensure_qualification_type(client, "blocked-x", "soft block") == qual
    workers = [w for w in sim.market.workers.values() if w.profile == "diligent"]
    assert mturk.exclude_worker(client, workers[0].worker_id, "soft", qual, "QC")
    assert not mturk.exclude_worker(client, workers[0].worker_id, "soft", qual, "QC")  # held already: not granted again
    mturk.exclude_worker(client, workers[1].worker_id, "hard", "", "QC")
    assert workers[1].worker_id in sim.market.blocks
    type_id = _type(client, [{"QualificationTypeId": qual, "Comparator": "DoesNotExist"}])
    hits = [mturk.create_hit(client, type_id, {**_params(str(i)), "MaxAssignments": 20}, f"x{i}")[0] for i in range(4)]
    advance_sim_clock(target, 2 * 86400)
    done = {a["WorkerId"] for h in hits for a in mturk.list_submissions(client, h)}
    assert done and not done & {workers[0].worker_id, workers[1].worker_id}


def test_platform_errors_are_domain_errors(conn) -> None:
    _, client = conn
    with pytest.raises(PlatformError, match="HITDoesNotExist"):
        mturk.get_hit(client, "3NOSUCHHIT000000000000000000000")


@pytest.mark.parametrize(("name", "url", "which"), [
    ("production", "", "production"), ("sandbox", "", "sandbox"),
    ("mturk", "https://mturk-requester.us-east-1.amazonaws.com", "production"),
    ("mturk", "https://mturk-requester-sandbox.us-east-1.amazonaws.com", "sandbox")])
def test_closed_mturk_endpoints_are_refused(name: str, url: str, which: str) -> None:
    with pytest.raises(ClosedEndpointError, match=f"closed permanently on 2026-09-30; its {which}"):
        resolve_target(name, url)


def test_throttled_calls_succeed_through_adaptive_retries(sim, conn) -> None:
    _, client = conn
    sim.market.faults.throttle_rate = 0.3
    assert all(mturk.balance(client) == Decimal("10000.00") for _ in range(8))
    assert sim.market.calls > 8  # some calls were throttled and retried
