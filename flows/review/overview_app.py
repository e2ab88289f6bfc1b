"""``hitflow ui``: every campaign in the ledger on one local page, refreshing itself while runs go.

Per campaign and batch: posted, submitted, decided; spend against budget; time to auto-approval;
open review items; blocks; links to the report and how to open the review queue. The same gate as
the review page (127.0.0.1 only, a one-time link exchanged for an HttpOnly cookie, the page's CSP);
it only reads, so it has no POST to protect. The status comes from a function the CLI hands in
(``flows.driver.campaign_status``), since this package sits below the driver.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route

from flows.campaigns.review_data import review_status
from flows.core.output_location import shown_output
from flows.core.output_mirror import has_output, read_output
from flows.core.store import Store
from flows.core.templates import render
from flows.review.review_app import LoginSession, SameOriginReferrer, refused, sign_in
from flows.taskserver.task_guard import SecurityHeaders
from flows.taskserver.task_server_thread import TaskServer

StatusReader = Callable[[Store], list[dict[str, Any]]]
REPORT_HEADERS = {
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'none'; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "x-content-type-options": "nosniff", "cache-control": "no-store"}
REFRESH_S = 5  # while a run goes: often enough to watch a batch fill, rare enough to cost nothing


@dataclass
class OverviewSite(LoginSession):
    db_path: Path
    out_root: str  # a folder or an fsspec URL (flows/core/output_location.py)
    read_status: StatusReader


def _hours(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return "overdue" if seconds <= 0 else f"{seconds / 3600:.1f} h"


def _batch_row(b: dict[str, Any]) -> dict[str, Any]:
    left = b.get("auto_approval_in_s")
    return {"batch": b["batch"], "status": b["status"], "posted": b["hits"],
            "submitted": sum(b["assignments"].values()), "decided": sum(b["decisions"].values()),
            "undecided": b["undecided"], "auto_approval": _hours(left),
            "urgent": left is not None and left < 24 * 3600, "blocked": b["blocked"], "held": b.get("held", "")}


def overview(site: OverviewSite) -> list[dict[str, Any]]:
    """The page's data: per campaign its status lines, batches, money, review items and links."""
    store = Store(site.db_path)  # this thread's own connection
    out = []
    for c in site.read_status(store):
        report = has_output(site.out_root, c["campaign"], "report.html")  # at the URL when the run wrote there
        out.append({"name": c["campaign"], "status": c["status"], "target": c["target"], "next": c["next"],
                    "spent": c["spent"], "committed": c["committed"], "budget": c["budget"],
                    "batches": [_batch_row(b) for b in c["batches"]], "incomplete": c.get("incomplete", []),
                    "review_open": review_status(store, c["campaign"])["open"],
                    "report": f"/report/{c['campaign']}" if report else ""})
    return out


def make_overview_app(site: OverviewSite) -> Starlette:
    async def page(request: Request) -> Response:
        if (gate := sign_in(site, request)) is not None:
            return gate
        campaigns = overview(site)
        running = any(c["status"] == "running" for c in campaigns)
        return HTMLResponse(render("overview.html.j2", {
            "campaigns": campaigns, "refresh_s": REFRESH_S if running else 0, "db": str(site.db_path),
            "nonce": request.state.csp_nonce, "now": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}))

    async def status_json(request: Request) -> Response:
        if (gate := sign_in(site, request)) is not None:
            return gate
        return JSONResponse(overview(site))

    async def report(request: Request) -> Response:
        if (gate := sign_in(site, request)) is not None:
            return gate
        name = request.path_params["name"]
        known = {c["campaign"] for c in site.read_status(Store(site.db_path))}
        report = read_output(site.out_root, name, "report.html") if name in known else None
        if report is None:  # a name from the ledger only: no path from the URL
            return refused(f"no report for {name[:60]!r} under {shown_output(site.out_root)}")
        return Response(report, media_type="text/html", headers=REPORT_HEADERS)

    pages = Starlette(routes=[Route("/", page), Route("/status.json", status_json)],
                      middleware=[Middleware(SecurityHeaders)])
    # The report is a static page with an inline stylesheet and data: images only: it gets a CSP of its
    # own (no script at all), not the nonce-based one of the pages above, under which it would lose its styles.
    return Starlette(routes=[Route("/report/{name}", report), Mount("/", app=pages)],
                     middleware=[Middleware(SameOriginReferrer)])


class OverviewServer(TaskServer):
    """The overview on a background uvicorn thread."""

    def __init__(self, site: OverviewSite, host: str = "127.0.0.1", port: int = 0):
        config = uvicorn.Config(make_overview_app(site), host=host, port=port, log_level="warning",
                                lifespan="off", access_log=False)
        self.server, self.host, self.url, self._thread = uvicorn.Server(config), host, "", None


def serve_overview(site: OverviewSite, port: int = 0) -> None:
    """Serve until Ctrl-C, printing the one-time link."""
    with OverviewServer(site, port=port) as server:
        print(f"campaign overview of {site.db_path}: {server.url}/?token={site.login_token}", flush=True)
        print("the link works once; Ctrl-C stops the server", flush=True)
        try:
            while True:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
