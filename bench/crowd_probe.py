"""``python -m bench.crowd_probe``: crowd-element pages whose requirements live only in their own script, imported
and run on the MTurk simulator with bench/gate_heldout.py's machinery (the CLI, the default crowd, 3 batches, 3
workers an item): approved assignments with a field the page's script requires left blank, and what the gate
flagged and blocked, honest and not.

Four pages of our own (bench/crowd_probe/), written as MTurk requesters write crowd pages, none with a
``required`` attribute; each script's check is attached after the page loads:

- review_tone: a crowd-radio-group (nothing checked refused) and a crowd-text-area (under 10 words refused),
  one ``submit`` listener on the crowd-form added in ``window.onload``;
- damage_check: "is there damage?" yes/no and "where?" (a crowd-input), required only when yes, and a
  crowd-slider; ``onsubmit`` on the crowd-form by its id, set on DOMContentLoaded, returning false;
- news_topics: four crowd-checkboxes (none ticked refused), a crowd-classifier and an optional summary; the
  crowd-form's ``onsubmit`` set on load, reading each crowd-checkbox's ``checked``;
- sentiment_buttons: MTurk's reference radio shape, each crowd-radio-button its own name (one field, ``choice``),
  none chosen refused, and "what is the complaint about?" refused blank only after "negative".

``--repo`` (the checkout whose hitflow runs), ``--items``, ``--seed``, ``--pages`` and ``--label`` as
bench/gate_heldout.py; figures go to bench/results-crowd-probe.json under the label.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.gate_heldout import ROOT, HeldoutPage, TextField, code_commit, run_route, show
from bench.results_file import keep_result

PAGES_DIR = ROOT / "bench" / "crowd_probe"
RESULTS = ROOT / "bench" / "results-crowd-probe.json"


def _approved_answers(db: sqlite3.Connection, campaign: str) -> list[dict[str, str]]:
    """Each approved assignment's answer to each of its items: field -> value."""
    approved = {r[0] for r in db.execute("SELECT assignment_id FROM decisions WHERE campaign = ? AND action = "
                                         "'approve'", [campaign])}
    given: dict[tuple[str, str], dict[str, str]] = {}
    for a, item, name, value in db.execute("SELECT assignment_id, item_id, field, value FROM answers"):
        if a in approved and item:
            given.setdefault((a, item), {})[name] = value or ""
    return list(given.values())


def damage_blank(db: sqlite3.Connection, campaign: str, _profiles: dict[str, str]) -> dict[str, Any]:
    """Approved assignments answering "yes, damaged" with "where?" blank (required only then, by the script)."""
    yes = [f for f in _approved_answers(db, campaign) if f.get("damage") == "yes"]
    return {"approved_yes": len(yes), "approved_yes_where_blank": sum(not f.get("where", "").strip() for f in yes)}


def complaint_blank(db: sqlite3.Connection, campaign: str, _profiles: dict[str, str]) -> dict[str, Any]:
    """Approved answers with no sentiment chosen (the ledger keeps one column per button, as MTurk posts them),
    and answering "negative" with the complaint blank (required only then, by the script)."""
    given = _approved_answers(db, campaign)
    bad = [f for f in given if f.get("negative") == "negative"]
    return {"approved_none_chosen": sum(not any(f.get(b) for b in ("positive", "negative", "neutral")) for f in given),
            "approved_negative": len(bad), "approved_negative_complaint_blank": sum(
                not f.get("complaint", "").strip() for f in bad)}


PAGES = (
    HeldoutPage("review_tone", 1, ("tone", "explain"),
                {"explain": TextField(10, lambda t, _i: bool(t.strip()), "any answer")}, folder=PAGES_DIR),
    HeldoutPage("damage_check", 1, ("damage",), folder=PAGES_DIR, extra=damage_blank),
    HeldoutPage("news_topics", 1, ("topic",), folder=PAGES_DIR),
    HeldoutPage("sentiment_buttons", 1, (), folder=PAGES_DIR, extra=complaint_blank)  # blanks: its extra line,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("--items", type=int, default=None)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--pages", default="")
    parser.add_argument("--label", default="")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    env = {**os.environ, "PYTHONPATH": str(repo), "PYTHONDONTWRITEBYTECODE": "1"}
    which = subprocess.run([sys.executable, "-c", "import flows; print(flows.__file__)"], env=env, cwd="/",
                           capture_output=True, text=True).stdout.strip()
    label = args.label or code_commit(repo)
    print(f"measuring {which} at {label}", flush=True)
    run: dict[str, Any] = {}
    for page in (p for p in PAGES if not args.pages or p.name in args.pages.split(",")):
        run[page.name] = run_route(page, "mturk", args.items, env, args.seed)
        print("\n".join(show(page.name, "mturk", run[page.name])), flush=True)
    keep_result(RESULTS, f"{label}, {args.items or 'all'} items, seed {args.seed or 'default'}, pages "
                         f"{','.join(run)}",
                {"flows": which, "route": "mturk", "pages": run})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
