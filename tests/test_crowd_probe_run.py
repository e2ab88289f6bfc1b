"""A crowd-element page whose requirements live only in its script (bench/crowd_probe/review_tone.html: nothing
checked in a crowd-radio-group, under 10 words in a crowd-text-area, refused by a submit listener added on load),
imported with the CLI and run on the MTurk simulator by form-reading workers: speeders skip what the page does not
require, rule breakers post around the page. The run at import (tests/test_crowd_probe.py) makes each a page
rule, so no blank is approved. Its own module: the import starts its own Chromium, which a module's shared
browser in the same thread would stop."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.sim.pages.browser_check import missing

PAGES = Path(__file__).resolve().parents[1] / "bench" / "crowd_probe"
CROWD = """seed = 5
[size]
count = 16
[market]
balance = "100000.00"
[[profile]]
name = "diligent"
share = 0.5
[[profile]]
name = "speeder"
share = 0.25
[[profile]]
name = "rule_breaker"
share = 0.25
"""


@pytest.mark.browser
@pytest.mark.timeout(600, method="signal")
def test_a_crowd_pages_script_requirement_is_never_approved_blank(tmp_path: Path) -> None:
    if missing():
        pytest.skip(f"the import cannot run the page's script: {missing()}")
    (tmp_path / "review_tone.html").write_bytes((PAGES / "review_tone.html").read_bytes())
    assert main(["new", "review_tone", "--from", str(tmp_path / "review_tone.html"), "--dir", str(tmp_path),
                 "--items", str(PAGES / "review_tone_items.csv")]) == 0
    config = tmp_path / "config" / "review_tone.toml"
    (config.parent / "crowd.toml").write_text(CROWD, encoding="utf-8")
    text = re.sub(r'(?m)^budget = ".*?"', 'budget = "500.00 USD"', config.read_text(encoding="utf-8"))
    config.write_text(text + '\n[target]\nsim_crowd = "crowd.toml"\nsim_workers = "form"\n', encoding="utf-8")
    db = tmp_path / "h.db"
    assert main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "runs"),
                 "--limit", "12", "--platform", "mturk"]) in (0, 10)
    with sqlite3.connect(db) as con:
        approved = {r[0] for r in con.execute("SELECT assignment_id FROM decisions WHERE action = 'approve'")}
        blank = {a for a, f, v in con.execute("SELECT assignment_id, field, value FROM answers WHERE item_id != ''")
                 if f in ("tone", "explain") and not (v or "").strip()}
    assert approved and blank  # honest work approved, blanks met (how many: the draw)
    assert not approved & blank
