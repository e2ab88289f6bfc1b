"""``hitflow review``: a local page for the work that needs a person (docs/how-to/review.md)."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack, suppress
from dataclasses import dataclass, field, replace
from urllib.parse import parse_qs, urlencode

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from flows.campaigns.review_data import platform_now
from flows.campaigns.review_rows import ledger_now, paused_runs
from flows.core.decisions import Decision
from flows.core.errors import HitflowError, InputFormatError
from flows.core.ledger.store import Store
from flows.core.pages.templates import render
from flows.core.run.run_context import Run
from flows.platforms.registry import platform_for
from flows.review.page_guard import EveryResponse, favicon
from flows.review.review_actions import PlatformLease, apply_decision, bonus_amount
from flows.review.review_cards import page_links, queue_cards
from flows.taskserver.task_guard import SecurityHeaders
from flows.taskserver.task_server_thread import TaskServer

COOKIE = "hitflow_review"
FILTERS = ("rule", "batch", "worker", "show", "page")
MAX_PAGE_TOKENS = 500
MAX_FORM_BYTES = 64 * 1024
RESUMING = threading.Lock()


@dataclass(kw_only=True)
class LoginSession:
    """One person's access to a local page: the one-time token, then the cookie's secret, and CSRF tokens."""

    login_token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    session: str = ""
    page_tokens: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def exchange(self, token: str) -> str:
        """The cookie's value for the one-time token, once; "" for a wrong or used token."""
        with self.lock:
            if not self.login_token or not secrets.compare_digest(token, self.login_token):
                return ""
            self.login_token, self.session = "", secrets.token_urlsafe(32)
            return self.session

    def signed_in(self, request: Request) -> bool:
        cookie = request.cookies.get(COOKIE, "")
        return bool(self.session and cookie and secrets.compare_digest(cookie, self.session))

    def page_token(self) -> str:
        token = secrets.token_urlsafe(24)
        with self.lock:
            self.page_tokens = [*self.page_tokens[-MAX_PAGE_TOKENS + 1:], token]
        return token

    def valid_page_token(self, token: str) -> bool:
        with self.lock:
            return any(secrets.compare_digest(token, t) for t in self.page_tokens)


@dataclass
class ReviewSite(LoginSession):
    """The reviewer's session on one campaign's queue (``connect``: the platform opened for a decision)."""

    run: Run
    reviewer: str
    mode: str
    connect: Callable[[], AbstractContextManager[Run]] | None = None
    closing: ExitStack = field(default_factory=ExitStack)
    _served: Run | None = None
    _lease: PlatformLease | None = None
    _connecting: threading.Lock = field(default_factory=threading.Lock)

    @property
    def served(self) -> Run:
        """The run with a ledger connection of the server's own thread (SQLite connections stay in theirs)."""
        if self._served is None:
            self._served = replace(self.run, store=Store(self.run.store.location))
        return self._served

    def now(self) -> float:
        """The platform's clock for the page: the open platform's, or the ledger's (status's too)."""
        return ledger_now(self.served.store, self.run.cfg.name) if self.connect else platform_now(self.served)

    def take_platform(self) -> Run:
        """The run with its platform open, to send a decision; handed back with :meth:`give_back_platform`."""
        if self.connect is None:
            return self.run
        with self._connecting:
            if self._lease is None:
                self._lease = PlatformLease(self.connect)
                self.closing.callback(self._lease.close)
        return self._lease.take()

    def give_back_platform(self) -> None:
        if self._lease is not None:
            self._lease.give_back()


def sign_in(site: LoginSession, request: Request, command: str = "the command",
            rerun: str = "start the command again") -> Response | None:
    """The shared gate: loopback only, the one-time link exchanged for a cookie, else 403; None: go on."""
    if not _same_host(request):
        return refused("this page answers on 127.0.0.1 only")
    token = request.query_params.get("token")
    if token is not None:
        cookie = site.exchange(token)
        if not cookie:
            return refused(f"this link was already used or is wrong; {rerun} for a new one")
        response = RedirectResponse(request.url.path, status_code=303)
        response.set_cookie(COOKIE, cookie, httponly=True, samesite="strict", path="/")
        return response
    if not site.signed_in(request):
        return refused(f"open the link {command} printed")
    return None


def _same_host(request: Request) -> bool:
    """Only the server's own address: a rebinding DNS name or another site's page is refused."""
    own = f"http://127.0.0.1:{(request.scope.get('server') or ('', 0))[1]}"
    if request.headers.get("host", "") != own.removeprefix("http://"):
        return False
    if request.method == "POST":
        origin = request.headers.get("origin") or ""
        return origin == own
    return True


def bad_request(why: str) -> Response:
    return PlainTextResponse(f"400 bad request: {why}; go back and correct it\n", status_code=400)


MAX_FIELDS = 40  # the page's forms send about 15


def read_form(body: bytes) -> dict[str, str]:
    """The POSTed form (urlencoded only, what the page's forms send; no multipart parser needed)."""
    try:
        pairs = parse_qs(body.decode("utf-8", "replace"), max_num_fields=MAX_FIELDS)
    except ValueError as exc:  # over max_num_fields
        raise InputFormatError(f"the form has more than {MAX_FIELDS} fields") from exc
    return {k: v[0] for k, v in pairs.items()}


