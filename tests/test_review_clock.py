"""A person's time to review on ``hitflow sim serve``: its clock ran at 3600x between runs by default, so the
demo's three days of auto-approval passed 72 real seconds after the run; the cards said so while ``status``
(the ledger's latest time) said 69.8 h, and a person's 45 approvals all came back "already approved"."""

from __future__ import annotations

from pathlib import Path

from flows.campaigns.review_rows import ledger_now
from flows.cli.parser import _parser
from flows.core.ledger.store import Store
from flows.core.run.run_context import Target
from flows.driver.campaign_status import campaign_status
from flows.platforms.targets import advance_sim_clock
from flows.sim.service.server import SimServer
from tests.review_helpers import review_config, run_until_review

A_PERSONS_SESSION_S = 3600  # a queue of cards takes a person minutes to an hour


def test_sim_serves_default_clock_leaves_a_person_their_session_before_auto_approval(tmp_path: Path) -> None:
    from flows.campaigns.task_kinds import load_campaign

    speed = _parser().parse_args(["sim", "serve"]).speed
    cfg = load_campaign(review_config(tmp_path))
    persons_time = cfg.auto_approval_delay_s - cfg.review_deadline_s  # virtual seconds
    assert speed > 0  # the clock still runs between runs (Prolific participants arrive on it)
    assert persons_time / speed >= A_PERSONS_SESSION_S


def test_status_and_the_cards_read_a_served_simulators_own_clock(tmp_path: Path) -> None:
    with SimServer(seed=3) as sim:
        assert run_until_review(review_config(tmp_path), sim.url, tmp_path / "h.db", tmp_path)
        store = Store(tmp_path / "h.db")
        (c,) = campaign_status(store, "vizwiz_captions")
        before = min(b["auto_approval_in_s"] for b in c["batches"] if b["auto_approval_in_s"] is not None)
        now = advance_sim_clock(Target("sim", sim.url), 86400)  # a day passes on the served clock, no run calls
        assert abs(ledger_now(store, "vizwiz_captions") - now) < 1
        (c,) = campaign_status(store, "vizwiz_captions")
        after = min(b["auto_approval_in_s"] for b in c["batches"] if b["auto_approval_in_s"] is not None)
        assert abs((before - after) - 86400) < 5
    assert ledger_now(store, "vizwiz_captions") <= now - 86400  # stopped: the latest time the ledger holds
