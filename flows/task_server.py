"""hitflow's task server: a campaign's pages for Prolific participants, invited annotators and
MTurk ExternalQuestion workers. Every response is stored in SQLite before the server answers.

Routes (nothing else is served): ``GET /health``; ``GET /task/<campaign>`` with Prolific's
``PROLIFIC_PID``, ``STUDY_ID``, ``SESSION_ID``, or an invite ``invite=<name>.<token>``, or
MTurk's ``assignmentId``/``hitId``/``workerId``/``turkSubmitTo``; ``POST /task/<campaign>/submit``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from flows.batch_collect import answer_rows
from flows.config import CampaignConfig
from flows.sim.forms import answer_xml, form_fields
from flows.store import Store
from flows.task_guard import (
    MTURK_SUBMIT_ORIGINS,
    BadLength,
    BodyTooLarge,
    SecurityHeaders,
    SessionLimits,
    bounded_body,
    client_address,
    origin_of,
)
from flows.task_pages import task_page
from flows.task_units import choose_unit, exact_fields, hold_seconds, xml_safe
from flows.templates import render

PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc="
MAX_BODY = 256 * 1024  # a page of five captions is a few kilobytes
logger = logging.getLogger("hitflow.task_server")


def task_secret(store_path: Path) -> bytes:
    """The HMAC key for session signatures and invite tokens: HITFLOW_TASK_SECRET, or a random
    key kept beside the store (mode 600) so a restarted server still accepts its own pages."""
    if os.environ.get("HITFLOW_TASK_SECRET"):
        return os.environ["HITFLOW_TASK_SECRET"].encode()
    path = Path(f"{store_path}.task-secret")
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(32))
    return path.read_text().strip().encode()


def sign(secret: bytes, *parts: str) -> str:
    return hmac.new(secret, "|".join(parts).encode(), hashlib.sha256).hexdigest()[:32]


def completion_code(secret: bytes, campaign: str, batch: int) -> str:
    """The code a finished participant brings back to Prolific: one per study (a study is one
    batch, created with its code), unguessable without the server's secret."""
    return "HF" + sign(secret, "completion", campaign, str(batch))[:10].upper()


def invite_link(secret: bytes, base_url: str, campaign: str, name: str) -> str:
    return f"{base_url.rstrip('/')}/task/{campaign}?invite={name}.{sign(secret, 'invite', campaign, name)[:16]}"


class Refused(Exception):
    """A request the server will not serve; the message is shown to the person."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class TaskSite:
    store_path: Path
    campaigns: dict[str, CampaignConfig]
    completion_base: str = PROLIFIC_COMPLETE
    secret: bytes = b""
    now: Callable[[], float] = time.time
    limits: SessionLimits = field(default_factory=SessionLimits)
    # The simulated crowd all comes from loopback; a deployment behind a proxy on loopback
    # sets this (docs/security.md).
    limit_loopback: bool = False
    page_fields: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    _local: threading.local = field(default_factory=threading.local)

    def __post_init__(self) -> None:
        self.secret = self.secret or task_secret(self.store_path)

    def store(self) -> Store:
        # SQLite connections stay in the thread that opened them.
        if not hasattr(self._local, "store"):
            self._local.store = Store(self.store_path)
        return self._local.store  # type: ignore[no-any-return]

    def campaign(self, name: str) -> CampaignConfig:
        if name not in self.campaigns:
            raise Refused(404, "There is no such task here. Check the link you were given.")
        return self.campaigns[name]

    def admit(self, participant: str, address: str) -> None:
        """Count a new session against the person's and the address's limits."""
        if address in ("127.0.0.1", "::1") and not self.limit_loopback:
            address = ""
        if not self.limits.allow(participant, address or participant):
            raise Refused(429, "Too many new task sessions from you in a short time. Finish or return the "
                               "ones you have, then try again in a few minutes.")


def _identity(site: TaskSite, cfg: CampaignConfig, query: dict[str, str]) -> tuple[str, str, str, str]:
    """(route, participant, study, session) from Prolific's parameters or an invite token."""
    if query.get("PROLIFIC_PID") and query.get("SESSION_ID"):
        if not query.get("STUDY_ID"):  # the study says which batch, and which completion code
            raise Refused(403, "This link lacks its STUDY_ID. Open the task from Prolific.")
        return "prolific", query["PROLIFIC_PID"], query["STUDY_ID"], query["SESSION_ID"]
    invite = query.get("invite", "")
    name, _, token = invite.rpartition(".")
    if name and hmac.compare_digest(token.encode(), sign(site.secret, "invite", cfg.name, name)[:16].encode()):
        return "invite", f"invite:{name}", "", "inv-" + sign(site.secret, "session", cfg.name, name, str(site.now()))
    raise Refused(403, "This link is missing its participant details or its invite token is not valid. "
                       "Open the task from Prolific or from the exact link you were invited with.")


