"""Simulated workers' throughput, browser vs form-reading (``make bench-browser-workers``).

The page is tests/pages_wild/script_json_answer.html imported with ``hitflow new --from`` (its
script writes a JSON answer on submit), or the page given second (``make bench-browser-workers
HITS=8 PAGE=tests/pages_wild/keylog_summary.html``: a box typed key by key); every column
the page reads gets one of four sentences. N HITs of 5 assignments are posted to an in-process
simulator with the page marked for browser workers, then again marked for form-reading workers;
the clock is moved three days, which waits until every page taken was worked. Throughput is
answered assignments per wall-clock second from the first CreateHIT to the last answer; the
browser figure includes Chromium's start (once per process). Writes bench/results-browser.json.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import boto3

from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import html_question
from flows.custom.custom_task import custom_page
from flows.custom.scaffold_import import scaffold_from
from flows.sim.pages.browser_check import available
from flows.sim.service.server import SimServer

PAGE = Path(__file__).resolve().parents[1] / "tests" / "pages_wild" / "script_json_answer.html"
OUT = Path(__file__).resolve().parent / "results-browser.json"
SENTENCES = ["Alice met Bob in Paris at the Acme office.", "The river was cold in March.",
             "Unesco listed the old town of Bergen in 1979.", "Maria flew from Lima to Tokyo."]


def pages(n: int, page: Path = PAGE) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        scaffold_from("bench_page", page, Path(tmp))
        cfg = load_config(Path(tmp) / "config" / "bench_page.toml")
        header = (Path(tmp) / "config" / "bench_page_items.csv").read_text(encoding="utf-8").splitlines()[0]
        columns = [c for c in header.split(",") if c != "item_id"]
        return [custom_page(cfg, [{"item_id": f"s{k}", "image_id": f"s{k}",
                                   **dict.fromkeys(columns, SENTENCES[k % 4])}]) for k in range(n)]


def run(mode: str, htmls: list[str], assignments: int) -> dict[str, Any]:
    marked = [h.replace('data-sim-workers="browser"', f'data-sim-workers="{mode}"') for h in htmls]
    with SimServer(seed=5) as sim:
        client = boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1",
                              aws_access_key_id="dummy", aws_secret_access_key="dummy")
        start = time.perf_counter()
        for html in marked:
            client.create_hit(MaxAssignments=assignments, LifetimeInSeconds=86400, AssignmentDurationInSeconds=3600,
                              Reward="0.10", Title="Tag a sentence", Description="One sentence",
                              Question=html_question(html, 600))
        sim.market.advance(3 * 86400)
        seconds = time.perf_counter() - start
        answered = [a for a in sim.market.assignments.values() if a.answer]
    return {"mode": mode, "hits": len(htmls), "assignments": len(answered), "seconds": round(seconds, 2),
            "assignments_per_s": round(len(answered) / seconds, 2)}


def main(n: int = 20, assignments: int = 5, page: Path = PAGE) -> dict[str, Any]:
    if not available():
        sys.exit("bench-browser-workers: needs /usr/bin/chromium and Playwright (make browser-deps)")
    htmls = pages(n, page)
    result: dict[str, Any] = {"page": page.name, "load_average_1min": round(os.getloadavg()[0], 2),
                              "cpus": os.cpu_count(), "form": run("form", htmls, assignments),
                              "browser": run("browser", htmls, assignments)}
    OUT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for mode in ("form", "browser"):
        r = result[mode]
        print(f"{mode:8} workers: {r['assignments']} assignments on {r['hits']} HITs in {r['seconds']} s "
              f"= {r['assignments_per_s']} assignments/s")
    return result


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20, page=Path(sys.argv[2]) if len(sys.argv) > 2 else PAGE)
