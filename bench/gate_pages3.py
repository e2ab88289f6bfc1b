"""``python -m bench.gate_pages3``: the gate on pages of ours written for its MTurk quiz and free-text work
(bench/gate_pages3/), imported and run with the CLI exactly as bench/gate_pages2.py runs its pages, judged with its
definitions: a one-item yes / no safety question with an optional "what would you change" box and control items
whose answers are uneven (``recipe_check``), and a one-item three-way tone with a required short headline and
control items that never name one of the answers (``news_tone``). Figures go to bench/results-gate-pages3.json.
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
HERE = ROOT / "bench" / "gate_pages3"
RESULTS = ROOT / "bench" / "results-gate-pages3.json"
PAGES = (
    HeldoutPage("recipe_check", 1, ("safe",), keys={"controls": '"recipe_check_controls.csv"', "control_share": "0.2"},
                controls=True, folder=HERE),
    HeldoutPage("news_tone", 1, ("tone", "headline"), keys={"controls": '"news_tone_controls.csv"',
                                                             "control_share": "0.2"}, controls=True, folder=HERE),
)

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=None)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--pages", default="")
    parser.add_argument("--routes", default="mturk,prolific")
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--label", default="")
    parser.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose hitflow runs (default: this one)")
    args = parser.parse_args(argv)
    heldout.PAGES_DIR = HERE  # the same import and run, on these pages
    env = {**os.environ, "PYTHONPATH": str(args.repo.resolve())}
    if args.repo.resolve() != ROOT:  # another checkout's code is read, never written to
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    run: dict[str, Any] = {}
    for page in [p for p in PAGES if not args.pages or p.name in args.pages.split(",")]:
        for route in args.routes.split(","):
            r = run_route(page, route, args.items, env, args.seed, args.keep)
            run.setdefault(page.name, {})[route] = r
            print("\n".join(show(page.name, route, r)), flush=True)
            if "gate" in r:
                g = r["gate"]
                print(f"{'':<23} honest flagged by rule: {g['honest_flagged_by_rule']}; bad flagged by rule: "
                      f"{g['bad_flagged_by_rule']}", flush=True)
    keep_result(RESULTS, f"{args.label or code_commit(args.repo)}, {args.items or 'all'} items, seed {args.seed}"
                + (f", pages {args.pages}" if args.pages else ""), run)
    return 0

if __name__ == "__main__":
    sys.exit(main())
