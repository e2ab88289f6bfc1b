"""Prolific's researcher API through httpx, the token only in the ``Authorization`` header."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import httpx

from flows.core.config.prolific_section import PROLIFIC_MIN_HOURLY
from flows.core.errors import BudgetError, ConfigError, PlatformError
from flows.core.http_clients import http_client
from flows.platforms.prolific import paging
from flows.platforms.prolific.facts import SIM_TOKEN
from flows.platforms.prolific.fields import first, number_field, record, text_field
from flows.platforms.prolific.paging import (
    PageBudget,
    bounded_json,
    bounded_send,
    next_href,
    page_count,
    page_results,
    path_id,
    printable,
)
from flows.platforms.retry_policy import Failure, RetryableStatus, RetryPolicy, prolific_failure, prolific_repeatable

PROLIFIC_URL = "https://api.prolific.com"
PAGE_SIZE = 100
# what flows/platforms/prolific/batches.py reads of every listed submission (Prolific's SubmissionShort)
SUBMISSION_FIELDS = ("id", "status", "participant_id", "started_at")


@dataclass
class ProlificClient:
    http: httpx.Client
    base_url: str
    retry: RetryPolicy = field(default_factory=RetryPolicy)  # flows/platforms/retry_policy.py
    currency: str | None = None  # the workspace's, once read (check_currency)

    def close(self) -> None:
        self.http.close()


_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_\-.~+/=]{8,512}")


def clean_token(raw: str, where: str) -> str:
    """The token without surrounding whitespace; refused, unechoed, when it could not be a Prolific token."""
    value = raw.strip()
    if not _TOKEN_SHAPE.fullmatch(value):
        raise ConfigError(f"the Prolific token from {where} is malformed ({len(value)} characters, expected 8-512 "
                          "letters, digits or -_.~+/=); copy it again from Prolific's API tokens page")
    return value


def token(simulator: bool) -> str:
    """The token to send: a dummy for the simulator, the real one for Prolific itself."""
    if simulator:  # whatever PROLIFIC_TOKEN holds
        return SIM_TOKEN
    if os.environ.get("PROLIFIC_TOKEN", "").strip():
        return clean_token(os.environ["PROLIFIC_TOKEN"], "PROLIFIC_TOKEN")
    try:
        from prefect.blocks.system import Secret

        block: Any = Secret.load("prolific-token")
        raw = str(block.get())
    except Exception as exc:  # any failure here means: no token configured
        raise ConfigError("no Prolific token: set PROLIFIC_TOKEN or create a Prefect Secret block "
                          "named prolific-token") from exc
    return clean_token(raw, "the Prefect Secret block prolific-token")


def make_client(base_url: str, simulator: bool) -> ProlificClient:
    base = base_url.rstrip("/")
    secret = token(simulator)
    http = http_client(base_url=base + "/api/v1/", headers={"Accept": "application/json"}, timeout=30,
                       auth=_HostToken(secret, base), follow_redirects=False)
    return ProlificClient(http, base)


class _HostToken(httpx.Auth):
    """``Authorization: Token ...`` on requests to the configured origin only."""

    def __init__(self, secret: str, base_url: str):
        self._header = f"Token {secret}"
        self._origin = _origin(base_url)

    def auth_flow(self, request: httpx.Request) -> Any:
        if _origin(str(request.url)) == self._origin:
            request.headers["Authorization"] = self._header
        yield request


def _origin(url: str) -> tuple[str, str, int | None]:
    u = httpx.URL(url)
    return u.scheme, u.host, u.port


def call(client: ProlificClient, method: str, path: str, body: dict[str, Any] | None = None,
         params: dict[str, Any] | None = None) -> Any:
    """One request, retried as the retry policy allows; a Prolific error becomes a PlatformError."""
    started = time.monotonic()
    def attempt() -> httpx.Response:
        paging.within_retries_deadline(started, f"{method} {_path_only(path)}")
        resp = bounded_send(client.http, method, path, body, params)
        if resp.status_code == 429 or resp.status_code >= 500:
            raise RetryableStatus(resp)
        return resp

    repeatable = prolific_repeatable(method, path)
    try:
        resp = client.retry.run(attempt, repeatable, prolific_failure)
    except RetryableStatus as exc:
        resp = exc.response
        if resp.status_code >= 500 and not repeatable:
            raise PlatformError(_not_repeated(method, path, f"it answered {resp.status_code}")) from None
    except httpx.HTTPError as exc:  # the exception's text may quote headers: only its kind is shown
        if not repeatable and prolific_failure(exc)[0] is Failure.AMBIGUOUS:
            raise PlatformError(_not_repeated(method, path, type(exc).__name__)) from None
        raise PlatformError(f"Prolific {method} {_path_only(path)} failed: {type(exc).__name__}; check the "
                            "network and the endpoint URL") from None
    if resp.status_code >= 400:
        raise PlatformError(f"Prolific {method} {printable(path, 120)} answered {resp.status_code}: "
                            f"{_error_text(resp)}")
    try:
        return bounded_json(resp.content) if resp.content else {}
    except ValueError:  # not JSON (or not UTF-8, or nested past MAX_JSON_DEPTH): a proxy's page, a cut reply
        raise PlatformError(f"Prolific {method} {_path_only(path)} answered {resp.status_code} with a body that is "
                            "not JSON; check the endpoint URL") from None


def _error_text(resp: httpx.Response) -> str:
    """Prolific's error title and detail, whatever shape the reply has, as one short line."""
    try:
        err = bounded_json(resp.content).get("error", {})
        why = f"{err.get('title', '')} {err.get('detail', '')}".strip()
    except (ValueError, AttributeError):  # not JSON, or not the documented object
        why = resp.text[:200]
    return printable(why)  # no terminal escapes from the server reach the screen


