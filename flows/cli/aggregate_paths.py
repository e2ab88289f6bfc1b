"""What ``hitflow aggregate`` reads and writes kept apart, and its summary as strict JSON."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from flows.core.errors import ConfigError


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def refuse_overwriting_inputs(a: argparse.Namespace) -> None:
    """A ConfigError when ``--out`` or the workers.csv written beside it is the input or ``--controls``."""
    out = Path(a.out)
    inputs = [(Path(a.input), "the labels file")] + ([(Path(a.controls), "--controls")] if a.controls else [])
    from flows.answers.answers_files import workers_path_for

    for written in (out, workers_path_for(out)):
        for given, what in inputs:
            if given.is_file() and _same(written, given):  # a campaign's name is no file to overwrite
                raise ConfigError(f"--out {a.out} would write {written} over {what} {given}: write the answers to "
                                  f"another file ({workers_path_for(out).name} goes beside it)")


def finite(value: Any) -> Any:
    """``value`` with every float that is not finite (NaN, infinities) as None, in dicts and lists too."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def summary_json(result: dict[str, Any]) -> str:
    """The summary as JSON every reader parses: no NaN or Infinity in it."""
    return json.dumps(finite(result), indent=1, allow_nan=False)
