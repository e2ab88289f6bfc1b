"""The VizWiz demo config on its first images (50 unless told), written beside a test, with edits."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


TOP_UPS = "top_up_rounds = 2"  # the demo's caption top-ups ([answers])

# `hitflow run --dry-run` pointed at a simulator of its own (nothing listens on port 9; a dry run sends nothing):
# the same plan and lines as on the in-process simulator, without the rehearsal of a campaign run there
# (flows/driver/dry_rehearsal.py, 1.7-3.7 s of CPU on a page with control items), for a test that reads the plan
UNREHEARSED = ("--endpoint-url", "http://127.0.0.1:9")


def extensions(db: Path, batch: int | None = None) -> int:
    """Assignments the demo's caption top-ups added (the ledger's CreateAdditionalAssignmentsForHIT),
    in one batch or all."""
    import json
    import sqlite3

    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT batch, params FROM ledger WHERE operation = 'CreateAdditionalAssignmentsForHIT'")
        return sum(json.loads(p)["NumberOfAdditionalAssignments"] for b, p in rows if batch in (None, b))


def small_vizwiz(tmp_path: Path, name: str = "vizwiz_captions", edits: dict[str, str] | None = None,
                 items: int = 50, top_ups: bool = False) -> Path:
    """``name``: the campaign's name (and the file's); ``edits``: text replacements in the TOML;
    ``items``: how many of the demo's images (a header line is kept); ``top_ups``: keep the demo's
    caption top-ups (off by default: a test counting captions per image or calls is about something else)."""
    rows = (ROOT / "config" / "items" / "vizwiz_demo_items.csv").read_text().splitlines()[:items + 1]
    (tmp_path / "items.csv").write_text("\n".join(rows) + "\n")
    text = (ROOT / "config" / "vizwiz_captions.toml").read_text()
    text = text.replace('items = "items/vizwiz_demo_items.csv"', 'items = "items.csv"')
    off = {} if top_ups else {TOP_UPS: "top_up_rounds = 0"}
    for old, new in {'name = "vizwiz_captions"': f'name = "{name}"', **off, **(edits or {})}.items():
        assert old in text, f"the demo config no longer has {old!r}"
        text = text.replace(old, new)
    (tmp_path / f"{name}.toml").write_text(text)
    return tmp_path / f"{name}.toml"
