"""``python -m bench.gate_pages3``: the gate on pages of ours written for its MTurk quiz and free-text work
(bench/gate_pages3/), imported and run with the CLI exactly as bench/gate_pages2.py runs its pages, judged with its
definitions: a one-item yes / no safety question with an optional "what would you change" box and control items
whose answers are uneven (``recipe_check``), and a one-item three-way tone with a required short headline and
control items that never name one of the answers (``news_tone``). Figures go to bench/results-gate-pages3.json.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench import gate_pages2
from bench.gate_heldout import HeldoutPage

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
    return gate_pages2.main(argv, PAGES, HERE, RESULTS, __doc__ or "")


if __name__ == "__main__":
    sys.exit(main())
