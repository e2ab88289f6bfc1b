"""A page whose script wants at least one of several separately named boxes ticked
(tests/pages/required/aspects.html), imported with the CLI and run by form-reading workers on MTurk and Prolific:
speeders skip what the page does not require, rule breakers post around it. The run at import makes the boxes a
``data-one-of`` group (tests/test_required_groups.py), so a response with none ticked is never approved. Its own
module: the import starts its own Chromium, which a module's shared browser in the same thread would stop."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from flows.core.pages.mturk_forms import answer_fields
from flows.sim.pages.browser_check import missing
from tests.test_required_as_page import run_imported

PLAIN = ("a_food", "a_drink", "a_service", "a_price", "a_none")
CROWD = ("food", "drink", "service", "price", "place", "wait", "nothing")  # crowd-checkbox elements
CROWD_PAGES = Path(__file__).resolve().parents[1] / "bench" / "crowd_probe"


def none_ticked(con: sqlite3.Connection, fields: tuple[str, ...]) -> dict[str, list[str]]:
    """The decisions on the assignments that ticked none of ``fields`` on some item, read from the ledger."""
    def none_on_an_item(got: dict[str, str]) -> bool:  # a place may hold several items (Prolific's whole minutes)
        items = {int(k.rsplit("_", 1)[1]) for k in got if k.rsplit("_", 1)[-1].isdigit()} | {0}
        return any(not any(got.get(f"{f}_{i}", "") for f in fields) for i in items)

    blank = {a for a, xml in con.execute("SELECT assignment_id, answer_xml FROM assignments WHERE answer_xml != ''")
             if none_on_an_item(answer_fields(xml))}
    out: dict[str, list[str]] = {}
    for a, action, reasons in con.execute("SELECT assignment_id, action, reasons FROM decisions"):
        if a in blank:
            out.setdefault(action, []).append(reasons)
    return out


@pytest.mark.browser
@pytest.mark.timeout(900, method="signal")
@pytest.mark.parametrize(("platform", "page"), [("mturk", "aspects"), ("prolific", "aspects"),
                                              ("mturk", "review_aspects")])
def test_a_group_left_unticked_is_never_approved(tmp_path: Path, platform: str, page: str) -> None:
    if missing():
        pytest.skip(f"the import cannot run the page's script: {missing()}")
    crowd = page == "review_aspects"
    con = run_imported(tmp_path, page, platform, *(["--limit", "12"] if crowd else []),
                       **({"pages": CROWD_PAGES} if crowd else {}))
    decided = none_ticked(con, CROWD if crowd else PLAIN)
    assert decided.get("reject") and not decided.get("approve")  # blanks met (how many: the draw), none approved
    assert all("skipped_required" in r or "invalid_answer" in r for r in decided["reject"])
    assert con.execute("SELECT count(*) FROM decisions WHERE action = 'approve'").fetchone()[0] >= 5
