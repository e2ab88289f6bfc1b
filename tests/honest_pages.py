"""Five page shapes of our own as campaigns on the simulator: a caption for a photo
with a note beside it, a rating with a reason (one caption shown on two items), a sentiment with an
optional comment, a comment on a word, a summary at a length asked. The pages and items are in
``tests/pages/honest/``; ``bench/honest_text.py`` runs the same five with bad profiles too."""

from __future__ import annotations

import csv
import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from flows.custom.scaffold import scaffold

PAGES = Path(__file__).resolve().parent / "pages" / "honest"
SHAPES = ("caption", "rating", "sentiment", "word", "summary")


def shape_config(root: Path, shape: str, per_page: int = 4, per_item: int = 3, batches: int = 2,
                 campaign: str = "", copies: int = 1) -> Path:
    """``root/config/<shape>.toml``: the scaffold's campaign (its generated QC and policy) on page ``shape``;
    ``campaign``: lines added to its [campaign] table; ``copies``: each item that many times, under ids of
    its own (``<id>-<k>``: items that show the same text, as a real file's repeated rows do)."""
    scaffold(shape, root)
    folder = root / "config"
    shutil.copy(PAGES / f"{shape}.html.j2", folder / f"{shape}.html.j2")
    with (PAGES / f"{shape}_items.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    with (folder / f"{shape}_items.csv").open("w", encoding="utf-8", newline="") as f:
        out = csv.DictWriter(f, fieldnames=list(rows[0]))
        out.writeheader()
        for k in range(copies):
            out.writerows({**r, "item_id": r["item_id"] if copies == 1 else f"{r['item_id']}-{k}"} for r in rows)
    config = folder / f"{shape}.toml"
    text = config.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^images_per_hit = \d+", f"images_per_hit = {per_page}", text)
    text = re.sub(r"(?m)^assignments_per_image = \d+", f"assignments_per_image = {per_item}", text)
    text = re.sub(r"(?m)^batches = \d+", f"batches = {batches}", text)
    text = re.sub(r'(?m)^budget = ".*?"', 'budget = "5000.00 USD"', text)
    text = re.sub(r"(?m)^(items = .*)$", lambda m: m.group(1) + ("\n" + campaign if campaign else ""), text)
    config.write_text(text, encoding="utf-8")
    return config


def crowd_file(root: Path, counts: dict[str, int], seed: int = 1) -> Path:
    """A crowd file of ``counts`` (profile -> workers)."""
    path = root / "crowd.toml"
    path.write_text(f"seed = {seed}\n" + "".join(f'[[profile]]\nname = "{p}"\ncount = {n}\n'
                                                 for p, n in counts.items()), encoding="utf-8")
    return path


def run_shape(root: Path, shape: str, counts: dict[str, int], seed: int = 1, **sizes: Any) -> dict[str, Any]:
    """One campaign end to end (form workers, no Prefect): per worker who worked, their profile, whether they
    were blocked and on which rules; and every answer (worker, item, field, value)."""
    from flows.cli.main import main

    config = shape_config(root, shape, **sizes)
    db = root / f"{shape}.db"
    code = main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(root / "runs"),
                 "--crowd", str(crowd_file(root, counts, seed))])
    truth = json.loads((root / "runs" / shape / "sim_workers.json").read_text(encoding="utf-8"))
    profile = {w["worker_id"]: w["profile"] for w in truth}
    with sqlite3.connect(db) as con:
        worked = {w for (w,) in con.execute("SELECT DISTINCT worker_id FROM assignments WHERE batch > 0 "
                                             "AND worker_id IS NOT NULL AND worker_id != ''")}
        blocks = dict(con.execute("SELECT worker_id, rules FROM blocks").fetchall())
        held = [h for (h,) in con.execute("SELECT hold FROM batches WHERE hold IS NOT NULL AND hold != ''")]
        answers = con.execute("SELECT a.worker_id, x.item_id, x.field, x.value FROM answers x JOIN assignments a "
                              "ON a.assignment_id = x.assignment_id WHERE a.batch > 0").fetchall()
    return {"code": code, "workers": {w: {"profile": profile[w], "blocked": blocks.get(w)} for w in sorted(worked)},
            "answers": answers, "held": held}
