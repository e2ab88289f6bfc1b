"""flows/campaigns/identity.claim_output_folder: of two runs with different ledgers racing for one output
folder, one wins and the other is refused with what to do (tests/test_operator_safety.py races two real
processes once; here many races between threads, which hit the window between creating the manifest and
writing it that processes seldom do)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from flows.campaigns.identity import MANIFEST, claim_output_folder
from flows.core.errors import ConfigError


def _race(out: Path) -> list[str]:
    """Two claims started together; the refusals' messages."""
    start, refused = threading.Barrier(2), []

    def claim(ledger: str) -> None:
        start.wait()
        try:
            claim_output_folder(out, out.parent / ledger, "captions", "mturk")
        except ConfigError as exc:
            refused.append(str(exc))

    racers = [threading.Thread(target=claim, args=(ledger,)) for ledger in ("one.db", "two.db")]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    return refused


def test_the_loser_of_a_race_is_refused_for_the_winners_manifest(tmp_path: Path) -> None:
    """Before, the manifest was created empty and written after: the loser read it empty and was told it
    was unreadable and to remove it (the winner's claim); 92 of 300 such races."""
    for race in range(100):
        out = tmp_path / str(race) / "out"
        refused = _race(out)
        assert len(refused) == 1 and "--replace-outputs" in refused[0] and "unreadable" not in refused[0], refused
        made = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        assert made["ledger"] in {str((out.parent / n).resolve()) for n in ("one.db", "two.db")}
        assert [p.name for p in out.iterdir()] == [MANIFEST]  # no scratch file left beside it


def test_the_same_ledger_claims_again_and_a_new_platform_is_recorded(tmp_path: Path) -> None:
    out = tmp_path / "out"
    claim_output_folder(out, tmp_path / "h.db", "captions", "mturk")
    claim_output_folder(out, tmp_path / "h.db", "captions", "prolific")
    assert json.loads((out / MANIFEST).read_text(encoding="utf-8"))["platform"] == "prolific"
    with pytest.raises(ConfigError, match="--replace-outputs"):
        claim_output_folder(out, tmp_path / "other.db", "captions", "prolific")
    claim_output_folder(out, tmp_path / "other.db", "captions", "prolific", replace=True)
    assert json.loads((out / MANIFEST).read_text(encoding="utf-8"))["ledger"] == str((tmp_path / "other.db").resolve())
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST]
