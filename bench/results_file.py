"""A bench's results JSON that keeps one entry per run setting (a size, a seed, a route) across runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def kept_results(path: Path) -> dict[str, Any]:
    """The entries written so far ({} before the first run)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def keep_result(path: Path, key: str, result: Any, sort_keys: bool = True) -> dict[str, Any]:
    """``result`` under ``key`` beside the entries kept so far; the whole file rewritten; what it now holds."""
    results = kept_results(path)
    results[key] = result
    path.write_text(json.dumps(results, indent=1, sort_keys=sort_keys) + "\n", encoding="utf-8")
    return results