def _not_repeated(method: str, path: str, what: str) -> str:
    return (f"Prolific {method} {_path_only(path)} failed ({what}) and was not repeated: Prolific may have acted "
            "on it and this call cannot be made twice safely; check on Prolific whether it took effect "
            "before running again")


def every_page(client: ProlificClient, path: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """All results: ``_links.next.href`` until null, or ``offset`` until ``meta.count``, within a PageBudget."""
    budget = PageBudget(path)
    page = call(client, "GET", path, params={"page_size": PAGE_SIZE, **(params or {})})
    results = page_results(page, _path_only(path))
    while True:
        got = len(page["results"])
        if href := next_href(page):
            budget.next_page(href, got)
            page = call(client, "GET", same_host_link(client, href))
        elif len(results) < page_count(page) and page["results"]:
            budget.next_page(f"offset={len(results)}", got)
            page = call(client, "GET", path, params={**(params or {}), "limit": PAGE_SIZE, "offset": len(results)})
        else:
            return results
        results += page_results(page, _path_only(path))


def same_host_link(client: ProlificClient, href: str) -> str:
    """A paging link, only when it points at the configured API (else refused)."""
    if _origin(href) != _origin(client.base_url) or not httpx.URL(href).path.startswith("/api/v1/"):
        raise PlatformError(f"Prolific's next-page link points outside {client.base_url} "
                            f"({printable(_path_only(href), 120)}); refusing to follow it")
    return href


def _path_only(url: str) -> str:
    """A URL for messages: scheme, host and path, never its query."""
    u = httpx.URL(url)
    return printable(f"{u.scheme}://{u.host}{u.path}" if u.host else u.path, 200)


def default_workspace(client: ProlificClient) -> str:
    return path_id(text_field(first(every_page(client, "workspaces/"), "GET workspaces/"), "id", "GET workspaces/"),
                   "GET workspaces/")


def ensure_group(client: ProlificClient, workspace_id: str, name: str) -> str:
    for group in every_page(client, "participant-groups/", {"workspace_id": workspace_id}):
        if group.get("name") == name:
            return path_id(text_field(group, "id", "GET participant-groups/"), "GET participant-groups/")
    made = call(client, "POST", "participant-groups/", {"workspace_id": workspace_id, "name": name})
    return path_id(text_field(made, "id", "POST participant-groups/"), "POST participant-groups/")


def add_to_group(client: ProlificClient, group_id: str, participant_ids: list[str]) -> None:
    call(client, "POST", f"participant-groups/{path_id(group_id, 'a participant group')}/participants/",
         {"participant_ids": participant_ids})


def check_hourly_pay(reward_minor: int, minutes: int, currency: str, floor: Decimal | None = None) -> Decimal:
    """Refuse a reward below the hourly minimum on the estimated (median) time; the hourly rate."""
    hourly = Decimal(reward_minor) / 100 * 60 / Decimal(minutes)
    minimum = floor if floor is not None else PROLIFIC_MIN_HOURLY.get(currency, PROLIFIC_MIN_HOURLY["GBP"])
    if hourly < minimum:
        raise BudgetError(f"a reward of {reward_minor / 100:.2f} {currency} for {minutes} minutes pays "
                          f"{hourly:.2f} {currency}/hour, below the minimum of {minimum} {currency}/hour; "
                          "raise [prolific].reward or lower estimated_minutes")
    return hourly.quantize(Decimal("0.01"))


def study_cost(client: ProlificClient, reward_minor: int, places: int) -> int:
    """Total in minor units with Prolific's fees, from its own cost calculator."""
    quote = call(client, "POST", "study-cost-calculator/", {"reward": reward_minor, "total_available_places": places})
    return number_field(quote, "total_cost", "POST study-cost-calculator/")


def check_currency(client: ProlificClient, wanted: str) -> str:
    """The workspace's currency (read once), refused when it is not the config's."""
    if client.currency is None:
        route = f"workspaces/{default_workspace(client)}/balance/"
        client.currency = text_field(call(client, "GET", route), "currency_code", f"GET {route}")
    if client.currency != wanted:
        raise ConfigError(f"the Prolific workspace is billed in {client.currency} but [prolific] currency is {wanted}; "
                          f"set [prolific] currency = \"{client.currency}\" and state the reward in {client.currency}")
    return client.currency


def create_study(client: ProlificClient, body: dict[str, Any]) -> str:
    return path_id(text_field(call(client, "POST", "studies/", body), "id", "POST studies/"), "POST studies/")


def transition(client: ProlificClient, study_id: str, action: str) -> str:
    route = f"studies/{path_id(study_id, 'a study')}/transition/"
    return text_field(call(client, "POST", route, {"action": action}), "status", f"POST {route}")


def get_study(client: ProlificClient, study_id: str) -> dict[str, Any]:
    route = f"studies/{path_id(study_id, 'a study')}/"
    return record(call(client, "GET", route), ("id", "status"), f"GET {route}")


def submissions(client: ProlificClient, study_id: str) -> list[dict[str, Any]]:
    route = f"studies/{path_id(study_id, 'a study')}/submissions/"
    return [record(s, SUBMISSION_FIELDS, f"GET {route}") for s in every_page(client, route)]


def approve(client: ProlificClient, study_id: str, submission_ids: list[str]) -> None:
    if submission_ids:
        call(client, "POST", "submissions/bulk-approve/", {"submission_ids": submission_ids})  # the schema's body


def reject(client: ProlificClient, submission_id: str, category: str, message: str) -> None:
    if len(message) < 100:
        raise PlatformError(f"a Prolific rejection message needs at least 100 characters (got {len(message)})")
    call(client, "POST", f"submissions/{path_id(submission_id, 'a submission')}/transition/",
         {"action": "REJECT", "rejection_category": category, "message": message})


def request_return(client: ProlificClient, submission_id: str, reasons: list[str]) -> None:
    call(client, "POST", f"submissions/{path_id(submission_id, 'a submission')}/request-return/",
         {"request_return_reasons": reasons})


def pay_bonuses(client: ProlificClient, study_id: str, amounts: dict[str, Decimal]) -> str:
    """Two steps, as Prolific wants: set the bonuses up (priced with fees), then pay them."""
    csv_rows = "\n".join(f"{pid},{amount:.2f}" for pid, amount in amounts.items())
    bonus = call(client, "POST", "submissions/bonus-payments/", {"study_id": study_id, "csv_bonuses": csv_rows})
    route = "POST submissions/bonus-payments/"
    bonus_id = path_id(text_field(bonus, "id", route), route)
    call(client, "POST", f"bulk-bonus-payments/{bonus_id}/pay/")
    return bonus_id


def balance(client: ProlificClient, workspace_id: str) -> int:
    route = f"workspaces/{path_id(workspace_id, 'a workspace')}/balance/"
    return number_field(call(client, "GET", route), "available_balance", f"GET {route}")
