"""``hitflow review``: the review page served until Ctrl-C, its one-time link printed."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, suppress

from flows.campaigns.review_rows import paused_runs
from flows.core.run.run_context import Run
from flows.review.review_app import ReviewServer, ReviewSite, resume_cleared


def serve_review(run: Run, reviewer: str, port: int = 0,
                 connect: Callable[[], AbstractContextManager[Run]] | None = None) -> None:
    """Serve until Ctrl-C, printing the one-time link; ``connect``: as :class:`ReviewSite`'s."""
    site = ReviewSite(run, reviewer, run.cfg.review, connect)
    server = ReviewServer(site, port=port)
    with site.closing:
        site.take_platform()  # a platform it cannot reach is refused now, in one line; let go once idle
        site.give_back_platform()
        serve_until_stopped(site, server, run, reviewer)


def serve_until_stopped(site: ReviewSite, server: ReviewServer, run: Run, reviewer: str) -> None:
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

