"""Blocking on how text arrived, on a custom page as on the caption task: the paste
rules block on the share of the worker's answers over the campaign, so an honest person who drafts some
answers in another window and pastes them stays, and one who pastes an assistant's text nearly every
time is blocked. On counts per batch (two flags) every busy note-paster was blocked: 3 of 45 honest
workers, 6.7%, in `make bench-custom-qc` before."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from flows.cli.main import main
from flows.custom.scaffold import scaffold

CROWD = """seed = 3
[[profile]]
name = "note_paster"
count = 6
[[profile]]
name = "assistant_paster"
count = 2
"""


def test_note_pasters_stay_and_assistant_pasters_are_blocked(tmp_path: Path) -> None:
    scaffold("paste", tmp_path)
    config = tmp_path / "config" / "paste.toml"
    items = tmp_path / "config" / "paste_items.csv"
    rows = items.read_text(encoding="utf-8").splitlines()
    items.write_text("\n".join([rows[0], *(f"photo-{k:03d},https://example.org/{k}.jpg,A photo number {k} of "
                                             f"a street with {k % 7 + 2} parked cars." for k in range(1, 31))]) + "\n",
                     encoding="utf-8")
    text = re.sub(r'(?m)^budget = "[^"]*"', 'budget = "200.00 USD"', config.read_text())  # sized to 3 items
    config.write_text(text.replace("batches = 1 ", "batches = 2 "), encoding="utf-8")
    crowd = tmp_path / "crowd.toml"
    crowd.write_text(CROWD, encoding="utf-8")
    db = tmp_path / "h.db"
    assert main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "runs"),
                 "--crowd", str(crowd)]) in (0, 8)
    con = sqlite3.connect(db)
    truth = json.loads((tmp_path / "runs" / "paste" / "sim_workers.json").read_text(encoding="utf-8"))
    profile = {w["worker_id"]: w["profile"] for w in truth}
    worked = {w for (w,) in con.execute("SELECT DISTINCT worker_id FROM assignments WHERE batch = 1")}
    flagged = {w for (w,) in con.execute("SELECT DISTINCT worker_id FROM qc_flags WHERE rule = 'paste_external'")}
    blocked = {w for (w,) in con.execute("SELECT worker_id FROM blocks WHERE rules LIKE '%paste_external%' "
                                         "OR rules LIKE '%untyped_text%'")}
    note_pasters = {w for w in worked if profile[w] == "note_paster"}
    assistants = {w for w in worked if profile[w] == "assistant_paster"}
    # their pasted drafts are flagged, one by one (in either batch: a draft is pasted a third of the time) ...
    assert {w for w, p in profile.items() if p == "note_paster"} & flagged
    assert not note_pasters & blocked  # ... and they are not blocked for them (on counts: 4 of 5)
    assert assistants and assistants <= blocked
