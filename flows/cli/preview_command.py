"""``hitflow preview CONFIG``: the first page a worker would get, written to a file."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flows.core.errors import ConfigError

if TYPE_CHECKING:
    from flows.core.config.config import CampaignConfig


def cmd_preview(a: argparse.Namespace) -> int:
    from flows.core.config.config import load_config
    from flows.core.outputs.output_location import chosen_output, staging_root

    cfg = load_config(a.config)
    target = Path(a.out) if a.out else staging_root(chosen_output(None, cfg.out)) / cfg.name / "preview.html"
    path, items = write_preview(cfg, target, a.page)
    print(f"preview: {path} (page {a.page}: {', '.join(items)}, as a worker sees it; open it in a browser)")
    print(f"nothing was posted; `hitflow run {a.config} --dry-run` checks every page and the cost")
    return 0


def first_page_rows(cfg: CampaignConfig, page: int = 1) -> list[dict[str, Any]]:
    """The item rows of the campaign's ``page``-th page (1 = batch 1's first HIT), in plan order."""
    from flows.campaigns.campaign_plan import item_plan

    pages: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for row in item_plan(cfg):
        pages.setdefault((int(row["batch"]), int(row["hit_index"])), []).append(row)
    if not pages:
        raise ConfigError(f"{cfg.path}: the items file has no item to show; add at least one row")
    keys = sorted(pages)
    if not 1 <= page <= len(keys):
        raise ConfigError(f"page {page} does not exist: the campaign has {len(keys)} page(s); pick 1 to {len(keys)}")
    return pages[keys[page - 1]]


def write_preview(cfg: CampaignConfig, path: Path, page: int = 1) -> tuple[Path, list[str]]:
    """Render the page to ``path``; the path and the item ids it shows."""
    from flows.campaigns.task_pages import task_page

    rows = first_page_rows(cfg, page)
    html = task_page(cfg, rows)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write the preview to {path}: {exc.strerror or exc}; pass --out "
                          "with a writable file") from exc
    return path, [str(r["item_id"]) for r in rows]
