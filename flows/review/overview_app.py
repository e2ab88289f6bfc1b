"""``hitflow ui``: every campaign in the ledger on one local page, with its answers and worker skill."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from flows.campaigns.campaign_needs import review_status
from flows.core.db_url import shown_location
from flows.core.errors import HitflowError
from flows.core.ledger.store import Store
from flows.core.outputs.output_location import shown_output
from flows.core.outputs.output_mirror import has_output, read_output
from flows.core.pages.templates import IMAGE_PLACEHOLDER, render
from flows.core.run.run_context import Run
from flows.platforms.words import route_words
from flows.review.page_guard import EveryResponse, favicon
from flows.review.review_app import LoginSession, PageServer, ReviewSite, make_review_app, refused, sign_in
from flows.taskserver.task_guard import SecurityHeaders

StatusReader = Callable[[Store], list[dict[str, Any]]]
RunOpener = Callable[[str], AbstractContextManager[Run]]  # a campaign's name -> its run, open while the page serves
RunReader = Callable[[str], Run]  # a campaign's name -> its run from the ledger alone, no platform opened
# The report's only script, each image's onerror placeholder swap, allowed by its hash.
PLACEHOLDER_HANDLER = f"this.onerror=null;this.src='{IMAGE_PLACEHOLDER}'"
HANDLER_HASH = base64.b64encode(hashlib.sha256(PLACEHOLDER_HANDLER.encode()).digest()).decode()
REPORT_HEADERS = {
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                               f"script-src 'unsafe-hashes' 'sha256-{HANDLER_HASH}'; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "x-content-type-options": "nosniff", "cache-control": "no-store"}
REFRESH_S = 5  # while a run goes: often enough to watch a batch fill, rare enough to cost nothing
# Past this many campaigns the page folds the ones that need nobody (seven unfolded made a 10,041 px page)
FOLD_AFTER = 3


@dataclass
class OverviewSite(LoginSession):
    db_path: Path | str  # a file, or a postgresql:// URL without its password
    out_root: str | Path  # a folder or an fsspec URL (flows/core/outputs/output_location.py)
    read_status: StatusReader
    open_run: RunOpener | None = None  # None: no review queues here (the page names `hitflow review`)
    read_run: RunReader | None = None  # the queue pages read this; the platform opens for a decision only
    reviewer: str = "reviewer"
    refresh_s: int = REFRESH_S
    queues: dict[str, ASGIApp] = field(default_factory=dict)
    opened: ExitStack = field(default_factory=ExitStack)
    opening: threading.Lock = field(default_factory=threading.Lock)

    def campaigns(self) -> set[str]:
        """The ledger's campaign names (a page's URL may name these only)."""
        return {r["name"] for r in Store(self.db_path).rows("SELECT name FROM campaigns")}

    def review_queue(self, name: str, open_run: RunOpener) -> ASGIApp:
        """NAME's review page, made on first use and kept until the server stops, on this page's session."""
        with self.opening:
            if name not in self.queues:
                if self.read_run is None:
                    run, connect = self.opened.enter_context(open_run(name)), None
                else:
                    run, connect = self.read_run(name), partial(open_run, name)
                review = ReviewSite(run, self.reviewer, run.cfg.review, connect, self.opened,
                                    login_token="", session=self.session)
                self.queues[name] = make_review_app(review)
            return self.queues[name]


class ReviewQueues:
    """``/review/NAME/...``: NAME's review page, for a signed-in visitor and a campaign of the ledger only."""

    def __init__(self, site: OverviewSite):
        self.site = site

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        name = scope["path_params"]["name"]
        if (gate := sign_in(self.site, request)) is not None:
            await gate(scope, receive, send)
        elif (open_run := self.site.open_run) is None or name not in self.site.campaigns():  # ledger names only
            await refused(f"no review queue for {name[:60]!r} here")(scope, receive, send)
        else:
            try:
                queue = self.site.review_queue(name, open_run)
            except HitflowError as exc:  # e.g. a live campaign, or its simulator state gone
                await refused(f"{exc}; or open it with `hitflow review {name}`")(scope, receive, send)
                return
            await queue(scope, receive, send)


