"""The ledger's schema, one sqlite-utils migration per change, for both databases."""

from __future__ import annotations

import sqlite_utils
from sqlite_utils import Migrations

migrations = Migrations("hitflow")


@migrations()
def m001_initial(db: sqlite_utils.Database) -> None:
    db.table("campaigns").create({"name": str, "config_path": str, "config_json": str, "target": str,
                            "created_at": float, "status": str}, pk="name")
    db.table("batches").create({"campaign": str, "batch": int, "status": str, "hit_type_id": str,
                          "cost_estimate": str, "updated_at": float}, pk=("campaign", "batch"))
    db.table("items").create({"campaign": str, "item_id": str, "file_name": str, "url": str, "batch": int,
                        "hit_index": int}, pk=("campaign", "item_id"))
    db.table("hit_types").create({"hit_type_id": str, "campaign": str, "batch": int, "params_json": str},
                                 pk="hit_type_id")
    db.table("hits").create({"hit_id": str, "campaign": str, "batch": int, "hit_index": int, "token": str,
                       "item_ids": str, "created_at": float, "status": str}, pk="hit_id")
    db.table("hits").create_index(["campaign", "batch", "hit_index"], unique=True)
    db.table("assignments").create({"assignment_id": str, "hit_id": str, "campaign": str, "batch": int,
                              "worker_id": str, "status": str, "accept_time": float, "submit_time": float,
                              "auto_approval_time": float, "answer_xml": str, "parse_error": str,
                              "fetched_at": float}, pk="assignment_id")
    db.table("answers").create({"assignment_id": str, "item_id": str, "field": str, "value": str},
                         pk=("assignment_id", "item_id", "field"))
    db.table("workers").create({"worker_id": str, "first_seen": float}, pk="worker_id")
    db.table("qualifications").create({"qualification_type_id": str, "campaign": str, "name": str,
                                 "purpose": str}, pk="qualification_type_id")
    db.table("qc_flags").create({"campaign": str, "batch": int, "worker_id": str, "rule": str, "value": str,
                           "threshold": str, "assignment_id": str, "image_id": str, "detail": str})
    db.table("qc_flags").create_index(["campaign", "batch"])
    db.table("decisions").create({"assignment_id": str, "campaign": str, "batch": int, "worker_id": str,
                            "action": str, "reasons": str, "review": int, "decided_at": float,
                            "applied": str}, pk="assignment_id")
    db.table("blocks").create({"campaign": str, "worker_id": str, "batch": int, "rules": str, "mode": str,
                         "applied": str}, pk=("campaign", "worker_id"))
    db.table("ledger").create({"id": int, "campaign": str, "batch": int, "operation": str, "idem_key": str,
                         "params": str, "status": str, "result": str, "error": str,
                         "created_at": float, "updated_at": float}, pk="id")
    db.table("ledger").create_index(["idem_key"], unique=True)


@migrations()
def m002_campaign_locks(db: sqlite_utils.Database) -> None:
    """At most one run per campaign: the holder's host and pid, and when it took the lock."""
    db.table("locks").create({"campaign": str, "holder": str, "acquired_at": float}, pk="campaign")


@migrations()
def m003_qualification_scores(db: sqlite_utils.Database) -> None:
    """Each worker's qualification-test score (overall and per section) and the test's answer problems."""
    db.table("qualification_scores").create({
        "campaign": str, "worker_id": str, "assignment_id": str, "mode": str, "answered": int, "correct": int,
        "score": float, "spelling_score": float, "grammar_score": float, "judging_score": float,
        "passed": int, "granted": int, "recorded_at": float}, pk=("campaign", "worker_id"))
    db.table("qualification_problems").create({"campaign": str, "worker_id": str, "item_id": str, "answer": str,
                                               "problem": str})