def decision_fields(form: dict[str, str]) -> tuple[int, dict[str, str]]:
    """The batch and the decision's fields, a bonus as dollars and cents ("1E+1" is refused)."""
    fields = {k: form.get(k, "") for k in ("action", "worker_id", "assignment_id", "image_id", "reason",
                                           "category", "amount", "idem_key")}
    if fields["action"] == "bonus":
        fields["amount"] = bonus_amount(fields["amount"])
    batch = form.get("batch", "")
    if not (batch.isascii() and batch.isdigit() and len(batch) <= 9):  # SQLite's integers end at 2**63
        raise InputFormatError(f"batch {batch[:20]!r} is not a batch number")
    return int(batch), fields


def refused(why: str) -> Response:
    return PlainTextResponse(f"403 forbidden: {why}\n", status_code=403)


def make_review_app(site: ReviewSite) -> ASGIApp:
    async def page(request: Request) -> Response:
        if (gate := sign_in(site, request, "`hitflow review`", "run `hitflow review` again")) is not None:
            return gate
        filters = {k: request.query_params.get(k, "") for k in FILTERS}
        try:
            context = queue_cards(site.served, site.mode, filters, site.now())
        except InputFormatError as exc:
            return bad_request(str(exc))
        filters["page"] = str(context["pages"]["page"])  # a decision sent from this page comes back to it
        platform = platform_for(site.run.platform)
        request.state.image_origins = context.pop("image_origins")
        html = render("review.html.j2", {**context, "filters": filters, "csrf": site.page_token(),
                                         "nonce": request.state.csp_nonce, "reviewer": site.reviewer,
                                         "campaign": site.run.cfg.name, "message": request.query_params.get("msg", ""),
                                         "links": page_links(filters, context["pages"]),
                                         "categories": platform.REVIEW_CATEGORIES,
                                         "min_reason_chars": platform.MIN_REASON_CHARS})
        return HTMLResponse(html)

    async def decide(request: Request) -> Response:
        if not _same_host(request):
            return refused("cross-site or foreign-host request")
        if not site.signed_in(request):
            return refused("open the link `hitflow review` printed")
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            return PlainTextResponse("413 form too large\n", status_code=413)
        try:
            form = read_form(body)
            if not site.valid_page_token(form.get("csrf", "")):
                return refused("the page token is missing or stale; reload the page")
            batch, fields = decision_fields(form)
        except InputFormatError as exc:
            return bad_request(str(exc))
        try:
            sending = replace(await run_in_threadpool(site.take_platform), store=site.served.store)
            try:
                done = apply_decision(sending, Decision(batch=batch, reviewer=site.reviewer, **fields))
            finally:
                site.give_back_platform()
            message = (f"{'already sent, not sent again' if done['repeat'] else 'sent'}: {done['action']} "
                       f"{fields['assignment_id'] or fields['worker_id']} ({done['outcome']})")
        except (ValueError, HitflowError) as exc:
            message = f"not sent: {exc}"
        if paused_runs(site.served.store, site.run.cfg.name):  # a Prefect run waits for this queue
            message += await run_in_threadpool(resume_cleared, site)
        back = {k: str(form.get(f"f_{k}", "")) for k in FILTERS}
        query = urlencode({"msg": message, **{k: v for k, v in back.items() if v}})  # the message first, as before
        return RedirectResponse(f"./?{query}", status_code=303)  # relative: also under the overview's /review/NAME/

    routes = [Route("/", page, methods=["GET"]), Route("/decide", decide, methods=["POST"]),
              Route("/favicon.ico", favicon)]
    return EveryResponse(Starlette(routes=routes, middleware=[Middleware(SecurityHeaders)]))


def resume_cleared(site: ReviewSite) -> str:
    """Resume the paused flow runs whose batch the reviewer just cleared (on a thread of its own)."""
    from flows.review.review_pause import resume_if_cleared

    try:
        run = site.take_platform()  # the platform's clock says which batches are cleared
    except HitflowError as exc:
        return f"; the paused flow run was not resumed: {exc}"
    try:
        with RESUMING:  # one resume at a time, on a ledger connection of this thread
            resumed = resume_if_cleared(replace(run, store=Store(site.run.store.location)), site.reviewer)
    finally:
        site.give_back_platform()
    return f"; queue cleared: flow run {', '.join(resumed)} resumed" if resumed else ""


class PageServer(TaskServer):
    """A local page's app on a background uvicorn thread (the task server's runner, another app)."""

    def __init__(self, app: ASGIApp, host: str = "127.0.0.1", port: int = 0):
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off", access_log=False)
        self.server, self.host, self.url, self._thread = uvicorn.Server(config), host, "", None


class ReviewServer(PageServer):
    def __init__(self, site: ReviewSite, host: str = "127.0.0.1", port: int = 0):
        super().__init__(make_review_app(site), host, port)


def serve_review(run: Run, reviewer: str, port: int = 0,
                 connect: Callable[[], AbstractContextManager[Run]] | None = None) -> None:
    """``hitflow review``: serve until Ctrl-C, printing the one-time link; ``connect``: as :class:`ReviewSite`'s."""
    site = ReviewSite(run, reviewer, run.cfg.review, connect)
    server = ReviewServer(site, port=port)
    with site.closing:
        site.take_platform()  # a platform it cannot reach is refused now, in one line; let go once idle
        site.give_back_platform()
        with server:
            print(f"review page for {run.cfg.name} (reviewer {reviewer}): {server.url}/?token={site.login_token}",
                  flush=True)
            print("the link works once; Ctrl-C stops the server", flush=True)
            if paused_runs(run.store, run.cfg.name):  # cleared before the page opened (or by another reviewer)
                print(f"review: {resume_cleared(site).removeprefix('; ') or 'a flow run waits for this queue'}",
                      flush=True)
            with suppress(KeyboardInterrupt):
                while True:
                    time.sleep(0.5)
