"""The simulator's state in a SQLite file, so a simulated marketplace outlives one command."""

from __future__ import annotations

import json
import random
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flows.core.errors import ConfigError
from flows.core.pages.mturk_forms import parse_question
from flows.sim.mturk.market import Assignment, Hit, Marketplace, money
from flows.sim.mturk.market_records import new_hit
from flows.sim.pages.browser_worker import resume_browsing
from flows.sim.pages.external_work import resume_visits
from flows.sim.people import qual_tests
from flows.sim.people.campaign_scope import file_unscoped
from flows.sim.prolific.prolific_state import ProlificState
from flows.sim.service.state_lock import locked_state
from flows.sim.service.state_rows import DECIDED, AnswerReader, dumps, pack_row, unpack_row

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (kind TEXT NOT NULL, key TEXT NOT NULL, value NOT NULL,
                                    PRIMARY KEY (kind, key));
"""
# ON CONFLICT ... DO UPDATE keeps a row's rowid, so loading ORDER BY rowid restores dict order.
UPSERT = ("INSERT INTO records (kind, key, value) VALUES (?, ?, ?) "
          "ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value")
VERSION = "1"


def _encode_hit(hit: Hit) -> dict[str, Any]:
    fields = {**hit.fields}
    fields["Question"] = hit.question_xml()  # packed in memory with a dictionary the file does not keep
    return {"fields": fields, "disposed": hit.disposed, "review_status": hit.review_status,
            "reviewing": hit.reviewing, "waiting": hit.waiting,
            **({"returned": hit.returned, "reopened": hit.reopened} if hit.returned else {})}


def _decode_hit(value: dict[str, Any], market: Marketplace) -> Hit:
    # A HIT read back shares its type's values, as a posted one does, not copies of them (~1 KB a HIT)
    fields, spec = value["fields"], market.hit_types.get(value["fields"]["HITTypeId"], {})
    fields = {sys.intern(k): spec[k] if k in spec and spec[k] == v else v for k, v in fields.items()}
    fields["HITTypeId"], fields["HITGroupId"] = sys.intern(fields["HITTypeId"]), sys.intern(fields["HITGroupId"])
    hit = new_hit(fields, parse_question(fields["Question"]), market.pages)
    hit.disposed, hit.review_status, hit.reviewing = value["disposed"], value["review_status"], value["reviewing"]
    hit.waiting = int(value.get("waiting", 0))  # posted, not yet given workers, when the file was last written
    hit.returned, hit.reopened = list(value.get("returned", [])), list(value.get("reopened", []))  # handed_back.py
    if hit.waiting or hit.reopened:
        market.waiting.add(fields["HITId"])
    return hit


def _encode_qual_type(q: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in q.items() if k != "_scored_test"}  # rebuilt from Test and AnswerKey


def _decode_qual_type(q: dict[str, Any]) -> dict[str, Any]:
    if q.get("AnswerKey") and q.get("Test"):
        q["_scored_test"] = qual_tests.parse_scored_test(q["Test"], q["AnswerKey"])
    return q


def _decode_assignment(value: dict[str, Any]) -> Assignment:
    for name in ("hit_id", "worker_id", "status"):  # one string each, not one per assignment read back
        value[name] = sys.intern(value[name])
    return Assignment(**value)


def _same(value: Any) -> Any:
    return value


# kind: (Marketplace attribute, key is a pair, encode, decode)
KINDS: dict[str, tuple[str, bool, Callable[[Any], Any], Callable[[Any], Any]]] = {
    "hit_type": ("hit_types", False, _same, _same),
    "hit": ("hits", False, _encode_hit, _same),  # decoded by _load_row: a HIT needs the market's pages
    "assignment": ("assignments", False, Assignment.record, _decode_assignment),
    "qual_type": ("qual_types", False, _encode_qual_type, _decode_qual_type),
    "worker_qual": ("worker_quals", True, _same, _same),
    "qual_request": ("qual_requests", False, _same, _same),
    "block": ("blocks", False, _same, _same),
    "token": ("tokens", False, list, tuple),
    "test_attempt": ("test_attempts", True, _same, _same),
    "notification": ("notifications", False, _same, _same),
}


class MarketStore:
    """One simulator state file, held by this process until :meth:`close`."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_file = locked_state(self.path)
        self.conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")  # durable across a killed process, which is the risk here
        self.conn.executescript(SCHEMA)
        self.write_lock = threading.Lock()
        self.meta = {k: v for k, v in self.conn.execute("SELECT key, value FROM meta")}
        self._saved_meta: tuple[Any, ...] = ()
        self._bonuses_saved = 0
        self._prolific_saved = self.meta.get("prolific", "")
        self.answers = AnswerReader(self.path, self.conn, self.write_lock)

    @property
    def is_new(self) -> bool:
        return "nonce" not in self.meta

    def kept_crowd(self) -> Path | None:
        """The crowd file a kept marketplace was built with (None for a new file)."""
        return None if self.is_new or not self.meta.get("crowd") else Path(self.meta["crowd"])

    def origin(self, seed: int | None, crowd_file: Path) -> int:
        """The seed to build the crowd with: the file's; a different seed or crowd is refused."""
        if self.is_new:
            return 1 if seed is None else seed
        if self.meta.get("version") != VERSION:
            raise ConfigError(f"simulator state {self.path} has format {self.meta.get('version')!r}, not {VERSION!r}; "
                              "move it aside (its campaign cannot be resumed on this version) or choose another")
        kept, crowd = int(self.meta["seed"]), self.meta["crowd"]
        if (seed is not None and seed != kept) or crowd != str(crowd_file.resolve()):
            raise ConfigError(f"simulator state {self.path} belongs to seed {kept} and crowd {crowd}; pass those, "
                              "or choose another state file (--sim-state / --state)")
        return kept

    def kept(self, name: str, make: Callable[[], str]) -> str:
        """A value made once and kept in the file (the marketplace's id and key); a file from before gets it now."""
        if not self.meta.get(name):
            self.meta[name] = make()
            self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [name, self.meta[name]])
        return self.meta[name]

    def close(self) -> None:
        self.answers.closed = True
        self.conn.close()
        self._lock_file.close()

    # loading --------------------------------------------------------------------------
    def attach(self, market: Marketplace, prolific: ProlificState, crowd_file: Path) -> None:
        """Load the file into a fresh market (or start the file from it), then write back changes only."""
        if self.is_new:
            self.meta = {"version": VERSION, "seed": str(market.seed), "crowd": str(crowd_file.resolve()),
                         "nonce": market.nonce}
            self._write(market, [], [], force=True)
            self.save_prolific(prolific)
            return
        market.nonce, market.id_counter = self.meta["nonce"], int(self.meta["id_counter"])
        market.balance = money(self.meta["balance"])
        market.set_now(float(self.meta["now"]))
        market.calls = int(self.meta.get("calls", 0))
        market.fault_rng = random.Random(f"{market.seed}:{market.calls}")
        market.faults.throttle_rate = float(self.meta.get("throttle_rate", 0))
        market.faults.fault_rate = float(self.meta.get("fault_rate", 0))
        workers = []
        for kind, key, value in self.conn.execute("SELECT kind, key, value FROM records ORDER BY rowid"):
            if kind == "worker":  # after the crowd has grown back: a newcomer's record needs the newcomer
                workers.append((key, unpack_row(value)))
            else:
                self._load_row(market, kind, key, unpack_row(value))
        market.replay_recruitment()
        for key, value in workers:
            self._load_row(market, "worker", key, value)
        file_unscoped(market.workers.values())  # latent answers from before campaigns had their own
        for name, _, _, _ in KINDS.values():
            getattr(market, name).flushed()
        resume_visits(market)
        resume_browsing(market)
        market.changed_workers.clear()
        self._bonuses_saved = len(market.bonuses)
        self._saved_meta = self._meta_now(market)
        if self._prolific_saved:
            restore_prolific(prolific, json.loads(self._prolific_saved))

    def _load_row(self, market: Marketplace, kind: str, key: str, value: Any) -> None:
        if kind == "bonus":
            market.bonuses.append(value)
        elif kind == "worker":
            worker = market.workers.get(key)
            if worker is not None:
                worker.hits_approved, worker.percent_approved = value["hits_approved"], value["percent_approved"]
                worker.memory = value["memory"]
        else:
            name, pair, _, decode = KINDS[kind]
            record = _decode_hit(value, market) if kind == "hit" else decode(value)
            getattr(market, name)[tuple(json.loads(key)) if pair else key] = record
            if kind == "assignment":
                market.hits[value["hit_id"]].assignment_ids.append(key)
                if value["status"] == "Submitted":
                    market.expect_auto_approval(market.assignments[key])
                elif value["status"] in DECIDED:
                    self.answers.release(market.assignments, [key])

    # saving ---------------------------------------------------------------------------
    def save(self, market: Marketplace) -> None:
        """Write what changed since the last save, in one transaction (call with the market's lock)."""
        rows: list[tuple[str, str, str | bytes]] = []
        gone: list[tuple[str, str]] = []
        written = list(market.assignments.changed)
        for kind, (name, pair, encode, _) in KINDS.items():
            journal = getattr(market, name)
            if not journal.dirty:
                continue
            key_of: Callable[[Any], str] = (lambda k: json.dumps(list(k))) if pair else str
            rows += [(kind, key_of(k), pack_row(encode(journal[k]))) for k in journal.changed]
            gone += [(kind, key_of(k)) for k in journal.deleted]
            journal.flushed()
        rows += [("bonus", str(i), pack_row(b)) for i, b in enumerate(market.bonuses[self._bonuses_saved:],
                                                                     start=self._bonuses_saved)]
        self._bonuses_saved = len(market.bonuses)
        for worker_id in market.changed_workers:
            w = market.workers[worker_id]
            rows.append(("worker", worker_id, pack_row({"hits_approved": w.hits_approved,
                                                      "percent_approved": w.percent_approved, "memory": w.memory})))
        market.changed_workers.clear()
        self._write(market, rows, gone)
        self.answers.release(market.assignments, written)

    def _meta_now(self, market: Marketplace) -> tuple[Any, ...]:
        # A clock that runs by itself (speed > 0) is saved along with other changes, not on every read.
        now = None if market.speed else market.now
        return (now, market.id_counter, str(market.balance), market.faults.throttle_rate, market.faults.fault_rate)

    def _write(self, market: Marketplace, rows: list[tuple[str, str, str | bytes]], gone: list[tuple[str, str]],
               force: bool = False) -> None:
        meta = self._meta_now(market)
        if not (rows or gone or force or meta != self._saved_meta):
            return
        current = {"id_counter": str(market.id_counter), "balance": str(market.balance), "now": repr(market.now),
                   "calls": str(market.calls), "throttle_rate": repr(market.faults.throttle_rate),
                   "fault_rate": repr(market.faults.fault_rate)}
        changed = [(k, v) for k, v in current.items() if force or self.meta.get(k) != v]
        if force:
            changed += [(k, self.meta[k]) for k in ("version", "seed", "crowd", "nonce")]
        self.meta.update(current)
        with self.write_lock:
            self.conn.execute("BEGIN")
            try:
                self.conn.executemany(UPSERT, rows)
                self.conn.executemany("DELETE FROM records WHERE kind = ? AND key = ?", gone)
                self.conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", changed)
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        self._saved_meta = meta

    def save_prolific(self, state: ProlificState) -> None:
        """Rewrite the Prolific snapshot if it changed (call with the Prolific state's lock)."""
        blob = dumps(prolific_snapshot(state))
        if blob == self._prolific_saved:
            return
        with self.write_lock:
            self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('prolific', ?)", [blob])
        self._prolific_saved = blob


PROLIFIC_TABLES = ("user", "workspaces", "projects", "studies", "submissions", "groups", "bonuses", "messages",
                   "balance", "currency")


def prolific_snapshot(state: ProlificState) -> dict[str, Any]:
    snap = {name: getattr(state, name) for name in PROLIFIC_TABLES}
    snap["rng"] = state.rng.getstate()
    snap["pump_rngs"] = [pump.rng.getstate() for pump in state.pumps if hasattr(pump, "rng")]
    return snap


def restore_prolific(state: ProlificState, snap: dict[str, Any]) -> None:
    for name in PROLIFIC_TABLES:
        setattr(state, name, snap[name])
    state.rng.setstate(_rng_state(snap["rng"]))
    pumps = [pump for pump in state.pumps if hasattr(pump, "rng")]
    for pump, saved in zip(pumps, snap["pump_rngs"], strict=False):
        pump.rng.setstate(_rng_state(saved))


def _rng_state(saved: list[Any]) -> tuple[Any, ...]:
    version, internal, gauss = saved
    return version, tuple(internal), gauss
