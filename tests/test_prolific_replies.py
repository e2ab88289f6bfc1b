"""The third security round: the Prolific adapter reads generated hostile replies (any status, any JSON
shape, bytes that are not JSON, paging links anywhere) and either returns what Prolific
documents or raises one-line PlatformErrors: never another exception, never the token in a
message, never a request to another host."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flows.core.errors import ConfigError, PlatformError
from flows.platforms.prolific import adapter as prolific
from flows.platforms.retry_policy import RetryPolicy

TOKEN = "hostileRepliesToken0123456789"
BASE = "https://api.prolific.test"
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
JSON_VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=12)
HREFS = st.one_of(JSON_VALUES, st.sampled_from([f"{BASE}/api/v1/studies/s/submissions/?page=2",
                                                "https://evil.example/api/v1/x", f"{BASE}/elsewhere/"]))
ROWS = st.lists(st.dictionaries(st.sampled_from(["id", "status", "participant_id"]), st.text(max_size=10),
                                max_size=3), max_size=3)
LINKS = st.one_of(JSON_VALUES, st.fixed_dictionaries({"next": st.one_of(JSON_VALUES,
                                                                         st.fixed_dictionaries({"href": HREFS}))}))
PAGES = st.fixed_dictionaries({}, optional={"results": st.one_of(ROWS, JSON_VALUES), "_links": LINKS})
BODIES = st.one_of(PAGES.map(lambda p: json.dumps(p).encode()), JSON_VALUES.map(lambda v: json.dumps(v).encode()),
                   st.binary(max_size=40), st.just(b'{"error": "not an object"}'))
REPLIES = st.tuples(st.sampled_from([200, 201, 204, 400, 401, 403, 404, 409, 422]), BODIES)


def client_answering(replies: list[tuple[int, bytes]], seen: list[httpx.Request]) -> prolific.ProlificClient:
    """A client whose every request gets the next generated reply (the last one repeated)."""
    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        status, body = replies[min(len(seen), len(replies)) - 1]
        return httpx.Response(status, content=body, headers={"Content-Type": "application/json"})

    client = prolific.make_client(BASE, simulator=False)
    client.http = httpx.Client(base_url=f"{BASE}/api/v1/", transport=httpx.MockTransport(answer),
                               auth=client.http.auth, headers=client.http.headers)
    client.retry = RetryPolicy(attempts=1, sleep=lambda _: None)
    return client


def outcome(action: Any) -> Any:
    """What ``action`` returned, or the PlatformError (or ConfigError) it raised; anything else fails the test."""
    try:
        return action()
    except (PlatformError, ConfigError) as exc:
        return exc


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(REPLIES, min_size=1, max_size=4))
def test_generated_replies_give_results_or_one_line_errors(monkeypatch: pytest.MonkeyPatch,
                                                          replies: list[tuple[int, bytes]]) -> None:
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    seen: list[httpx.Request] = []
    client = client_answering(replies, seen)
    got = outcome(lambda: prolific.submissions(client, "s"))
    if isinstance(got, PlatformError):
        assert "\n" not in str(got) and TOKEN not in str(got)
    else:
        assert isinstance(got, list) and all(isinstance(r, dict) for r in got)
    assert {r.url.host for r in seen} == {"api.prolific.test"}
    assert all(r.url.path.startswith("/api/v1/") for r in seen)


# Single-field reads: a 200 reply whose object lacks the field, or has it as a list, an object,
# null or a string that is not a number, must be a one-line PlatformError naming the route.
FIELDS = ["id", "status", "name", "total_cost", "currency_code", "available_balance", "participant_id",
          "started_at", "completed_at"]
OBJECTS = st.dictionaries(st.sampled_from(FIELDS), st.one_of(JSON_VALUES, st.sampled_from(
    ["ACTIVE", "12", "2026-01-01T00:00:00Z", "not a time", "1.5"])), max_size=len(FIELDS))
FIELD_REPLIES = st.tuples(st.sampled_from([200, 201]), st.one_of(
    OBJECTS.map(lambda o: json.dumps(o).encode()),
    st.lists(OBJECTS, max_size=2).map(lambda rows: json.dumps({"results": rows}).encode()),
    JSON_VALUES.map(lambda v: json.dumps(v).encode())))
SINGLE_FIELD_CALLS: dict[str, Any] = {
    "create_study": (lambda c: prolific.create_study(c, {}), str),
    "transition": (lambda c: prolific.transition(c, "s", "PUBLISH"), str),
    "balance": (lambda c: prolific.balance(c, "w"), int),
    "study_cost": (lambda c: prolific.study_cost(c, 100, 3), int),
    "check_currency": (lambda c: prolific.check_currency(c, "GBP"), str),
    "default_workspace": (lambda c: prolific.default_workspace(c), str),
    "ensure_group": (lambda c: prolific.ensure_group(c, "w", "blocked"), str),
    "get_study": (lambda c: prolific.get_study(c, "s"), dict),
    "pay_bonuses": (lambda c: prolific.pay_bonuses(c, "s", {"p": Decimal("0.50")}), str),
    "submissions": (lambda c: prolific.submissions(c, "s"), list),
}


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(SINGLE_FIELD_CALLS)), st.lists(FIELD_REPLIES, min_size=1, max_size=3))
def test_single_field_reads_of_malformed_replies_are_one_line_errors(
        monkeypatch: pytest.MonkeyPatch, name: str, replies: list[tuple[int, bytes]]) -> None:
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    action, kind = SINGLE_FIELD_CALLS[name]
    got = outcome(lambda: action(client_answering(replies, [])))
    if isinstance(got, PlatformError):
        assert "\n" not in str(got) and TOKEN not in str(got) and "Prolific" in str(got)
    elif not isinstance(got, ConfigError):  # check_currency: another currency is the config's error
        assert isinstance(got, kind)


@pytest.mark.parametrize("name", sorted(SINGLE_FIELD_CALLS))
def test_a_reply_without_the_field_names_the_route_and_the_field(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    action, _ = SINGLE_FIELD_CALLS[name]
    got = outcome(lambda: action(client_answering([(200, b'{"results": [{"name": "blocked"}]}')], [])))
    assert isinstance(got, PlatformError), got
    assert "Prolific's reply to " in str(got) and "has no " in str(got) and "\n" not in str(got)
