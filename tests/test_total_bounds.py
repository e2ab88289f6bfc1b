"""The sixth security round: bounds that hold in total. The 10,000-key bound was per object, so a crowd-form
answer of 30 objects x 10,000 keys became 300,000 fields (and answer rows) of one assignment; and the
review queue's kept states were keyed on counts and largest rowids, which SQLite hands out again, so a
batch's flags rewritten with as many rows as before left ``status`` showing the old states."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from flows.campaigns.kept_states import keep_items, kept_items, settings_key
from flows.campaigns.queue_cache import fingerprint
from flows.core.ledger.store import Store
from flows.core.pages.crowd_elements import flat_answers, flatten_task_answers
from flows.core.pages.mturk_forms import answer_xml, parse_answer_xml
from qc import worker_values as wv

# 30 objects each at the per-object bound: 300,000 distinct keys, 3.3 M characters (within the 4 Mi bound)
WIDE = json.dumps([{f"{o:02x}{k:04x}": 1 for k in range(wv.MAX_KEYS)} for o in range(30)], separators=(",", ":"))


def test_keys_are_counted_over_all_the_objects_of_an_answer() -> None:
    with pytest.raises(wv.WorkerValueError, match="keys in one JSON text, over the 10000 allowed"):
        flatten_task_answers(WIDE)
    with pytest.raises(ET.ParseError, match="taskAnswers does not decode"):  # stored malformed, with why
        parse_answer_xml(answer_xml({"taskAnswers": WIDE}))
    half = wv.MAX_KEYS // 2 + 1
    with pytest.raises(wv.WorkerValueError, match="keys in one JSON text"):
        wv.read_json(json.dumps({"a": {f"k{i}": 1 for i in range(half)}, "b": {f"k{i}": 1 for i in range(half)}}))
    at_bound = [{f"a{i}": "x" for i in range(wv.MAX_KEYS // 2)}, {f"b{i}": "x" for i in range(wv.MAX_KEYS // 2 - 1)}]
    assert len(flatten_task_answers(json.dumps(at_bound))) == wv.MAX_KEYS - 1  # one more key: the list's objects


def test_fields_are_counted_over_the_plain_fields_and_the_flattened_ones() -> None:
    plain = {f"f{i}": "x" for i in range(wv.MAX_KEYS // 2 + 1)}
    elements = json.dumps([{f"e{i}": "y" for i in range(wv.MAX_KEYS // 2)}])
    with pytest.raises(wv.WorkerValueError, match="fields, over the 10000 allowed"):
        flat_answers({**plain, "taskAnswers": elements})
    fewer = {f"f{i}": "x" for i in range(wv.MAX_KEYS // 2 - 1)}
    assert len(flat_answers({**fewer, "taskAnswers": elements})) == wv.MAX_KEYS - 1


def flag(batch: int, worker: str, rule: str) -> dict[str, object]:
    return {"campaign": "c", "batch": batch, "worker_id": worker, "rule": rule, "value": "1", "threshold": "0",
            "assignment_id": f"A-{worker}", "image_id": "", "detail": ""}


def test_rewriting_a_batchs_flags_with_as_many_rows_voids_the_kept_states(ledger_location: str,
                                                                          tmp_path: Path) -> None:
    """As flows/campaigns/batch_review.py rewrites a batch's flags (delete, then insert): five flagged
    answers become one flagged answer and four others' flags, as many rows as before."""
    store = Store(ledger_location)
    config = tmp_path / "c.toml"
    config.write_text('[policy]\nreview = "flagged"\n')
    store.insert_raw("campaigns", [{"name": "c", "config_path": str(config), "config_json": "{}", "target": "sim",
                                    "created_at": 0.0, "status": "running"}])
    store.table("qc_flags").insert_all([flag(1, f"W{n}", "consensus") for n in range(5)])
    key = settings_key(store, "c")
    assert key is not None
    keep_items(store, "c", key, fingerprint(store, "c"), [{"batch": 1, "state": "open"}] * 5)
    assert kept_items(store, "c", key) is not None
    before = fingerprint(store, "c")
    with store.transaction():
        store.execute("DELETE FROM qc_flags WHERE campaign = ? AND batch = ?", ["c", 1])
        store.table("qc_flags").insert_all([flag(1, "W0", "consensus")] + [flag(1, f"W{n}", "random_sample")
                                                                             for n in range(1, 5)])
    assert store.rows("SELECT count(*) AS n FROM qc_flags")[0]["n"] == 5
    assert fingerprint(store, "c") != before
    assert kept_items(store, "c", key) is None  # status builds the queue again, from the new flags


def test_a_ledger_from_before_counts_changes_once_migrated(tmp_path: Path) -> None:
    """An SQLite ledger made by the migrations up to m012 gets the counting triggers on opening."""
    import sqlite_utils

    from flows.core.ledger.store_migrations import migrations

    db = sqlite_utils.Database(tmp_path / "old.db")
    migrations.apply(db, stop_before="m013_change_counts")
    db["campaigns"].insert({"name": "c", "config_path": "", "config_json": "{}", "target": "sim", "created_at": 0.0,
                            "status": "running"})
    db["qc_flags"].insert(flag(1, "W0", "consensus"))
    db.conn.close()
    store = Store(tmp_path / "old.db")
    before = fingerprint(store, "c")
    with store.transaction():
        store.execute("DELETE FROM qc_flags WHERE campaign = 'c'")
        store.table("qc_flags").insert_all([flag(1, "W0", "random_sample")])
    assert fingerprint(store, "c") != before
