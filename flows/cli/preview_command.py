"""``hitflow preview CONFIG``: the page a worker would get, written to a file (flows/campaigns/page_preview.py)."""

from __future__ import annotations

import argparse
from pathlib import Path


def cmd_preview(a: argparse.Namespace) -> int:
    from flows.campaigns.page_preview import write_preview
    from flows.core.config.config import load_config
    from flows.core.outputs.output_location import chosen_output, staging_root

    cfg = load_config(a.config)
    target = Path(a.out) if a.out else staging_root(chosen_output(None, cfg.out)) / cfg.name / "preview.html"
    path, items = write_preview(cfg, target, a.page)
    print(f"preview: {path} (page {a.page}: {', '.join(items)}, as a worker sees it; open it in a browser)")
    print(f"nothing was posted; `hitflow run {a.config} --dry-run` checks every page and the cost")
    return 0
