"""A small campaign that waits for review on the simulator, and the review page served over it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flows.campaigns.review_data import ReviewPending
from flows.driver.campaign_run import run_campaign
from flows.driver.operations import open_campaign_run
from flows.driver.review_demo import review_config as demo_review_config
from flows.review.review_app import ReviewServer, ReviewSite

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"


def review_config(tmp_path: Path, mode: str = "flagged", deadline_s: int | None = None) -> Path:
    """The review demo's config without its caption top-ups: a test counting what a person decided per batch
    is about something else (top-ups under review: tests/test_caption_top_up.py)."""
    path = demo_review_config(tmp_path, mode, deadline_s, CONFIG)
    path.write_text(re.sub(r"(?m)^top_up_rounds = \d+", "top_up_rounds = 0", path.read_text()))
    return path


def run_until_review(config: Path, sim_url: str, db: Path, out: Path, limit: int = 20, platform: str = "mturk") -> str:
    """Run (or resume) the campaign; the message it stopped with, or "" when it finished."""
    try:
        run_campaign(config, endpoint_url=sim_url, db_path=db, out_root=out, limit=limit, progress=lambda _: None,
                     platform=platform)
    except ReviewPending as exc:
        return str(exc)
    return ""


@contextmanager
def review_server(db: Path, campaign: str, reviewer: str = "tester") -> Iterator[tuple[ReviewServer, ReviewSite]]:
    with open_campaign_run(str(db), campaign) as run:
        site = ReviewSite(run, reviewer, run.cfg.review)
        with ReviewServer(site) as server:
            yield server, site


def form_fields(html: str, cls: str, n: int = 0) -> dict[str, str]:
    """The hidden fields of the n-th form of class ``cls`` on the page."""
    forms = re.findall(rf'<form method="post" action="decide" class="{cls}">(.*?)</form>', html, re.S)
    return dict(re.findall(r'name="([^"]+)" value="([^"]*)"', forms[n]))

