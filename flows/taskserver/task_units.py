"""Which unit of items a participant gets (balanced, never an item twice), and what its submission may carry."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from typing import Any

from flows.answers.control_quiz import quiz_rows
from flows.core.config.config import CampaignConfig, hold_seconds
from flows.core.ledger.store import Store
from flows.core.site_secrets import invited_name
from flows.platforms.interface import GATE_BATCH
from flows.platforms.unit_extensions import extending_batches, extra_by_index
from flows.taskserver.task_site import Refused, TaskSite
from flows.taskserver.unit_holds import FINISHED, HOLDS_UNIT, make_room, room_on_fresh_unit

MAX_ID_CHARS = 128  # Prolific's ids are 24 characters


def choose_unit(units: list[tuple[int, list[str], int]], seen: set[str], target: int,
                unsettled: Callable[[], dict[int, list[float]]] = dict) -> tuple[int, list[str]] | None:
    """``units``: (unit, item ids, sessions holding it). The least-held unit below ``target`` new to the
    participant; every unit full, one still new (a returned or timed-out session never strands anyone)."""
    fresh = [u for u in units if not seen.intersection(u[1])]
    if not fresh:
        return None
    open_units = [u for u in fresh if u[2] < target]
    unit = min(open_units, key=lambda u: (u[2], u[0])) if open_units else replaced_unit(fresh, target, unsettled())
    return unit[0], unit[1]


def replaced_unit(full: list[tuple[int, list[str], int]], target: int,
                  unsettled: dict[int, list[float]]) -> tuple[int, list[str], int]:
    """Every unit full: the newcomer took a place Prolific freed. ``unsettled``: per unit, its holders' start times
    Prolific had not reported finished, timed out oldest first (a unit past its target: the next oldest's)."""
    def freed_at(u: tuple[int, list[str], int]) -> float:
        starts, replaced = unsettled.get(u[0], []), u[2] - target
        return starts[replaced] if replaced < len(starts) else float("inf")
    return min(full, key=lambda u: (freed_at(u), u[2], u[0]))


def exact_fields(fields: dict[str, str], ids: list[str], page_names: set[str]) -> bool:
    """Only names the page has, ``image_id_i`` the unit's i-th item: no answers for items never shown."""
    return set(fields) <= page_names and all(fields.get(f"image_id_{i}") == item for i, item in enumerate(ids))


def _identity(site: TaskSite, cfg: CampaignConfig, query: dict[str, str]) -> tuple[str, str, str, str]:
    """(route, participant, study, session) from Prolific's parameters or an invite token."""
    if query.get("PROLIFIC_PID") and query.get("SESSION_ID"):
        if not query.get("STUDY_ID"):  # the study says which batch, and which completion code
            raise Refused(403, "This link lacks its STUDY_ID. Open the task from Prolific.")
        if not all(len(query[k]) <= MAX_ID_CHARS and query[k].isprintable() and not query[k].isspace()
                   for k in ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")):
            # stored as the worker id, later shown in terminals and reports: no escape sequences
            raise Refused(400, "This link's PROLIFIC_PID, STUDY_ID or SESSION_ID is not a Prolific ID. "
                               "Open the task from Prolific again.")
        return "prolific", query["PROLIFIC_PID"], query["STUDY_ID"], query["SESSION_ID"]
    invite = query.get("invite", "")
    name = invited_name(site.secret, cfg.name, invite, site.invite_window_s(cfg), site.now) if invite else ""
    if name:
        return "invite", f"invite:{name}", "", ""  # the session: their open one, or a new id (allocate)
    raise Refused(403, "This link is missing its participant details or its invite token is not valid. "
                       "Open the task from Prolific or from the exact link you were invited with.")


def open_batch(store: Store, cfg: CampaignConfig, study_id: str) -> int:
    """The study's batch while open, or the newest published one; else a refusal saying why there is no work."""
    if study_id:
        rows = store.rows("SELECT batch, status FROM studies WHERE study_id = ? AND campaign = ?",
                          [study_id, cfg.name])
        if not rows:
            raise Refused(404, "This study is not served here. Return it on Prolific; you will not be penalised.")
        if rows[0]["status"] not in ("ACTIVE", "UNPUBLISHED"):
            raise Refused(410, "This study has closed: its places are filled or its time is up. Return it on "
                               "Prolific; you will not be penalised.", f"study {study_id} is {rows[0]['status']}")
        return int(rows[0]["batch"])
    batch, reason = open_batch_or_reason(store, cfg)
    if batch is None:
        status, (person, operator) = (410 if reason in ("closed", "cancelled") else 503), NO_WORK[reason]
        raise Refused(status, person, operator.format(config=cfg.path))
    return batch


NO_WORK = {  # why no batch is open: (what the participant reads, what the operator is told)
    "not_opened": ("This study has not opened yet. Your link stays valid: please try it again later.",
                   "no batch is published yet; open one with `hitflow run {config} --platform links|prolific "
                   "--task-url URL`"),
    "between": ("The next round of this study has not opened yet. Your link stays valid: please try it "
                "again later.", "the last batch closed and the next is not published; resume the campaign "
                                "with `hitflow run {config} ...` or let the schedule do it"),
    "closed": ("This study has closed. Thank you for your interest; there is nothing more to do.",
               "every batch of the campaign is done"),
    "cancelled": ("This study has closed. Thank you for your interest; there is nothing more to do.",
                  "the campaign was cancelled (`hitflow cancel`); its links open no more work"),
}


def open_batch_or_reason(store: Store, cfg: CampaignConfig) -> tuple[int | None, str]:
    """(the newest batch open for work, "") or (None, why: not_opened | between | closed)."""
    done = store.rows("SELECT status FROM campaigns WHERE name = ?", [cfg.name])
    if done and done[0]["status"] == "cancelled":  # its batches may still read "published"
        return None, "cancelled"
    rows = store.rows("SELECT batch, status FROM batches WHERE campaign = ? AND batch > 0", [cfg.name])
    open_now = [r["batch"] for r in rows if r["status"] in ("published", "collected")] + extending(store, cfg)
    if open_now:
        return int(max(open_now)), ""
    if done and done[0]["status"] in ("collected", "done"):
        return None, "closed"
    return None, "between" if any(r["status"] not in ("planned", None) for r in rows) else "not_opened"


def work_state(store: Store, cfg: CampaignConfig) -> str:
    """In words, for the operator: which batch people get now, or why they get none."""
    batch, reason = open_batch_or_reason(store, cfg)
    if batch is not None:
        return f"batch {batch} is open; people who arrive get its work"
    return f"no work open: {NO_WORK[reason][1].format(config=cfg.path)}"


@functools.lru_cache(maxsize=8)
def secret_fingerprint(secret: bytes) -> str:
    """Names the signing secret without revealing it, for runs to compare with their ledger's (docs/security.md:
    PBKDF2 so /health's value cannot be searched for the secret; 32+ random bytes need no more rounds)."""
    return hashlib.pbkdf2_hmac("sha256", secret, b"hitflow-task-secret-fingerprint", 200_000).hex()[:16]


def allocate(site: TaskSite, cfg: CampaignConfig, query: dict[str, str], address: str = "") -> dict[str, Any]:
    """The participant's session (existing for the SESSION_ID, or a fresh unit), in one ``BEGIN IMMEDIATE``
    transaction so parallel requests of one person never get the same items twice."""
    route, participant, study, session = _identity(site, cfg, query)
    store = site.store()
    with store.immediate():
        if route == "invite":  # a reload keeps the invitee's open unit
            open_ones = store.rows("SELECT session_id FROM task_sessions WHERE campaign = ? AND participant_id = ? "
                                   "AND submitted_at IS NULL ORDER BY created_at DESC LIMIT 1", [cfg.name, participant])
            session = open_ones[0]["session_id"] if open_ones else site.invite_session_id(
                cfg.name, participant, store.table("task_sessions").count_where(
                    "campaign = ? AND participant_id = ?", [cfg.name, participant]))
        known = store.rows("SELECT * FROM task_sessions WHERE campaign = ? AND session_id = ?", [cfg.name, session])
        if known:
            if known[0]["participant_id"] != participant:
                raise Refused(403, "This session belongs to someone else.")
            return known[0]
        if store.table("blocks").count_where("campaign = ? AND worker_id = ?", [cfg.name, participant]):
            raise Refused(403, "There is no more work for you in this study. Thank you for taking part.")
        batch = open_batch(store, cfg, study)
        if route == "prolific":  # anonymous ids; an invite is a signed, named person
            _bound_holds(site, cfg, batch, participant, study, site.counted_address(address))
        row = _new_session(site, cfg, batch, participant, session, route)
        row.update(study_id=study, route=route)
        store.insert_raw("task_sessions", [row])
        if route == "prolific":
            site.holds.note(cfg.name, site.counted_address(address), session)
    return row


def _bound_holds(site: TaskSite, cfg: CampaignConfig, batch: int, participant: str, study: str, address: str) -> None:
    """A new Prolific session: its address's holds, the session limits, room in the batch (unit_holds.py)."""
    store, stale = site.store(), site.now() - hold_seconds(cfg)
    if site.holds.address_full(store, cfg.name, address, stale):
        raise Refused(429, "Too many task pages are open from your network at once. Finish or return the ones "
                           "you have open, then try again in a few minutes.",
                      f"one address already holds {site.holds.per_address} units Prolific has not confirmed")
    site.admit(participant, address)
    make_room(store, cfg, batch, study, participant, stale, site.holds)


def _new_session(site: TaskSite, cfg: CampaignConfig, batch: int, participant: str, session: str,
                 route: str = "prolific") -> dict[str, Any]:
    """A fresh unit (the quiz alone in its own screening study); a session neither submitted nor finished within
    the hold time holds nothing."""
    store = site.store()
    mine = store.rows("SELECT item_ids, submitted_at FROM task_sessions WHERE campaign = ? AND participant_id = ?",
                      [cfg.name, participant])
    seen = {i for r in mine for i in json.loads(r["item_ids"])}
    unit = (0, []) if batch == GATE_BATCH else _fresh_unit(store, cfg, batch, participant, seen, route,
                                                           site.now() - hold_seconds(cfg))
    if unit is None:
        raise Refused(409, "There is no work left that you have not already done. Please return the study; "
                           "you will not be penalised.")
    quiz = [] if any(r["submitted_at"] is not None for r in mine) else list(quiz_rows(store, cfg.name))
    return {"session_id": session, "campaign": cfg.name, "batch": batch, "unit": unit[0],
            "item_ids": json.dumps(quiz + unit[1]),  # the quiz first, until they submitted a page
            "participant_id": participant, "created_at": site.now(),
            "submitted_at": None, "completion_code": "", "released": 0}


def _fresh_unit(store: Store, cfg: CampaignConfig, batch: int, participant: str, seen: set[str], route: str,
                stale: float) -> tuple[int, list[str]] | None:
    units: dict[int, list[str]] = {}  # grouped here, not by group_concat: SQL both ledgers speak
    for r in store.rows("SELECT hit_index, item_id FROM items WHERE campaign = ? AND batch = ? "
                        "ORDER BY hit_index, rowid", [cfg.name, batch]):
        units.setdefault(r["hit_index"], []).append(r["item_id"])
    unit = _choose(store, cfg, batch, units, participant, seen, stale)
    for _ in range(3 if route == "prolific" else 0):  # a unit may have more holders than its cap: a few tries
        if unit is not None or not room_on_fresh_unit(store, cfg, batch, seen, stale):
            break
        unit = _choose(store, cfg, batch, units, participant, seen, stale)
    return unit


def _choose(store: Store, cfg: CampaignConfig, batch: int, units: dict[int, list[str]], participant: str,
            seen: set[str], stale: float) -> tuple[int, list[str]] | None:
    held = {r["unit"]: r["n"] for r in store.rows(
        f"SELECT t.unit, COUNT(*) AS n FROM task_sessions t WHERE t.campaign = ? AND t.batch = ? AND {HOLDS_UNIT} "
        "GROUP BY t.unit", [cfg.name, batch, stale])}
    options = allocation_options(store, cfg, batch, units, held, participant)  # adaptive overlap
    return choose_unit(options, seen, cfg.assignments_per_image, lambda: unsettled_holders(store, cfg, batch, stale))


# ---- how many people a unit may be handed to under adaptive overlap ([answers] min_judgements) ----
def allocation_options(store: Store, cfg: CampaignConfig, batch: int, units: dict[int, list[str]],
                       held: dict[int, int], participant: str) -> list[tuple[int, list[str], int]]:
    """``(unit, item ids, holders)`` for ``choose_unit``, an extended unit's extensions off its holders."""
    if not (cfg.answers.adaptive or cfg.answers.top_up_rounds):  # no rounds: no ledger read per arrival
        return [(unit, items, held.get(unit, 0)) for unit, items in units.items()]
    extra = extra_by_index(store, cfg.name, batch)
    options = [(unit, items, held.get(unit, 0) - extra.get(unit, 0)) for unit, items in units.items()]
    if participant.startswith("invite:"):  # strict: nobody gives a judgement no round asked for
        return [o for o in options if o[2] < cfg.assignments_per_image]
    if cfg.answers.adaptive:  # Prolific: the fallback stays (a place Prolific freed), never past max_judgements
        return [o for o in options if held.get(o[0], 0) < cfg.answers.max_judgements]
    return options


def extending(store: Store, cfg: CampaignConfig) -> list[int]:
    """Batches open again for an adaptive round (invite links: a round runs after the batch's block step)."""
    return extending_batches(store, cfg.name) if cfg.answers.adaptive or cfg.answers.top_up_rounds else []


def unsettled_holders(store: Store, cfg: CampaignConfig, batch: int, stale: float) -> dict[int, list[float]]:
    """Per unit, oldest first, its holders' start times that Prolific had not reported finished."""
    unsettled: dict[int, list[float]] = {}
    for r in store.rows(
            "SELECT t.unit, t.created_at FROM task_sessions t LEFT JOIN platform_submissions p "
            f"ON p.campaign = t.campaign AND p.submission_id = t.session_id WHERE t.campaign = ? AND t.batch = ? "
            f"AND {HOLDS_UNIT} "
            f"AND (p.status IS NULL OR p.status NOT IN ({', '.join('?' * len(FINISHED))})) "
            "ORDER BY t.created_at, t.session_id", [cfg.name, batch, stale, *FINISHED]):
        unsettled.setdefault(int(r["unit"]), []).append(float(r["created_at"]))
    return unsettled
