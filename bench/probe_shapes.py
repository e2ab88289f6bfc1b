"""Three page shapes whose requirements only running the page's script shows, measured through the CLI as
bench/gate_heldout.py measures a held-out set (MTurk and Prolific simulators, the default crowd, 3 batches, 3
workers an item). The pages are the tests' own (tests/pages/script_rules/, 12 items each), one fragment and
one full document per shape:
- boxes, boxes_doc: every box of a checkbox group carries ``required`` and the script lifts it from the
  group's boxes once one is ticked ("at least one"); a person ticks one;
- must, must_doc: controls made required by a script as the page loads (``el.required = true`` over a
  class, ``setAttribute('required', '')`` in a helper), no ``required`` in the HTML;
- words, words_doc: a word range (8-30, 5-20) refused by a submit listener on ``document``/``window`` in the
  capture phase, stated nowhere in the page's words.
Per page and route: the gate's figures (honest workers flagged and blocked, approved assignments with a
field the page requires blank) and, on the word pages, the approved assignments whose text is outside the
range the script enforces. The box pages run with the simulator's browser workers (who run the page's script
and tick what a person ticks: one box where the page takes one), the others with its form-reading workers
(who read only what the import made rules). ``--repo``, ``--pages``, ``--results`` and the rest as
bench/gate_heldout4.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file from another checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import gate_heldout
from bench.gate_heldout import ROOT, HeldoutPage, words
from bench.gate_heldout4 import cli
from bench.gate_heldout5 import approved_breaking

PAGES_DIR = ROOT / "tests" / "pages" / "script_rules"
RESULTS = ROOT / "bench" / "results-probe-shapes.json"


def _outside(field: str, least: int, most: int) -> dict[str, Callable[[dict[str, str]], bool]]:
    return {f"{field}_outside_{least}_{most}_words": lambda f: f.get(field, "").strip() != "" and not (
        least <= len(words(f[field])) <= most)}


PAGES = (
    HeldoutPage("boxes", 1, ("topic",), folder=PAGES_DIR),
    HeldoutPage("boxes_doc", 1, ("animals", "setting"), folder=PAGES_DIR),
    HeldoutPage("must", 1, ("category", "reason"), folder=PAGES_DIR),
    HeldoutPage("must_doc", 1, ("tone", "keyword", "click"), folder=PAGES_DIR),
    HeldoutPage("words", 1, ("rewrite",), folder=PAGES_DIR, extra=approved_breaking(_outside("rewrite", 8, 30))),
    HeldoutPage("words_doc", 1, ("summary",), folder=PAGES_DIR,
                extra=approved_breaking(_outside("summary", 5, 20))),
)


BROWSER = ("boxes", "boxes_doc")
_prepare = gate_heldout.prepare


def prepare_with_workers(page: HeldoutPage, folder: Path, env: dict[str, str]) -> tuple[dict[str, Any], Path]:
    """bench/gate_heldout.py's import and setup, and on a page of BROWSER the browser workers."""
    made, config = _prepare(page, folder, env)
    if page.name in BROWSER and config.exists():
        config.write_text(config.read_text(encoding="utf-8") + '\n[target]\nsim_workers = "browser"\n', "utf-8")
    return made, config


def main(argv: list[str] | None = None) -> int:
    gate_heldout.prepare = prepare_with_workers  # type: ignore[assignment]
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())
