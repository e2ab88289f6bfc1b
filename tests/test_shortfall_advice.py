"""The honest ending names what can be done on the route the campaign ran on: a Prolific study has
places (no HITs to extend), an invite round has people, MTurk has HITs."""

import json
from pathlib import Path

import pytest

from flows.campaigns.summary import shortfall_lines
from flows.core.ledger.store import Store


def _short(tmp_path: Path, route: str) -> list[str]:
    store = Store(tmp_path / f"{route}.db")
    store.set_batch("c", 1, status="collected", shortfall=json.dumps(
        {"hits": 4, "expected": 20, "got": 12, "short_hits": 3, "still_open": 0, "route": route}))
    return shortfall_lines(store, "c")


def test_a_prolific_study_short_of_its_places_is_told_about_places_not_hits(tmp_path: Path) -> None:
    lines = _short(tmp_path, "prolific")
    assert lines[0].startswith("INCOMPLETE: batch 1: 12 of 20 places finished when its study stopped")
    assert "add places to the study" in lines[-1]
    assert not any("HIT" in line for line in lines)


@pytest.mark.parametrize(("route", "advice"), [("mturk", "CreateAdditionalAssignmentsForHIT"),
                                                ("links", "invite more people")])
def test_other_routes_keep_their_own_advice(tmp_path: Path, route: str, advice: str) -> None:
    lines = _short(tmp_path, route)
    assert lines[0].startswith("INCOMPLETE: batch 1: 12 of 20")
    assert advice in lines[-1] and "add places to the study" not in lines[-1]
