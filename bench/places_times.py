"""People's time against the plan on three pages of one's own (one, two and five items a page), on every route:
``hitflow new --from PAGE --items CSV`` with the plan it writes, then a run on the MTurk, Prolific and links
simulators; per page and route the working honest people's median seconds against the plan's unit (the page's
fields' time) and, on Prolific, its whole-minute estimate, what a unit holds, and the honest places timed out.

Run: ``python -m bench.places_times [--items-a-page 20] [--out results.json]`` (about a minute of CPU)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import tempfile
from pathlib import Path

from flows.campaigns.task_kinds import kind_of, load_campaign
from flows.cli.main import main
from tests.test_rehearsal_times import new_page, working_times

ROUTES = ("mturk", "prolific", "links")


def measure(per_page: int, platform: str, items_a_page: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="places-") as tmp:
        folder, here = Path(tmp), os.getcwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(io.StringIO()) as said, contextlib.redirect_stderr(io.StringIO()):
                config = new_page(folder, per_page, items=items_a_page * per_page)
                code = main(["run", str(config), "--platform", platform, "--db", str(folder / "h.db"),
                             "--out", str(folder / "out"), "--no-prefect"])
            seconds, timed_out = working_times(folder)
        finally:
            os.chdir(here)
        try:  # the plan as the route plans it (a route argument where the code has one)
            cfg = load_campaign(config, platform)  # type: ignore[call-arg]
        except TypeError:
            cfg = load_campaign(config)
        unit_s = 60 * kind_of(cfg).plan(cfg).minutes
        estimate_s = 60 * cfg.prolific.estimated_minutes if platform == "prolific" else unit_s
        median = statistics.median(seconds) if seconds else float("nan")
        places = [line for line in said.getvalue().splitlines() if "a place holds" in line]
        return {"page": per_page, "route": platform, "exit": code, "items_a_unit": cfg.images_per_hit,
                "honest_submissions": len(seconds), "median_s": round(median, 1), "plan_unit_s": round(unit_s, 1),
                "plan_estimate_s": round(estimate_s, 1), "median_over_estimate": round(median / estimate_s, 2),
                "median_over_unit": round(median / unit_s, 2), "honest_timed_out": timed_out, "said": places[:2]}


def main_() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items-a-page", type=int, default=20, help="items in the file: this many pages of the page")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    rows = [measure(n, r, a.items_a_page) for n in (1, 2, 5) for r in ROUTES]
    for r in rows:
        ok = abs(float(r["median_over_estimate"]) - 1) <= 0.25 and r["honest_timed_out"] == 0  # type: ignore[arg-type]
        print(f"{r['page']} item(s) a page, {r['route']:8}: {r['items_a_unit']} a unit, {r['honest_submissions']} "
              f"honest, median {r['median_s']} s, plan {r['plan_unit_s']} s, estimate {r['plan_estimate_s']} s, "
              f"x{r['median_over_estimate']}, {r['honest_timed_out']} timed out {'ok' if ok else 'MISS'}")
    if a.out:
        Path(a.out).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main_()
