"""Bounds on the units held by unfinished Prolific sessions."""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field

from flows.core.config.config import CampaignConfig
from flows.core.ledger.store import Store

TAKEN_BACK = 2  # task_sessions.released: 1 Prolific freed the place (the run), 2 the task server took it back
# an open hold (one ? : the time before which an unsubmitted session has lapsed) Prolific has not confirmed
UNCONFIRMED = ("t.released = 0 AND t.submitted_at IS NULL AND t.created_at > ? AND t.route = 'prolific' "
               "AND NOT EXISTS (SELECT 1 FROM platform_submissions p WHERE p.campaign = t.campaign AND "
               "p.submission_id = t.session_id)")
logger = logging.getLogger("hitflow.task_server")
# Finished work's statuses (Prolific's), written here: the task server names no platform's module
# (tests/test_task_server.py keeps it equal to prolific.statuses.FINISHED).
FINISHED = ("AWAITING REVIEW", "APPROVED", "REJECTED")
# A session holding its unit (?: the time before which an unsubmitted one has lapsed): submitted and not freed
# by Prolific (released 1), or open, not released (2: TAKEN_BACK) and within its hold.
HOLDS_UNIT = "t.released != 1 AND (t.submitted_at IS NOT NULL OR (t.released = 0 AND t.created_at > ?))"


@dataclass
class HoldLimits:
    per_address: int = 4  # a household or a lab behind one NAT, between two of the run's looks
    margin: int = 2  # holders beyond the study's places: returns Prolific freed that the run has not seen yet
    margin_share: float = 0.1  # ... or this share of the places, when larger
    _by_address: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def bound(self, places: int) -> int:
        return places + max(self.margin, int(places * self.margin_share))

    def address_full(self, store: Store, campaign: str, address: str, stale: float) -> bool:
        """Whether ``address`` already has ``per_address`` unconfirmed open holds in the campaign."""
        if not address:
            return False
        with self._lock:
            ids = list(self._by_address.get((campaign, address), []))
        if len(ids) < self.per_address:
            return False
        still = {r["session_id"] for r in store.rows(
            f"SELECT t.session_id FROM task_sessions t WHERE t.campaign = ? AND t.session_id IN "
            f"({','.join('?' * len(ids))}) AND {UNCONFIRMED}", [campaign, *ids, stale])}
        with self._lock:  # forget the ones that no longer hold: the table stays as small as the open holds
            kept = [i for i in self._by_address.get((campaign, address), []) if i in still or i not in ids]
            self._by_address[(campaign, address)] = kept
        return len(kept) >= self.per_address

    def note(self, campaign: str, address: str, session_id: str) -> None:
        if address:
            with self._lock:
                self._by_address.setdefault((campaign, address), []).append(session_id)
                if len(self._by_address) > 100_000:  # forget idle addresses so the table cannot grow without end
                    self._by_address = {k: v for k, v in self._by_address.items() if v}


def take_back(store: Store, campaign: str, session_ids: list[str], why: str) -> None:
    if session_ids:
        store.execute(f"UPDATE task_sessions SET released = {TAKEN_BACK} WHERE campaign = ? AND session_id IN "
                      f"({','.join('?' * len(session_ids))})", [campaign, *session_ids])
        logger.warning("task server: took back %d unconfirmed hold(s): %s", len(session_ids), why)


def unconfirmed_holds(store: Store, cfg: CampaignConfig, batch: int, stale: float) -> list[dict[str, object]]:
    """The batch's open holds Prolific has not confirmed, oldest first."""
    return store.rows(f"SELECT t.session_id, t.unit, t.item_ids, t.participant_id FROM task_sessions t "
                      f"WHERE t.campaign = ? AND t.batch = ? AND {UNCONFIRMED} ORDER BY t.created_at, t.session_id",
                      [cfg.name, batch, stale])


def make_room(store: Store, cfg: CampaignConfig, batch: int, study: str, participant: str, stale: float,
              limits: HoldLimits) -> None:
    """Before a new Prolific session, take back the participant's own and the oldest unconfirmed holds."""
    open_holds = unconfirmed_holds(store, cfg, batch, stale)
    own = [str(r["session_id"]) for r in open_holds if r["participant_id"] == participant]
    # ids stay out of logs
    take_back(store, cfg.name, own, f"a participant opened a new session in batch {batch} of {cfg.name}")
    rows = store.rows("SELECT places FROM studies WHERE campaign = ? AND study_id = ?", [cfg.name, study])
    if not rows:
        return
    holders = store.rows(f"SELECT COUNT(*) AS n FROM task_sessions t WHERE t.campaign = ? AND t.batch = ? "
                         f"AND {HOLDS_UNIT}", [cfg.name, batch, stale])[0]["n"]
    excess = int(holders) + 1 - limits.bound(int(rows[0]["places"] or 0))
    others = [str(r["session_id"]) for r in open_holds if r["participant_id"] != participant]
    take_back(store, cfg.name, others[:max(0, excess)],
              f"batch {batch} of {cfg.name} had more holders than its study's places allow")


def room_on_fresh_unit(store: Store, cfg: CampaignConfig, batch: int, seen: set[str], stale: float) -> bool:
    """An arrival found no work: take back the oldest unconfirmed open hold on a unit new to them."""
    for r in unconfirmed_holds(store, cfg, batch, stale):
        if not seen.intersection(json.loads(str(r["item_ids"]))):
            take_back(store, cfg.name, [str(r["session_id"])], f"an arrival found no work left in batch {batch} of "
                                                               f"{cfg.name}")
            return True
    return False