@migrations()
def m004_task_server_and_studies(db: sqlite_utils.Database) -> None:
    """Self-hosted sessions and their units; Prolific studies per batch and every submission's state."""
    db.table("task_sessions").create({
        "session_id": str, "campaign": str, "batch": int, "unit": int, "item_ids": str, "participant_id": str,
        "study_id": str, "route": str, "created_at": float, "submitted_at": float, "completion_code": str,
        "released": int}, pk="session_id")
    db.table("task_sessions").create_index(["campaign", "batch", "unit"])
    db.table("studies").create({"study_id": str, "campaign": str, "batch": int, "status": str, "places": int,
                                "created_at": float}, pk="study_id")
    db.table("platform_submissions").create({
        "submission_id": str, "campaign": str, "batch": int, "study_id": str, "participant_id": str,
        "status": str, "started_at": float, "completed_at": float, "has_response": int, "outcome": str},
        pk="submission_id")


@migrations()
def m005_item_payloads(db: sqlite_utils.Database) -> None:
    """Study items' payloads (what the page shows, JSON) and their responses' submit-rule checks."""
    db.table("items").add_column("payload", str, not_null_default="")
    db.table("response_problems").create({"campaign": str, "assignment_id": str, "worker_id": str, "rule": str,
                                          "field": str, "detail": str})


@migrations()
def m006_batch_shortfall(db: sqlite_utils.Database) -> None:
    """What a batch's HITs closed without (JSON: hits, expected, got, short_hits), "" when complete."""
    db.table("batches").add_column("shortfall", str, not_null_default="")


@migrations()
def m007_review_decisions(db: sqlite_utils.Database) -> None:
    """The review page's decisions (who, when, idempotency key) and captions struck without a rejection."""
    db.table("review_actions").create({
        "id": int, "campaign": str, "batch": int, "worker_id": str, "assignment_id": str, "image_id": str,
        "action": str, "reason": str, "category": str, "amount": str, "reviewer": str, "decided_at": float,
        "idem_key": str, "ledger_key": str, "outcome": str}, pk="id")
    db.table("review_actions").create_index(["idem_key"], unique=True)
    db.table("review_actions").create_index(["campaign", "batch"])
    db.table("struck_captions").create({"campaign": str, "assignment_id": str, "image_id": str, "reviewer": str,
                                        "reason": str, "struck_at": float}, pk=("assignment_id", "image_id"))
    db.table("batches").add_column("review_note", str, not_null_default="")


@migrations()
def m008_batch_windows(db: sqlite_utils.Database) -> None:
    """When a batch opened (platform clock), for its deadline; places a closed study released from the budget."""
    db.table("batches").add_column("opened_at", float)
    db.table("studies").add_column("released", int, not_null_default=0)


@migrations()
def m009_batch_holds(db: sqlite_utils.Database) -> None:
    """A batch held for a person (the note) and how it was released."""
    have = db.table("batches").columns_dict
    for column in ("hold", "hold_release"):
        if column not in have:
            db.table("batches").add_column(column, str)


@migrations()
def m010_worker_history(db: sqlite_utils.Database) -> None:
    """Each worker's blocking evidence per batch and rule; an empty ``worker_id`` row marks a batch built."""
    db.table("worker_history").create({"campaign": str, "batch": int, "worker_id": str, "rule": str,
                                       "captions": int, "covered": int, "flags": int},
                                      pk=("campaign", "batch", "worker_id", "rule"))
    db.table("assignments").create_index(["campaign", "batch"])  # which batches are not kept yet


@migrations()
def m011_batch_hold_page(db: sqlite_utils.Database) -> None:
    """The page and config a held batch ran on (a SHA-256), so a paid hold is not followed by the same."""
    db.table("batches").add_column("hold_page", str, not_null_default="")


@migrations()
def m012_kept_states(db: sqlite_utils.Database) -> None:
    """The review queue's state counts of a campaign, with the config and ledger they were computed on."""
    db.table("kept_states").create({"campaign": str, "settings": str, "fingerprint": str, "items": str},
                                   pk="campaign")


# the tables the review queue reads (flows/campaigns/queue_cache.py) and the column naming their campaign
CHANGE_COUNTED = {"assignments": "campaign", "decisions": "campaign", "qc_flags": "campaign",
                  "review_actions": "campaign", "blocks": "campaign", "worker_history": "campaign",
                  "campaigns": "name", "answers": None}


