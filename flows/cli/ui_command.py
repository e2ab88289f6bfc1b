"""``hitflow ui``: the overview page over a ledger, opened as ``run`` opens it."""

from __future__ import annotations

import argparse

from flows.cli.output_option import chosen_out


def cmd_ui(a: argparse.Namespace) -> int:
    from contextlib import AbstractContextManager
    from pathlib import Path

    from flows.core.ledger.store import existing_store
    from flows.core.run.run_context import Run
    from flows.driver.campaign_status import campaign_status
    from flows.driver.operations import ledger_run, open_campaign_run
    from flows.review.overview_app import OverviewSite, serve_overview

    existing_store(a.db)

    def open_run(name: str) -> AbstractContextManager[Run]:  # a campaign's platform, when a decision is sent
        return open_campaign_run(a.db, name, progress=lambda _: None)

    def read_run(name: str) -> Run:  # a campaign's review queue, from the page's link: the ledger alone
        return ledger_run(a.db, name)

    from flows.core.db_url import is_postgres_url, password_to_environment

    ledger = password_to_environment(a.db) if is_postgres_url(a.db) else Path(a.db)  # as `run` opens it
    serve_overview(OverviewSite(db_path=ledger, out_root=chosen_out(a), read_status=campaign_status,
                                open_run=open_run, read_run=read_run, reviewer=a.reviewer), a.port)
    return 0