def open_batch(store: Store, cfg: CampaignConfig, study_id: str) -> int:
    """The batch a participant works on: the study's batch, or the newest published one."""
    if study_id:
        rows = store.rows("SELECT batch FROM studies WHERE study_id = ? AND campaign = ?", [study_id, cfg.name])
        if not rows:
            raise Refused(404, "This study is not served here. Return it on Prolific; you will not be penalised.")
        return int(rows[0]["batch"])
    rows = store.rows("SELECT MAX(batch) AS b FROM batches WHERE campaign = ? AND status IN "
                      "('published', 'collected') AND batch > 0", [cfg.name])
    if not rows or rows[0]["b"] is None:
        raise Refused(503, "No work is open right now. Please try your link again later.")
    return int(rows[0]["b"])


def allocate(site: TaskSite, cfg: CampaignConfig, query: dict[str, str], address: str = "") -> dict[str, Any]:
    """The participant's session: an existing one for the same SESSION_ID, or a fresh unit.
    Reading who holds what and taking a unit is one ``BEGIN IMMEDIATE`` transaction, so
    parallel requests of one person never get the same items twice."""
    route, participant, study, session = _identity(site, cfg, query)
    store = site.store()
    with store.immediate():
        if route == "invite":  # a reload keeps the invitee's open unit
            open_ones = store.rows("SELECT session_id FROM task_sessions WHERE campaign = ? AND participant_id = ? "
                                   "AND submitted_at IS NULL ORDER BY created_at DESC LIMIT 1", [cfg.name, participant])
            session = open_ones[0]["session_id"] if open_ones else session
        known = store.rows("SELECT * FROM task_sessions WHERE session_id = ?", [session])
        if known:
            if known[0]["participant_id"] != participant or known[0]["campaign"] != cfg.name:
                raise Refused(403, "This session belongs to someone else.")
            return known[0]
        if store.table("blocks").count_where("campaign = ? AND worker_id = ?", [cfg.name, participant]):
            raise Refused(403, "There is no more work for you in this study. Thank you for taking part.")
        batch = open_batch(store, cfg, study)
        site.admit(participant, address)
        row = _new_session(site, cfg, batch, participant, session)
        row.update(study_id=study, route=route)
        store.insert_raw("task_sessions", [row])
    return row


def _new_session(site: TaskSite, cfg: CampaignConfig, batch: int, participant: str, session: str) -> dict[str, Any]:
    """A fresh unit: the least held one without items the person already had. A session that
    was neither submitted nor finished within the campaign's hold time holds nothing."""
    store = site.store()
    units = store.rows("SELECT hit_index AS unit, group_concat(item_id, char(31)) AS items FROM "
                       "(SELECT * FROM items WHERE campaign = ? AND batch = ? ORDER BY rowid) GROUP BY hit_index",
                       [cfg.name, batch])
    stale = site.now() - hold_seconds(cfg)
    held = {r["unit"]: r["n"] for r in store.rows(
        "SELECT unit, COUNT(*) AS n FROM task_sessions WHERE campaign = ? AND batch = ? AND released = 0 "
        "AND (submitted_at IS NOT NULL OR created_at > ?) GROUP BY unit", [cfg.name, batch, stale])}
    seen = {i for r in store.rows("SELECT item_ids FROM task_sessions WHERE campaign = ? AND participant_id = ?",
                                  [cfg.name, participant]) for i in json.loads(r["item_ids"])}
    options = [(u["unit"], u["items"].split("\x1f"), held.get(u["unit"], 0)) for u in units]
    unit = choose_unit(options, seen, cfg.assignments_per_image)
    if unit is None:
        raise Refused(409, "There is no work left that you have not already done. Please return the study; "
                           "you will not be penalised.")
    return {"session_id": session, "campaign": cfg.name, "batch": batch, "unit": unit[0],
            "item_ids": json.dumps(unit[1]), "participant_id": participant, "created_at": site.now(),
            "submitted_at": None, "completion_code": "", "released": 0}


