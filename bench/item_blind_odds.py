"""``python -m bench.item_blind_odds``: how many one-item pages ``item_blind`` (qc/agreement_odds.py) needs to flag
a constant rater and a random clicker, and the largest evidence it holds against an honest reader, on crowds in
the shape of a requester's one-item page (tests/test_item_blind.py builds them: a 1-7 slider, a three-way choice,
four topics to tick; five workers an item). Per number of pages, over 20 seeds: the constant raters and random
clickers flagged at ``item_blind_alpha`` 0.01, and the honest workers' largest ``E`` (the flag needs 100).
Nothing here is a test; the figures are quoted in docs/explanation/qc-rules.md.
"""

from __future__ import annotations

import argparse

from qc.agreement_odds import worker_evidence
from tests.test_item_blind import crowd


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args(argv)
    print("pages  constant flagged  random flagged  honest largest E")
    for pages in (3, 5, 8, 12, 16, 20, 30, 40):
        constant = random = 0
        largest = 0.0
        for seed in range(args.seeds):
            evidence = worker_evidence(crowd(seed, pages), {})
            constant += evidence.get("constant", (0.0,))[0] >= 100
            random += evidence.get("random", (0.0,))[0] >= 100
            largest = max([largest, *(e for w, (e, _) in evidence.items() if w.startswith("h"))])
        print(f"{pages:5d}  {constant:7d} of {args.seeds}  {random:7d} of {args.seeds}  {largest:12.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
