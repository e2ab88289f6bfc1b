"""Synthetic image items for load tests (``items = "generate:N"``): made-up ids, names and URLs."""

from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path

GENERATED_DIR = Path(__file__).resolve().parents[3] / "runs" / "generated"
URL_BASE = "https://example.org/vizwiz-synthetic/"
PREFIX = "generate:"


def synthetic_item(index: int, stem: str = "VizWizSynth") -> dict[str, str]:
    file_name = f"{stem}_{index:08d}.jpg"
    return {"image_id": f"{stem}_{index:08d}", "file_name": file_name, "url": URL_BASE + file_name}


def generated_items(spec: str, out_dir: Path = GENERATED_DIR) -> Path:
    """The CSV for ``generate:N`` (written once, then reused): N items with distinct ids."""
    count = spec.removeprefix(PREFIX).strip()
    if not count.isdigit() or not 0 < int(count) <= 10_000_000:
        raise ValueError(f"items = {spec!r}: write generate:N with N a whole number of images (1 to 10,000,000)")
    path = out_dir / f"items-{int(count)}.csv"
    if not path.is_file():
        out_dir.mkdir(parents=True, exist_ok=True)
        # a temporary name of its own: two processes generating the same list must not share one file
        fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=path.stem, suffix=".tmp")
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=["image_id", "file_name", "url"])
            writer.writeheader()
            writer.writerows(synthetic_item(i) for i in range(1, int(count) + 1))
        os.replace(tmp, path)  # a half-written file never passes for the item list
    return path


def scaled_copy(item: dict[str, str], copy: int) -> dict[str, str]:
    """``--scale K``: the K-th copy of an item as a new image (a new id, file name and URL)."""
    if not copy:
        return item
    stem, dot, ext = item["file_name"].rpartition(".")
    file_name = f"{stem}_x{copy}.{ext}" if dot else f"{item['file_name']}_x{copy}"
    url = item["url"].rsplit("/", 1)[0] + "/" + file_name if "/" in item["url"] else item["url"]
    return {**item, "image_id": f"{item['image_id']}_x{copy}", "file_name": file_name, "url": url}