@migrations()
def m013_change_counts(db: sqlite_utils.Database) -> None:
    """A count of writes to each campaign's review rows, by triggers on SQLite; empty on PostgreSQL."""
    db.table("ledger_changes").create({"campaign": str, "changes": int}, pk="campaign")
    if isinstance(db, sqlite_utils.Database):
        _count_changes(db, CHANGE_COUNTED)


def _count_changes(db: sqlite_utils.Database, tables: dict[str, str | None]) -> None:
    for table, column in tables.items():
        for event, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")):
            campaign = f"{row}.{column}" if column else "''"
            db.execute(f"CREATE TRIGGER IF NOT EXISTS count_{event.lower()}_{table} AFTER {event} ON {table} BEGIN "
                       f"INSERT INTO ledger_changes (campaign, changes) VALUES ({campaign}, 1) "
                       "ON CONFLICT (campaign) DO UPDATE SET changes = changes + 1; END")


# Every platform record keyed by campaign too: two marketplaces may hand out the same ids (docs/postgres.md).
KEYED_BY_CAMPAIGN = {
    "hit_types": ("campaign", "hit_type_id"), "hits": ("campaign", "hit_id"),
    "assignments": ("campaign", "assignment_id"), "answers": ("campaign", "assignment_id", "item_id", "field"),
    "decisions": ("campaign", "assignment_id"), "qualifications": ("campaign", "qualification_type_id"),
    "studies": ("campaign", "study_id"), "platform_submissions": ("campaign", "submission_id"),
    "task_sessions": ("campaign", "session_id"), "struck_captions": ("campaign", "assignment_id", "image_id")}


@migrations()
def m014_records_by_marketplace(db: sqlite_utils.Database) -> None:
    """Platform records keyed by campaign and id (:data:`KEYED_BY_CAMPAIGN`)."""
    db.table("answers").add_column("campaign", str, not_null_default="")
    db.execute("UPDATE answers SET campaign = COALESCE((SELECT a.campaign FROM assignments a "
               "WHERE a.assignment_id = answers.assignment_id), '')")
    for table, pk in KEYED_BY_CAMPAIGN.items():
        if isinstance(db, sqlite_utils.Database):
            _rekeyed(db, table, pk)
        else:
            db.table(table).transform(pk=pk)
    if isinstance(db, sqlite_utils.Database):  # a rebuilt table lost its triggers
        _count_changes(db, {t: c for t, c in CHANGE_COUNTED.items() if t in KEYED_BY_CAMPAIGN})


def _rekeyed(db: sqlite_utils.Database, table: str, pk: tuple[str, ...]) -> None:
    """SQLite's table rebuild for a new primary key, as sqlite-utils' ``transform``; rows keep their order."""
    columns = db.execute(f'PRAGMA table_info("{table}")').fetchall()  # cid, name, type, notnull, default, pk
    indexes = [r[0] for r in db.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
                                        "AND sql IS NOT NULL", [table])]
    names = ", ".join(f'"{c[1]}"' for c in columns)
    defined = ", ".join(f'"{c[1]}" {c[2]}' + (f" NOT NULL DEFAULT {c[4]}" if c[3] and c[4] is not None else "")
                        for c in columns)
    keys = ", ".join(f'"{k}"' for k in pk)
    db.execute(f'CREATE TABLE "{table}_rekeyed" ({defined}, PRIMARY KEY ({keys}))')
    db.execute(f'INSERT INTO "{table}_rekeyed" ({names}) SELECT {names} FROM "{table}" ORDER BY rowid')
    db.execute(f'DROP TABLE "{table}"')
    db.execute(f'ALTER TABLE "{table}_rekeyed" RENAME TO "{table}"')
    for sql in indexes:
        db.execute(sql)


@migrations()
def m015_campaign_marketplace(db: sqlite_utils.Database) -> None:
    """Which marketplace a campaign's records belong to; "" for a campaign from before, adopted next run."""
    db.table("campaigns").add_column("marketplace", str, not_null_default="")
