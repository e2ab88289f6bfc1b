"""``hitflow ui``: the overview page over a ledger, opened as ``run`` opens it."""

from __future__ import annotations

import argparse

from flows.cli.output_option import chosen_out


def cmd_ui(a: argparse.Namespace) -> int:
    from functools import partial
    from pathlib import Path

    from flows.core.db_url import is_postgres_url, password_to_environment
    from flows.core.ledger.store import existing_store
    from flows.driver.campaign_status import campaign_status
    from flows.driver.operations import ledger_run, open_campaign_run
    from flows.review.overview_app import OverviewSite, serve_overview

    existing_store(a.db)
    ledger = password_to_environment(a.db) if is_postgres_url(a.db) else Path(a.db)  # as `run` opens it
    # a campaign's platform is opened when a decision is sent; its review queue, from the page's link, reads the
    # ledger alone
    serve_overview(OverviewSite(db_path=ledger, out_root=chosen_out(a), read_status=campaign_status,
                                open_run=partial(open_campaign_run, a.db, progress=lambda _: None),
                                read_run=partial(ledger_run, a.db), reviewer=a.reviewer), a.port)
    return 0
