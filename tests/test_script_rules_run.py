"""A page whose script makes controls required as it loads (tests/pages/script_rules/must.html), imported with
``hitflow new --from`` (its script run in Chromium at import: a module of its own, as Playwright's sync API runs
one browser a thread) and run on the MTurk and Prolific simulators."""

from __future__ import annotations

from pathlib import Path

import pytest

PAGES = Path(__file__).resolve().parent / "pages" / "script_rules"


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_a_control_the_script_requires_as_it_loads_is_never_approved_blank(tmp_path: Path, platform: str) -> None:
    """The campaign run by form-reading workers (who read only the page's rules): a category left blank, which
    a person's browser would refuse, is rejected, never approved."""
    from tests.test_required_as_page import blank_decisions, run_imported

    decided = blank_decisions(run_imported(tmp_path, "must", platform, pages=PAGES), ("category", "reason"))
    assert decided.get("reject") and not decided.get("approve")