def _hours(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return "overdue" if seconds <= 0 else f"{seconds / 3600:.1f} h"


def _batch_row(b: dict[str, Any]) -> dict[str, Any]:
    left = b.get("auto_approval_in_s")
    # a finished batch reads "done", not its last step's name ("blocked" read as a worry)
    return {"batch": b["batch"], "status": "done" if b.get("next") == "done" else b.get("step", b["status"]),
            "posted": b.get("posted", b["hits"]),  # in the route's words: "3 HITs", "1 study (9 places)"
            "submitted": sum(b["assignments"].values()), "decided": sum(b["decisions"].values()),
            "undecided": b["undecided"], "auto_approval": _hours(left),
            "urgent": left is not None and left < 24 * 3600, "blocked": b["blocked"], "held": b.get("held", "")}


def overview(site: OverviewSite) -> list[dict[str, Any]]:
    """The page's data: per campaign its status lines, batches, money, review items and links."""
    store = Store(site.db_path)  # this thread's own connection
    out = []
    for c in site.read_status(store):
        report = has_output(site.out_root, c["campaign"], "report.html")  # at the URL when the run wrote there
        out.append({"name": c["campaign"], "status": c["status"], "status_words": c.get("status_words", c["status"]),
                    "target": route_words(c), "work_words": c.get("work_words", "assignments"), "next": c["next"],
                    "paid": c.get("paid", True), "spent": c["spent"], "committed": c["committed"],
                    "budget": c["budget"],
                    "batches": [_batch_row(b) for b in c["batches"]], "incomplete": c.get("incomplete", []),
                    "review_open": review_status(store, c["campaign"], c.get("needs"))["open"],
                    # the report of a run stopped for a person is of the work so far (its summary says so too)
                    "waiting": bool((c.get("needs") or {}).get("needs_person")),
                    "review": f"/review/{quote(c['campaign'], safe='')}/" if site.open_run else "",
                    "report": f"/report/{c['campaign']}" if report else "",
                    "answers": answers_view(site.out_root, c["campaign"],
                                            campaign_threshold(c.get("config_path", "")))})
    return out


def make_overview_app(site: OverviewSite) -> ASGIApp:
    async def page(request: Request) -> Response:
        if (gate := sign_in(site, request)) is not None:
            return gate
        campaigns = overview(site)
        running = any(c["status"] in ("running", "scheduled") for c in campaigns)  # a schedule comes back
        return HTMLResponse(render("overview.html.j2", {
            "campaigns": campaigns, "refresh_s": site.refresh_s if running else 0, "db": shown_location(site.db_path),
            "fold_after": FOLD_AFTER,
            "nonce": request.state.csp_nonce, "now": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}))

    async def status_json(request: Request) -> Response:
        if (gate := sign_in(site, request)) is not None:
            return gate
        return JSONResponse(overview(site))

    async def report(request: Request) -> Response:
        if (gate := sign_in(site, request)) is not None:
            return gate
        name = request.path_params["name"]
        report = read_output(site.out_root, name, "report.html") if name in site.campaigns() else None
        if report is None:  # a name from the ledger only: no path from the URL
            return refused(f"no report for {name[:60]!r} under {shown_output(site.out_root)}")
        return Response(report, media_type="text/html", headers=REPORT_HEADERS)

    pages = Starlette(routes=[Route("/", page), Route("/status.json", status_json)],
                      middleware=[Middleware(SecurityHeaders)])
    # The report is a static page: a CSP of its own with no script, keeping its inline styles.
    return EveryResponse(Starlette(routes=[Route("/favicon.ico", favicon), Route("/report/{name}", report),
                                           Mount("/review/{name}", app=ReviewQueues(site)), Mount("/", app=pages)]))


class OverviewServer(PageServer):
    def __init__(self, site: OverviewSite, host: str = "127.0.0.1", port: int = 0):
        super().__init__(make_overview_app(site), host, port)


def serve_overview(site: OverviewSite, port: int = 0) -> None:
    """Serve until Ctrl-C, printing the one-time link."""
    with site.opened, OverviewServer(site, port=port) as server:  # the review queues' runs close last
        shown = shown_location(site.db_path)
        print(f"campaign overview of {shown}: {server.url}/?token={site.login_token}", flush=True)
        print("the link works once; Ctrl-C stops the server", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(0.5)


THRESHOLD = 0.9  # [answers] threshold's default, for a campaign whose config cannot be read
LEAST_SURE = 20
WORKER_COLUMNS = ("worker_id", "skill", "items", "agreement", "control_accuracy", "controls")
# the pooled control rule's, in a campaign planned with it (postprocess.answers.worker_skill.POOLED_COLUMNS)
POOLED = ("pooled_status", "pooled_p_above", "pooled_accuracy", "pooled_controls_right", "pooled_controls",
          "pooled_labels", "pooled_pages", "pooled_agreement", "pooled_evidence")


def answers_view(out_root: str | Path, campaign: str, threshold: float = THRESHOLD) -> dict[str, Any] | None:
    """The overview's answers section of a campaign, or None without answers.csv; ``threshold``: its threshold."""
    import pandas as pd  # here: `hitflow --help` imports no pandas

    raw = read_output(out_root, campaign, "answers.csv")
    if raw is None:
        return None
    answers = pd.read_csv(io.BytesIO(raw), dtype=str, keep_default_na=False)
    confidence = pd.to_numeric(answers.get("confidence", pd.Series(dtype=str)), errors="coerce")
    least = answers.assign(c=confidence).sort_values(["c", "item_id"], kind="stable").head(LEAST_SURE)
    workers_raw = read_output(out_root, campaign, "workers.csv")
    workers = pd.read_csv(io.BytesIO(workers_raw), dtype=str, keep_default_na=False) if workers_raw else None
    rows, pooled = [], workers is not None and set(POOLED) <= set(workers.columns)
    if workers is not None:
        # least skilled first; with the pooled rule, least likely above its line first
        key = "pooled_p_above" if pooled else "skill"
        order = pd.to_numeric(workers.get(key, pd.Series(dtype=str)), errors="coerce")
        ordered = workers.assign(s=order).sort_values(["s", "worker_id"], kind="stable")
        columns = (*WORKER_COLUMNS, *POOLED) if pooled else WORKER_COLUMNS
        rows = [{**{k: _shown(r.get(k, ""), k) for k in columns},
                 **({"pooled_p_above": _percent(r["pooled_p_above"])} if pooled else {})}
                for r in ordered.to_dict("records")]
    return {"pooled": pooled, "count": len(answers), "fields": sorted(set(answers.get("field", []))),
            "methods": sorted(set(answers.get("method", []))),
            "mean_confidence": f"{confidence.mean():.3f}" if confidence.notna().any() else "",
            "below": int((confidence < threshold).sum()), "threshold": f"{threshold:g}",
            "least_sure": [{k: _shown(r.get(k, ""), k) for k in ("item_id", "field", "label", "confidence",
                                                                 "judgements")}
                           for r in least.to_dict("records")],
            "workers": rows}


# a share to three places, a count whole, anything else as written
SHARES = {"confidence", "skill", "agreement", "control_accuracy", "pooled_accuracy", "pooled_agreement",
          "pooled_evidence"}
COUNTS = {"judgements", "items", "controls", "pooled_controls", "pooled_controls_right", "pooled_labels",
          "pooled_pages"}


def _shown(value: Any, column: str) -> str:
    """``column``'s value as the page shows it (the template escapes it)."""
    if column not in SHARES | COUNTS:
        return str(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if number != number:  # NaN: nothing to show
        return ""
    return f"{number:.3f}" if column in SHARES else f"{number:.0f}"


def _percent(value: str) -> str:
    """workers.csv's probability (to four significant figures) as the report shows it."""
    from postprocess.answers.worker_skill import shown_p  # here: `hitflow --help` imports no pandas

    try:
        return shown_p(float(value))
    except ValueError:
        return value


def campaign_threshold(config_path: str) -> float:
    """The campaign's ``[answers] threshold``, or the default when the config no longer loads."""
    from flows.core.config.config import load_config

    if not config_path:
        return THRESHOLD
    try:
        return float(load_config(config_path).answers.threshold)
    except (HitflowError, OSError):
        return THRESHOLD
