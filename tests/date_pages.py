"""Two pages of our own whose answers are dates and times, as campaigns on the simulator: a receipt's date
beside its store's kind and its total, one receipt a page, imported as MTurk HTML (``receipt.html``, its
answer in ``bought_answer``); and a diary of events, several a page, each asking its day (known:
``gold_day``), the time it began, a month, a week, a date and time, a colour and an optional remark
(``events.html.j2``). The pages and items are in ``tests/pages/dates/``; ``bench/date_fields.py`` runs both."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from tests.honest_pages import crowd_file

PAGES = Path(__file__).resolve().parent / "pages" / "dates"
TRUTH = {"receipt": 'bought = "bought_answer"', "events": 'day = "gold_day"'}


def page_config(root: Path, page: str, per_page: int = 1, per_item: int = 3, batches: int = 2) -> Path:
    """``root/config/<page>.toml``: the page imported as a user imports theirs (``hitflow new --from``), its
    items beside it, with ``[campaign] truth`` naming the known answers' column."""
    from flows.cli.main import main

    source = PAGES / ("receipt.html" if page == "receipt" else "events.html.j2")
    if page == "receipt":
        assert main(["new", page, "--dir", str(root), "--from", str(source),
                     "--items", str(PAGES / f"{page}_items.csv")]) == 0
    else:
        from flows.custom.scaffold import scaffold

        scaffold(page, root)
        shutil.copy(source, root / "config" / source.name)
        shutil.copy(PAGES / f"{page}_items.csv", root / "config" / f"{page}_items.csv")
    config = root / "config" / f"{page}.toml"
    text = config.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^images_per_hit = \d+", f"images_per_hit = {per_page}", text)
    text = re.sub(r"(?m)^assignments_per_image = \d+", f"assignments_per_image = {per_item}", text)
    text = re.sub(r"(?m)^batches = \d+", f"batches = {batches}", text)
    text = re.sub(r'(?m)^budget = ".*?"', 'budget = "5000.00 USD"', text)
    text = re.sub(r"(?m)^(items = .*)$", lambda m: m.group(1) + f"\ntruth = {{{TRUTH[page]}}}", text)
    config.write_text(text, encoding="utf-8")
    return config


def run_page(root: Path, config: Path, counts: dict[str, int], platform: str = "mturk",
             seed: int = 1) -> dict[str, Any]:
    """One campaign end to end (form workers, no Prefect): per worker who worked, their profile and the rules
    that blocked them; every flag (worker, rule, detail); every answer (worker, item, field, value); the holds."""
    from flows.cli.main import main
    from flows.sim.people.crowd import load_crowd
    from flows.sim.prolific.prolific_people import participant_id

    db = root / f"{config.stem}-{platform}.db"
    code = main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(root / platform),
                 "--platform", platform, "--seed", str(seed), "--crowd", str(crowd_file(root, counts, seed))])
    crowd, _ = load_crowd(root / "crowd.toml", seed)  # the workers as the simulator drew them (a held run: no outputs)
    profile = {i: w.profile for w in crowd for i in (w.worker_id, participant_id(w.worker_id))}
    written = root / platform / config.stem / "sim_workers.json"  # newcomers a platform's pool drew in, when written
    profile |= {w["worker_id"]: w["profile"] for w in json.loads(written.read_text(encoding="utf-8"))} \
        if written.is_file() else {}
    with sqlite3.connect(db) as con:
        worked = {w for (w,) in con.execute("SELECT DISTINCT worker_id FROM assignments WHERE batch > 0 "
                                             "AND worker_id IS NOT NULL AND worker_id != ''")}
        blocks = dict(con.execute("SELECT worker_id, rules FROM blocks").fetchall())
        held = [(b, h) for b, h in con.execute("SELECT batch, hold FROM batches WHERE hold IS NOT NULL AND hold != ''")]
        flags = con.execute("SELECT worker_id, rule, detail FROM qc_flags").fetchall()
        answers = con.execute("SELECT a.worker_id, x.item_id, x.field, x.value FROM answers x JOIN assignments a "
                              "ON a.assignment_id = x.assignment_id WHERE a.batch > 0").fetchall()
    workers = {w: {"profile": profile.get(w, "newcomer"), "blocked": blocks.get(w)} for w in sorted(worked)}
    return {"code": code, "workers": workers, "flags": flags, "answers": answers, "held": held}