def _item_rows(site: TaskSite, cfg: CampaignConfig, ids: list[str]) -> list[dict[str, Any]]:
    rows = {r["item_id"]: r for r in site.store().rows(
        f"SELECT item_id, file_name, url, payload FROM items WHERE campaign = ? AND item_id IN "
        f"({','.join('?' * len(ids))})", [cfg.name, *ids])}
    return [rows[i] for i in ids if i in rows]


def page_for(site: TaskSite, cfg: CampaignConfig, session: dict[str, Any], request: Request) -> str:
    ids = json.loads(session["item_ids"])
    rows = _item_rows(site, cfg, ids)
    request.state.image_origins = {o for o in (origin_of(r["url"]) for r in rows) if o}
    if session["route"] == "prolific":  # the completion redirect is a form navigation too
        request.state.form_origins = {o for o in [origin_of(site.completion_base)] if o}
    return task_page(cfg, rows, submit_url=f"/task/{cfg.name}/submit", assignment_id=session["session_id"],
                     signature=sign(site.secret, cfg.name, session["session_id"], session["item_ids"]),
                     csp_nonce=request.state.csp_nonce)


def page_names(site: TaskSite, cfg: CampaignConfig, item_ids: str) -> set[str]:
    """The field names of the page a unit was served with (what a submission may carry)."""
    key = (cfg.name, item_ids)
    if key not in site.page_fields:
        html = task_page(cfg, _item_rows(site, cfg, json.loads(item_ids)), submit_url="", assignment_id="",
                         signature="")
        site.page_fields[key] = {f.name for f in form_fields(html)}
    return site.page_fields[key]


def store_response(site: TaskSite, cfg: CampaignConfig, fields: dict[str, str]) -> dict[str, Any]:
    """Check the session, its signature and that the fields are exactly its unit's, then store
    the answer and mark the session done, once: a concurrent duplicate finds it done."""
    store = site.store()
    session_id = fields.pop("assignmentId", "")
    given_sig = fields.pop("sig", "")
    with store.immediate():
        found = store.rows("SELECT * FROM task_sessions WHERE session_id = ? AND campaign = ?",
                           [session_id, cfg.name])
        if not found:
            raise Refused(400, "This submission names no session we handed out. Open the task again from its link.")
        session = found[0]
        ids = json.loads(session["item_ids"])
        expected = sign(site.secret, cfg.name, session_id, session["item_ids"])
        if not hmac.compare_digest(given_sig.encode(), expected.encode()) or not exact_fields(
                fields, ids, page_names(site, cfg, session["item_ids"])):
            raise Refused(400, "This submission was changed after the page was served, so it was not accepted. "
                               "Reload the task page and submit it again.")
        if not xml_safe(fields):
            raise Refused(400, "This submission contains control characters that no task page produces. "
                               "Remove them from your answers and submit again.")
        if session["submitted_at"] is not None:
            return session  # resubmitting is harmless: same answer, same completion
        code = completion_code(site.secret, cfg.name, session["batch"]) if session["route"] == "prolific" else ""
        xml, now = answer_xml(fields), site.now()
        store.insert_raw("assignments", [{
            "assignment_id": session_id, "hit_id": f"{session['study_id'] or session['route']}:u{session['unit']}",
            "campaign": cfg.name, "batch": session["batch"], "worker_id": session["participant_id"],
            "status": "Submitted", "accept_time": session["created_at"], "submit_time": now,
            "auto_approval_time": None, "answer_xml": xml, "parse_error": "", "fetched_at": now}], "IGNORE")
        store.insert_raw("answers", answer_rows(session_id, xml, ids), "REPLACE")
        store.db.conn.execute("UPDATE task_sessions SET submitted_at = ?, completion_code = ? WHERE session_id = ?",
                              [now, code, session_id])
    return {**session, "submitted_at": now, "completion_code": code}


