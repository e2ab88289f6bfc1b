"""Honest typing telemetry on every free-text field of a user's page: the simulated
workers' records carry each text box they filled (they were ``"f": {}`` on custom pages), so the
telemetry rules judge custom pages as they judge the caption page."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from flows.cli.main import main
from flows.core.pages.mturk_forms import parse_answer_xml
from flows.custom.scaffold import scaffold


def test_every_filled_text_box_is_in_the_workers_telemetry_record(tmp_path: Path, monkeypatch) -> None:
    scaffold("page", tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/page.toml", "--no-prefect", "--db", "h.db"]) == 0
    answers = [parse_answer_xml(x) for (x,) in sqlite3.connect("h.db").execute(
        "SELECT answer_xml FROM assignments WHERE batch = 1")]
    assert len(answers) >= 3
    for fields in answers:
        record = json.loads(fields["hitflow_telemetry"])
        typed = {n for n, v in fields.items() if n.startswith("description_") and v}
        assert typed and set(record["f"]) == typed  # one entry per filled box, none invented
        for name in typed:
            entry = record["f"][name]
            assert entry["typed"] + entry["paste_x"] + entry["paste_p"] > 0  # the text arrived somehow
