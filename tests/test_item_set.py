"""A campaign remembers the item set it was planned on: ``hitflow run CONFIG --limit 3``
then the same without ``--limit`` once exited 0 with a 3-image dataset and said nothing of the
items never posted. Now a smaller or different item set is refused in one line naming ``--new-attempt``,
and ``--new-attempt`` runs the whole set as a campaign of its own (a larger one grows the campaign:
tests/test_plan_growth.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.core.ledger.store import Store
from tests.small_configs import small_vizwiz
from tests.test_cancel_resume import NAME, hitflow


def run(config: Path, ledger: str, out: Path, *more: str) -> int:
    return hitflow("run", str(config), "--no-prefect", "--db", ledger, "--out", str(out), *more)


def test_a_smaller_item_set_is_refused_naming_new_attempt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    config, ledger, out = small_vizwiz(tmp_path, items=5), str(tmp_path / "h.db"), tmp_path / "out"
    assert run(config, ledger, out, "--limit", "3") == 0
    capsys.readouterr()
    assert run(config, ledger, out, "--limit", "2") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "planned on 3 item(s)" in err[0] and "asks for 2" in err[0] and "--new-attempt" in err[0]
    assert run(config, ledger, out, "--limit", "3") == 0  # the same set resumes (finished: nothing more)
    assert run(config, ledger, out, "--new-attempt") == 0
    counts = {r["campaign"]: r["n"] for r in Store(ledger).rows(
        "SELECT campaign, COUNT(*) AS n FROM items GROUP BY campaign")}
    assert counts.get(NAME) == 3 and sorted(counts.values()) == [3, 5], counts
