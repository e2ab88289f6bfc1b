"""The dry run's rehearsal names the honest simulated workers its first batch stopped: it printed "2 of 11
worker(s) blocked" and then "no problems found", and a requester could not tell a gate stopping bad profiles from
one stopping honest people."""

from __future__ import annotations

import json
from pathlib import Path

from flows.core.ledger.store import Store
from flows.driver.dry_rehearsal import stopped_lines


def _rehearsed(tmp_path: Path, stopped: list[tuple[str, str, str]]) -> Store:
    """A rehearsal's ledger and sim_workers.json: ``stopped`` is (worker, profile, how: a block's rules or
    "reject:REASONS")."""
    folder = tmp_path / "runs" / "mine"
    folder.mkdir(parents=True)
    folder.joinpath("sim_workers.json").write_text(json.dumps(
        [{"worker_id": w, "profile": p} for w, p, _ in stopped] + [{"worker_id": "W9", "profile": "diligent"}]))
    store = Store(tmp_path / "rehearsal.db")
    for n, (worker, _, how) in enumerate(stopped):
        if how.startswith("reject:"):
            store.insert_raw("decisions", [{"assignment_id": f"A{n}", "campaign": "mine", "batch": 1,
                                            "worker_id": worker, "action": "reject", "reasons": how[7:],
                                            "review": 0, "decided_at": 0.0, "applied": ""}])
        else:
            store.insert_raw("blocks", [{"campaign": "mine", "worker_id": worker, "batch": 1, "rules": how,
                                         "mode": "soft", "applied": ""}])
    return store


def test_honest_workers_stopped_are_named_with_the_rules_that_stopped_them(tmp_path: Path) -> None:
    store = _rehearsed(tmp_path, [("W1", "diligent", "shared_templatex2"), ("W2", "speeder", "time_outlierx3"),
                                  ("W3", "typo_prone", "reject:empty_answer")])
    who, (said,) = stopped_lines(tmp_path, store)
    assert who == " (stopped: diligent, speeder, typo_prone)"
    assert said.startswith("warning: the rehearsal stopped honest simulated workers: ")
    assert "diligent blocked (shared_templatex2)" in said and "typo_prone rejected (empty_answer)" in said
    assert "speeder" not in said and "W9" not in said


def test_only_bad_profiles_stopped_is_no_warning(tmp_path: Path) -> None:
    store = _rehearsed(tmp_path, [("W2", "speeder", "time_outlierx3"), ("W4", "copy_paster", "reject:empty_answer")])
    assert stopped_lines(tmp_path, store) == (" (stopped: copy_paster, speeder)", [])
