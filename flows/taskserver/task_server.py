"""hitflow's task server; every response is stored before the server answers."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from flows.answers.control_quiz import quiz_rows
from flows.campaigns.block_evidence import failed_controls
from flows.campaigns.task_kinds import kind_of
from flows.campaigns.task_pages import task_page
from flows.core.config.config import CampaignConfig
from flows.core.errors import HitflowError
from flows.core.ledger.store import Store
from flows.core.pages.crowd_elements import flat_answers
from flows.core.pages.mturk_forms import answer_rows, answer_xml, form_fields
from flows.core.pages.page_telemetry import bounded_telemetry
from flows.core.pages.radio_buttons import BUTTONS
from flows.core.pages.templates import render
from flows.core.site_secrets import (  # noqa: F401  (invite_link: the task server's public name, as before)
    completion_code,
    invite_link,
    page_signature,
    page_signature_valid,
)
from flows.taskserver import quiz_pages
from flows.taskserver.task_guard import (
    MTURK_SUBMIT_ORIGINS,
    BadLength,
    BodyTooLarge,
    SecurityHeaders,
    bounded_body,
    client_address,
    origin_of,
    static_handler_hashes,
)
from flows.taskserver.task_site import Refused, TaskSite
from flows.taskserver.task_units import NO_WORK, allocate, exact_fields, open_batch_or_reason, secret_fingerprint

MAX_BODY = 256 * 1024  # a page of five captions is a few kilobytes
logger = logging.getLogger("hitflow.task_server")


def _item_rows(site: TaskSite, cfg: CampaignConfig, ids: list[str]) -> list[dict[str, Any]]:
    """The page's items: its unit's, after the quiz's on a worker's first page (flows/answers/control_quiz.py)."""
    rows = {r["item_id"]: r for r in site.store().rows(
        f"SELECT item_id, file_name, url, payload FROM items WHERE campaign = ? AND item_id IN "
        f"({','.join('?' * len(ids))})", [cfg.name, *ids])}
    quiz = quiz_rows(site.store(), cfg.name) if len(rows) < len(ids) else {}
    return [rows.get(i) or quiz[i] for i in ids if i in rows or i in quiz]


def kept_apart(site: TaskSite, cfg: CampaignConfig) -> tuple[bool, str]:
    """Whether the campaign's page keeps its items apart (a unit of several is shown one a page: quiz_pages.py),
    and its first answer field; read once a campaign."""
    if cfg.name not in site.apart:
        try:
            kind = kind_of(cfg)
            fields = kind.fields(cfg)
            site.apart[cfg.name] = (bool(kind.plan(cfg).kept_apart), fields[0].name if fields else "")
        except HitflowError:  # a page that cannot be read: its units are served whole, as before
            site.apart[cfg.name] = (False, "")
    return site.apart[cfg.name]


def page_for(site: TaskSite, cfg: CampaignConfig, session: dict[str, Any], request: Request) -> str:
    # the session's items, or one a page the next not answered (the quiz's, or a place's of a page kept apart)
    page = quiz_pages.shown(site.store(), cfg.name, session, kept_apart(site, cfg)[0])
    if session["route"] == "prolific":  # the completion redirect is a form navigation too
        request.state.form_origins = {o for o in [origin_of(site.completion_base)] if o}
    return _served(cfg, request, _item_rows(site, cfg, json.loads(page)), submit_url=f"/task/{cfg.name}/submit",
                   assignment_id=session["session_id"],
                   signature=page_signature(site.secret, cfg.name, session["session_id"], page),
                   turk_submit=False)  # a Prolific or invite page: turkSubmitTo would only lose the answers


def _served(cfg: CampaignConfig, request: Request, rows: list[dict[str, Any]], **extra: Any) -> str:
    """The page of ``rows``, its CSP naming their images' origins, the page's own and its template's inline
    handlers by hash (a user's page; hitflow's use none)."""
    request.state.image_origins = {o for o in (origin_of(r["url"]) for r in rows) if o}
    request.state.page_origins = cfg.page_origins  # a custom page's own CDN scripts and styles
    page = task_page(cfg, rows, csp_nonce=request.state.csp_nonce, **extra)
    if cfg.template is not None:
        from flows.custom.custom_task import custom_source  # the file read once a version, as its render reads it

        request.state.handler_hashes = static_handler_hashes(page, custom_source(cfg))
    return page


def page_names(site: TaskSite, cfg: CampaignConfig, item_ids: str) -> set[str]:
    """The field names of the page a unit was served with (what a submission may carry)."""
    key = (cfg.name, item_ids)
    if key not in site.page_fields:
        html = task_page(cfg, _item_rows(site, cfg, json.loads(item_ids)), submit_url="", assignment_id="",
                         signature="")
        fields = form_fields(html)  # a radio group of named buttons is posted per button, as MTurk does
        site.page_fields[key] = {f.name for f in fields} | {b for f in fields for b in json.loads(
            f.attrs.get(BUTTONS) or "{}")}
    return site.page_fields[key]


def store_response(site: TaskSite, cfg: CampaignConfig, fields: dict[str, str]) -> dict[str, Any]:
    """Check the session, its signature and fields, then store the answer as typed and mark it done, once."""
    store = site.store()
    try:
        fields = flat_answers(fields)  # a crowd-form page posts one taskAnswers field (crowd_elements.js)
    except ValueError as exc:
        raise Refused(400, "This submission's answers could not be read. Reload the task page and submit it "
                           "again.") from exc
    session_id = fields.pop("assignmentId", "")
    given_sig = fields.pop("sig", "")
    with store.immediate():
        found = store.rows("SELECT * FROM task_sessions WHERE session_id = ? AND campaign = ?",
                           [session_id, cfg.name])
        if not found:
            raise Refused(400, "This submission names no session we handed out. Open the task again from its link.")
        session = found[0]
        apart, first = kept_apart(site, cfg)
        page = quiz_pages.posted(store, cfg.name, session, fields, apart)
        ids = json.loads(page)
        signed = page_signature_valid(site.secret, cfg.name, session_id, page, given_sig)
        if not signed or not exact_fields(fields, ids, page_names(site, cfg, page)):
            raise Refused(400, "This submission was changed after the page was served, so it was not accepted. "
                               "Reload the task page and submit it again.")
        if session["submitted_at"] is not None:
            return session  # resubmitting is harmless: same answer, same completion
        if open_batch_or_reason(store, cfg)[1] == "cancelled":  # a unit opened before `hitflow cancel`
            raise Refused(410, NO_WORK["cancelled"][0])
        code = completion_code(site.secret, cfg.name, session["batch"]) if session["route"] == "prolific" else ""
        xml, now = answer_xml(bounded_telemetry(fields)), site.now()
        if quiz_pages.one_a_page(store, cfg.name, session, apart) and not quiz_pages.keep_page(
                store, cfg.name, session, ids[0], xml, first):
            return {**session, "next_page": quiz_pages.next_page(cfg.name, session)}
        store.insert_raw("assignments", [{
            "assignment_id": session_id, "hit_id": f"{session['study_id'] or session['route']}:u{session['unit']}",
            "campaign": cfg.name, "batch": session["batch"], "worker_id": session["participant_id"],
            "status": "Submitted", "accept_time": session["created_at"], "submit_time": now,
            "auto_approval_time": None, "answer_xml": xml, "parse_error": "", "fetched_at": now}], "IGNORE")
        store.insert_raw("answers", [{**row, "campaign": cfg.name} for row in answer_rows(session_id, xml, ids)],
                         "REPLACE")
        store.execute("UPDATE task_sessions SET submitted_at = ?, completion_code = ? WHERE campaign = ? AND "
                      "session_id = ?", [now, code, cfg.name, session_id])
        stop_failing(store, cfg.name, session["batch"], session["participant_id"])
    return {**session, "submitted_at": now, "completion_code": code}


def stop_failing(store: Store, campaign: str, batch: int, participant: str) -> None:
    """Block at once a participant whom their control answers so far stop."""
    for worker, rules in failed_controls(store, campaign, batch, [participant], accuracy=True).items():
        store.insert_raw("blocks", [{"campaign": campaign, "worker_id": worker, "batch": batch, "rules": rules,
                                     "mode": "next page refused", "applied": ""}], "IGNORE")


def _message(request: Request, status: int, title: str, text: str) -> HTMLResponse:
    return HTMLResponse(render("server_message.html.j2", {"title": title, "text": text,
                                                          "csp_nonce": request.state.csp_nonce}),
                        status_code=status)


def form_fields_of(body: bytes) -> dict[str, str]:
    """A urlencoded body as one value per name (repeats joined by ``|``), bad bytes as U+FFFD."""
    return {k: v[0] if len(v) == 1 else "|".join(v)
            for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}


def make_app(site: TaskSite) -> Starlette:
    def health(request: Request) -> Response:
        """200 while the ledger answers, else 503; ``signs_with`` checks the shared secret (an HMAC)."""
        try:
            open_now = {name: open_batch_or_reason(site.store(), cfg)[0] for name, cfg in site.campaigns.items()}
        except Exception as exc:  # the ledger is unreadable: the server cannot take responses
            logger.error("task server: health check failed: %s", type(exc).__name__)
            return JSONResponse({"ok": False, "error": "the ledger cannot be read"}, status_code=503)
        return JSONResponse({"ok": True, "campaigns": sorted(site.campaigns), "open_batches": open_now,
                             "signs_with": secret_fingerprint(site.secret)})

    async def task_page(request: Request) -> Response:
        try:
            cfg = site.campaign(request.path_params["campaign"])
            query = dict(request.query_params)
            if query.get("hitId") and query.get("assignmentId"):
                return HTMLResponse(await run_in_threadpool(mturk_page, site, cfg, query["hitId"], request))
            session = await run_in_threadpool(allocate, site, cfg, query, client_address(request))
            return HTMLResponse(await run_in_threadpool(page_for, site, cfg, session, request))
        except Refused as exc:
            if exc.status in (410, 503):  # the operator hears why people were turned away, too
                logger.warning("task server: turned a participant away from %s: %s", request.path_params["campaign"],
                               exc.operator or exc)
            return _message(request, exc.status, "Cannot open this task", str(exc))

    async def submit(request: Request) -> Response:
        try:
            fields = form_fields_of(await bounded_body(request, MAX_BODY))
            cfg = site.campaign(request.path_params["campaign"])
            session = await run_in_threadpool(store_response, site, cfg, fields)
        except BodyTooLarge:
            return _message(request, 413, "Too large", "This submission is larger than any task page produces.")
        except BadLength:
            return _message(request, 400, "Bad request", "The request's Content-Length is not a number.")
        except Refused as exc:
            return _message(request, exc.status, "Submission not accepted", str(exc))
        if session.get("next_page"):  # the next item, one a page (quiz_pages.py)
            return RedirectResponse(session["next_page"], status_code=303)
        if session["route"] == "prolific":
            return RedirectResponse(site.completion_base + session["completion_code"], status_code=303)
        return _message(request, 200, "Thank you", "Your answers were saved. You can close this page.")

    app = Starlette(routes=[Route("/health", health), Route("/task/{campaign}", _guarded(task_page)),
                            Route("/task/{campaign}/submit", _guarded(submit), methods=["POST"])],
                    middleware=[Middleware(SecurityHeaders)])
    app.router.redirect_slashes = False  # "/task/" is a 404, not a redirect built from the request's Host
    return app


def _guarded(route: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """Never a traceback: an unexpected failure is one log line and a plain 500 page."""
    async def guarded(request: Request) -> Response:
        try:
            return await route(request)
        except ClientDisconnect:  # the person left, or the server closed a body too slow to arrive
            return Response(status_code=400)
        except Exception as exc:  # the last line of defence; every known bad input is refused above
            logger.error("task server: %s on %s %s", type(exc).__name__, request.method, request.url.path)
            return _message(request, 500, "Something went wrong", "Your request could not be handled. Please "
                            "try again in a minute; if it keeps failing, contact the researcher.")

    return guarded


def mturk_page(site: TaskSite, cfg: CampaignConfig, hit_id: str, request: Request) -> str:
    """An ExternalQuestion HIT's page; the form posts back to MTurk's externalSubmit, and only there."""
    rows = site.store().rows("SELECT item_ids FROM hits WHERE hit_id = ? AND campaign = ?", [hit_id, cfg.name])
    if not rows:
        raise Refused(404, "This HIT is not served here.")
    request.state.form_origins = set(MTURK_SUBMIT_ORIGINS)
    return _served(cfg, request, _item_rows(site, cfg, json.loads(rows[0]["item_ids"])))