def _message(request: Request, status: int, title: str, text: str) -> HTMLResponse:
    return HTMLResponse(render("server_message.html.j2", {"title": title, "text": text,
                                                          "csp_nonce": request.state.csp_nonce}),
                        status_code=status)


def form_fields_of(body: bytes) -> dict[str, str]:
    """A urlencoded body as one value per name (repeated names joined by ``|``); undecodable
    bytes become U+FFFD rather than an error."""
    return {k: v[0] if len(v) == 1 else "|".join(v)
            for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}


def make_app(site: TaskSite) -> Starlette:
    def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "campaigns": sorted(site.campaigns)})

    async def task_page(request: Request) -> Response:
        try:
            cfg = site.campaign(request.path_params["campaign"])
            query = dict(request.query_params)
            if query.get("hitId") and query.get("assignmentId"):
                return HTMLResponse(await _in_thread(mturk_page, site, cfg, query["hitId"], request))
            session = await _in_thread(allocate, site, cfg, query, client_address(request))
            return HTMLResponse(await _in_thread(page_for, site, cfg, session, request))
        except Refused as exc:
            return _message(request, exc.status, "Cannot open this task", str(exc))

    async def submit(request: Request) -> Response:
        try:
            fields = form_fields_of(await bounded_body(request, MAX_BODY))
            cfg = site.campaign(request.path_params["campaign"])
            session = await _in_thread(store_response, site, cfg, fields)
        except BodyTooLarge:
            return _message(request, 413, "Too large", "This submission is larger than any task page produces.")
        except BadLength:
            return _message(request, 400, "Bad request", "The request's Content-Length is not a number.")
        except Refused as exc:
            return _message(request, exc.status, "Submission not accepted", str(exc))
        if session["route"] == "prolific":
            return RedirectResponse(site.completion_base + session["completion_code"], status_code=303)
        return _message(request, 200, "Thank you", "Your answers were saved. You can close this page.")

    return Starlette(routes=[Route("/health", health), Route("/task/{campaign}", _guarded(task_page)),
                             Route("/task/{campaign}/submit", _guarded(submit), methods=["POST"])],
                     middleware=[Middleware(SecurityHeaders)])


def _guarded(route: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """Never a traceback, to the person or in the log: an unexpected failure is one log line
    (without the request's values) and a plain 500 page."""
    async def guarded(request: Request) -> Response:
        try:
            return await route(request)
        except Exception as exc:  # the last line of defence; every known bad input is refused above
            logger.error("task server: %s on %s %s", type(exc).__name__, request.method, request.url.path)
            return _message(request, 500, "Something went wrong", "Your request could not be handled. Please "
                            "try again in a minute; if it keeps failing, contact the researcher.")

    return guarded


async def _in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(fn, *args)


def mturk_page(site: TaskSite, cfg: CampaignConfig, hit_id: str, request: Request) -> str:
    """An ExternalQuestion HIT's page; the form posts back to MTurk's externalSubmit, and only there."""
    rows = site.store().rows("SELECT item_ids FROM hits WHERE hit_id = ? AND campaign = ?", [hit_id, cfg.name])
    if not rows:
        raise Refused(404, "This HIT is not served here.")
    items = _item_rows(site, cfg, json.loads(rows[0]["item_ids"]))
    request.state.image_origins = {o for o in (origin_of(r["url"]) for r in items) if o}
    request.state.form_origins = set(MTURK_SUBMIT_ORIGINS)
    return task_page(cfg, items, csp_nonce=request.state.csp_nonce)
