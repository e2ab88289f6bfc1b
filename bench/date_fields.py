"""``python -m bench.date_fields``: date and time pickers on pages of our own against the gate.

The two pages of ``tests/pages/dates/`` (a receipt imported with ``hitflow new --from``, one a page; a diary of
events, four a page, asking a day, a time, a month, a week, a date and time, a colour and a remark) run end to end
on the MTurk and Prolific simulators with the page's imported QC and policy, each item shown to ``--per-item``
workers over ``--batches`` batches, twice: an honest crowd (two of each honest profile) and the same with
speeders, contrarians and rule breakers (two each). Per run it prints:

- the batches held for a person (a rule that would reject or block most of a batch);
- honest workers flagged (any rule, a review sample included), blocked, and the rules that flagged them;
- bad workers blocked, and those no rule flagged at all.

Figures go to ``bench/results-date-fields.json`` under the seed; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from bench.results_file import keep_result
from tests.date_pages import page_config, run_page

RESULTS = Path(__file__).resolve().parent / "results-date-fields.json"
BAD = {"speeder": 2, "contrarian": 2, "rule_breaker": 2}
PAGES = {"receipt": 1, "events": 4}  # items a page


def judged(run: dict[str, Any], honest_profiles: tuple[str, ...]) -> dict[str, Any]:
    """One run's figures: holds, honest workers flagged and blocked, bad workers blocked and unnoticed."""
    workers = run["workers"]
    honest = {w for w, v in workers.items() if v["profile"] in honest_profiles}
    flagged = {w for w, *_ in run["flags"]}
    bad = set(workers) - honest
    return {"held": [b for b, _ in run["held"]], "honest": len(honest), "honest_flagged": len(honest & flagged),
            "honest_blocked": sum(1 for w in honest if workers[w]["blocked"]),
            "honest_flagged_by": sorted({rule for w, rule, *_ in run["flags"] if w in honest}),
            "bad": len(bad), "bad_blocked": sum(1 for w in bad if workers[w]["blocked"]),
            "bad_unnoticed": sorted(workers[w]["profile"] for w in bad if w not in flagged)}


def main(argv: list[str] | None = None) -> int:
    from flows.sim.people.crowd_model import HONEST_PROFILES

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-item", type=int, default=3, help="workers an item")
    parser.add_argument("--batches", type=int, default=3)
    args = parser.parse_args(argv)
    out: dict[str, Any] = {}
    for page, per_page in PAGES.items():
        for platform in ("mturk", "prolific"):
            for crowd in ("honest", "mixed"):
                counts = {p: 2 for p in HONEST_PROFILES} | (BAD if crowd == "mixed" else {})
                with tempfile.TemporaryDirectory() as tmp:
                    config = page_config(Path(tmp), page, per_page, args.per_item, args.batches)
                    run = run_page(Path(tmp), config, counts, platform, args.seed)
                out[f"{page}/{platform}/{crowd}"] = judged(run, HONEST_PROFILES)
    print(json.dumps(out, indent=1))
    keep_result(RESULTS, f"seed {args.seed}, {args.per_item} an item, {args.batches} batches", out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
