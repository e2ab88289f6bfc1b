"""The one retry policy for platform calls (flows/platforms/retry_policy.py): Prolific through
httpx.MockTransport with injected faults and a fake sleep, MTurk through the simulator's own fault
injection, and the MTurk paginators against the simulator."""

from __future__ import annotations

import random
from collections.abc import Callable
from email.utils import formatdate
from typing import Any

import httpx
import pytest

from flows.core.errors import PlatformError
from flows.core.pages.mturk_forms import html_question
from flows.platforms.mturk import adapter as mturk
from flows.platforms.prolific import adapter as prolific
from flows.platforms.retry_policy import RetryPolicy, retry_after_s
from tests.test_sim_contract import PAGE

NOW = 1_800_000_000.0


class FakeSleep:
    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def prolific_client(replies: list[Callable[[httpx.Request], httpx.Response]],
                    sleep: FakeSleep) -> tuple[prolific.ProlificClient, list[httpx.Request]]:
    """A Prolific client whose server answers the n-th request with ``replies[n]`` (the last one repeats)."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return replies[min(len(seen), len(replies)) - 1](request)

    http = httpx.Client(base_url="https://api.prolific.test/api/v1/", transport=httpx.MockTransport(handler))
    policy = RetryPolicy(sleep=sleep, clock=lambda: NOW, rng=random.Random(3))
    return prolific.ProlificClient(http, "https://api.prolific.test", policy), seen


def answer(status: int, body: dict[str, Any] | None = None,
           **headers: str) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(status, json=body or {}, headers=headers)


def fail(kind: type[httpx.TransportError]) -> Callable[[httpx.Request], httpx.Response]:
    def raise_it(request: httpx.Request) -> httpx.Response:
        raise kind("injected", request=request)
    return raise_it


def test_a_429_is_retried_after_the_seconds_retry_after_states() -> None:
    sleep = FakeSleep()
    client, seen = prolific_client([answer(429, {"error": {"title": "slow down"}}, **{"Retry-After": "7"}),
                                    answer(200, {"id": "w1", "available_balance": 500})], sleep)
    assert prolific.balance(client, "w1") == 500
    assert len(seen) == 2 and sleep.waits == [7.0]


def test_retry_after_as_an_http_date_is_honoured_and_a_long_one_capped() -> None:
    sleep = FakeSleep()
    client, _ = prolific_client([answer(429, **{"Retry-After": formatdate(NOW + 30, usegmt=True)}),
                                    answer(429, **{"Retry-After": "86400"}),
                                 answer(200, {"id": "s1", "status": "ACTIVE"})], sleep)
    assert prolific.get_study(client, "s1") == {"id": "s1", "status": "ACTIVE"}
    assert sleep.waits == [30.0, 60.0]  # the date 30 s ahead of the clock; a day capped at 60 s
    assert retry_after_s("not a date", NOW) is None and retry_after_s(" 2.5 ", NOW) == 2.5


def test_a_503_on_a_get_is_retried_with_a_short_jittered_wait() -> None:
    sleep = FakeSleep()
    client, seen = prolific_client([answer(503), answer(503), answer(200, {"id": "s1", "status": "ACTIVE"})], sleep)
    assert prolific.get_study(client, "s1")["status"] == "ACTIVE"
    assert len(seen) == 3
    assert len(sleep.waits) == 2 and 0 <= sleep.waits[0] <= 0.01 and 0 <= sleep.waits[1] <= 0.02


def test_a_get_failing_every_time_gives_up_with_the_status_in_a_platform_error() -> None:
    sleep = FakeSleep()
    client, seen = prolific_client([answer(502, {"error": {"title": "Bad gateway"}})], sleep)
    with pytest.raises(PlatformError, match="answered 502: Bad gateway"):
        prolific.get_study(client, "s1")
    assert len(seen) == RetryPolicy().attempts and len(sleep.waits) == RetryPolicy().attempts - 1


@pytest.mark.parametrize("failure", [fail(httpx.ReadTimeout), answer(503), fail(httpx.RemoteProtocolError)])
def test_creating_a_study_is_never_repeated_after_an_ambiguous_failure(failure: Any) -> None:
    sleep = FakeSleep()
    client, seen = prolific_client([failure, answer(201, {"id": "study-2"})], sleep)
    with pytest.raises(PlatformError, match=r"POST .*studies/ failed .* was not repeated: Prolific may have acted"):
        prolific.create_study(client, {"name": "batch 1"})
    assert len(seen) == 1 and sleep.waits == []


@pytest.mark.parametrize("failure", [answer(429, **{"Retry-After": "2"}), fail(httpx.ConnectError)])
def test_creating_a_study_is_repeated_when_prolific_certainly_did_not_act(failure: Any) -> None:
    client, seen = prolific_client([failure, answer(201, {"id": "study-1"})], FakeSleep())
    assert prolific.create_study(client, {"name": "batch 1"}) == "study-1"
    assert len(seen) == 2 and [r.method for r in seen] == ["POST", "POST"]


def test_a_repeatable_post_is_retried_after_a_timeout() -> None:
    client, seen = prolific_client([fail(httpx.ReadTimeout), answer(200, {})], FakeSleep())
    prolific.approve(client, "s1", ["sub-1"])
    assert len(seen) == 2 and all(r.url.path == "/api/v1/submissions/bulk-approve/" for r in seen)


def test_paying_bonuses_is_not_repeated_after_a_server_error() -> None:
    client, seen = prolific_client([answer(201, {"id": "bonus-1"}), answer(500), answer(200, {})], FakeSleep())
    with pytest.raises(PlatformError, match=r"bulk-bonus-payments/bonus-1/pay/ failed .*not repeated"):
        prolific.pay_bonuses(client, "s1", {"p1": prolific.Decimal("1.00")})
    assert [r.url.path for r in seen] == ["/api/v1/submissions/bonus-payments/",
                                          "/api/v1/bulk-bonus-payments/bonus-1/pay/"]


# MTurk through the simulator ---------------------------------------------------------------------
def _hit_type(client: Any) -> str:
    return mturk.create_hit_type(client, {"Title": "t", "Description": "d", "Reward": "0.20",
                                          "AssignmentDurationInSeconds": 600, "AutoApprovalDelayInSeconds": 86400})


def _hit(i: int) -> dict[str, Any]:
    return {"MaxAssignments": 1, "LifetimeInSeconds": 86400, "Question": html_question(PAGE.replace("{item}", str(i)))}


def test_mturk_calls_complete_under_throttling_and_server_errors(sim) -> None:
    client = mturk.make_client(mturk.Target("sim", sim.url))
    sim.market.faults.throttle_rate, sim.market.faults.fault_rate = 0.3, 0.05
    type_id = _hit_type(client)
    ids = {mturk.create_hit(client, type_id, _hit(i), f"tok-{i}")[0] for i in range(40)}
    listed = {h["HITId"] for h in mturk.list_hits(client)}
    assert listed == ids and len(ids) == 40  # every HIT once: retried posts kept their token
    assert sim.market.calls > 42  # the faults were real: more attempts than calls


def test_a_post_without_its_token_is_not_repeated_after_a_server_error(sim) -> None:
    client = mturk.make_client(mturk.Target("sim", sim.url))
    type_id = _hit_type(client)
    sim.market.faults.fault_rate = 1.0  # every call answers 500 before acting
    before = sim.market.calls
    with pytest.raises(mturk.ClientError):
        client.create_hit_with_hit_type(HITTypeId=type_id, **_hit(1))
    assert sim.market.calls - before == 1
    with pytest.raises(mturk.ClientError):  # the same call with its token: the policy's ten attempts
        client.create_hit_with_hit_type(HITTypeId=type_id, UniqueRequestToken="tok", **_hit(1))
    assert sim.market.calls - before == 1 + RetryPolicy().attempts


def test_mturk_lists_come_through_the_paginator_page_by_page(sim) -> None:
    client = mturk.make_client(mturk.Target("sim", sim.url))
    type_id = _hit_type(client)
    ids = {client.create_hit_with_hit_type(HITTypeId=type_id, UniqueRequestToken=f"t{i}", **_hit(i))["HIT"]["HITId"]
           for i in range(250)}
    before = sim.market.calls
    listed = [h["HITId"] for h in mturk.list_hits(client)]
    assert sorted(listed) == sorted(ids)  # all 250, none twice
    assert sim.market.calls - before == 3  # pages of 100, 100 and 50
