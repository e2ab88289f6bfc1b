"""``python -m bench.gate_pages2``: the gate on more choice-only pages of our own (bench/gate_pages2/),
imported and run with the CLI exactly as bench/gate_heldout.py runs its pages, judged with its definitions
(bench/gate_bench.py's): per page and route, bad-profile assignments approved unnoticed, contrarian + speeder +
rule-breaker apart, honest workers blocked and flagged (a flag sends work to a person; never a block).

The pages: a one-item five-point agreement scale with a 0-100 confidence number (``trust_scale``), a one-item
yes / no / not sure question with control items and a truth column (``spam_check``), a checkbox group of five
fixed topics (``topic_tags``), a one-item yes / no photo question (``dog_photo``), a five-point opinion on five
town proposals a page (``town_survey``: subjective, honest workers agree little) and a one-item four-way choice
(``store_aisle``, written beside the other two and kept out of the gate's tuning). Figures go to
bench/results-gate-pages2.json under the measured commit.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from bench import gate_heldout as heldout
from bench.gate_heldout import HeldoutPage, code_commit, run_route, show
from bench.results_file import keep_result

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "bench" / "gate_pages2"
RESULTS = ROOT / "bench" / "results-gate-pages2.json"
PAGES = (
    HeldoutPage("trust_scale", 1, ("trust", "confidence"), folder=HERE),
    HeldoutPage("spam_check", 1, ("spam",), keys={"controls": '"spam_check_controls.csv"', "control_share": "0.2"},
                truth='{spam = "gold_spam"}', controls=True, folder=HERE),
    HeldoutPage("topic_tags", 1, (), folder=HERE),
    HeldoutPage("dog_photo", 1, ("dog",), folder=HERE),
    HeldoutPage("town_survey", 5, ("view",), folder=HERE),
    HeldoutPage("store_aisle", 1, ("aisle",), folder=HERE),  # kept out of tuning: reported apart
)

def main(argv: list[str] | None = None, pages: tuple[HeldoutPage, ...] = PAGES, here: Path = HERE,
         results: Path = RESULTS, doc: str = __doc__ or "") -> int:
    """Run ``pages`` (from ``here``) on each route and keep the figures in ``results``: also bench/gate_pages3.py's."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--items", type=int, default=None)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--pages", default="")
    parser.add_argument("--routes", default="mturk,prolific")
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--label", default="")
    parser.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose hitflow runs (default: this one)")
    args = parser.parse_args(argv)
    heldout.PAGES_DIR = here  # the same import and run, on these pages
    env = {**os.environ, "PYTHONPATH": str(args.repo.resolve())}
    if args.repo.resolve() != ROOT:  # another checkout's code is read, never written to
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    run: dict[str, Any] = {}
    for page in [p for p in pages if not args.pages or p.name in args.pages.split(",")]:
        for route in args.routes.split(","):
            r = run_route(page, route, args.items, env, args.seed, args.keep)
            run.setdefault(page.name, {})[route] = r
            print("\n".join(show(page.name, route, r)), flush=True)
            if "gate" in r:
                g = r["gate"]
                print(f"{'':<23} honest flagged by rule: {g['honest_flagged_by_rule']}; bad flagged by rule: "
                      f"{g['bad_flagged_by_rule']}", flush=True)
    keep_result(results, f"{args.label or code_commit(args.repo)}, {args.items or 'all'} items, seed {args.seed}"
                + (f", pages {args.pages}" if args.pages else ""), run)
    return 0

if __name__ == "__main__":
    sys.exit(main())
