"""Three custom pages of our own whose items files hold the answers, as campaigns:
a stress classifier (``gold_stress``), a passage-relevance page with a summary box (``gold_passage``)
and a pair of yes/no questions per item with a comment on a word (``a_ok``, ``b_ok``). The pages and
items are in ``tests/pages/truth/``; ``bench/custom_truth.py`` runs the same three."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from flows.custom.scaffold import scaffold

PAGES = Path(__file__).resolve().parent / "pages" / "truth"
TRUTH = {"stress": {"stress": "gold_stress"}, "relevance": {"relevant": "gold_passage"},
         "pairs": {"a_ok": "a_ok", "b_ok": "b_ok"}}
BLIND_FIELDS = {"stress": ["readable"], "relevance": [], "pairs": ["difficulty"]}


def truth_config(root: Path, kind: str, per_page: int = 4, per_item: int = 3, batches: int = 1,
                 truth: bool = True, extra: str = "") -> Path:
    """``root/config/<kind>.toml``: the scaffold's campaign on page ``kind`` and its items, with
    ``[campaign] truth`` naming the answer columns (``truth=False``: without them)."""
    scaffold(kind, root)
    folder = root / "config"
    shutil.copy(PAGES / f"{kind}.html.j2", folder / f"{kind}.html.j2")
    shutil.copy(PAGES / f"{kind}_items.csv", folder / f"{kind}_items.csv")
    config = folder / f"{kind}.toml"
    text = config.read_text(encoding="utf-8")
    columns = ", ".join(f'{f} = "{c}"' for f, c in TRUTH[kind].items())
    text = re.sub(r"(?m)^images_per_hit = \d+", f"images_per_hit = {per_page}", text)
    text = re.sub(r"(?m)^assignments_per_image = \d+", f"assignments_per_image = {per_item}", text)
    text = re.sub(r"(?m)^batches = \d+", f"batches = {batches}", text)
    text = re.sub(r'(?m)^budget = ".*?"', 'budget = "5000.00 USD"', text)
    said = (f"\ntruth = {{{columns}}}" if truth else "") + extra
    text = re.sub(r"(?m)^(items = .*)$", lambda m: m.group(1) + said, text)
    config.write_text(text, encoding="utf-8")
    return config
