"""``hitflow qc``'s flag file on a generated caption batch, recorded from the commit the QC speed work kept to.

The batch is bench/qc_load.py's (real captions of the demo bank, a per-image word, canned text, pasted
templates, capitals), 30,000 captions: past one part of the tokeniser (16,384 texts) and of the character
counts (2**20 characters), so the code that works in parts is compared across a cut. generated_flags.json keeps,
from the recorded commit's ``hitflow qc``, the file's SHA-256 and per rule its row count and the SHA-256 of its
rows, so a change shows which rule moved. ``python -m tests.generated_flags --tree CHECKOUT`` records it again
from that checkout's code (``git worktree add --detach /tmp/old COMMIT``); only when a change of flags is meant.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "generated_flags.json"
CAPTIONS = 30_000


def write_batch(path: Path, n: int = CAPTIONS) -> Path:
    from bench.qc_load import load_batch

    load_batch(n).drop(columns="is_precanned").to_csv(path, index=False)
    return path


def digests(flags: Path) -> dict[str, Any]:
    """The file's SHA-256; per rule, its rows in file order: count and SHA-256."""
    raw = flags.read_bytes()
    by_rule: dict[str, list[list[str]]] = {}
    with flags.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            by_rule.setdefault(row["rule"], []).append(list(row.values()))
    return {"file": hashlib.sha256(raw).hexdigest(),
            "rules": {rule: {"rows": len(rows), "sha256": hashlib.sha256(json.dumps(rows).encode()).hexdigest()}
                      for rule, rows in sorted(by_rule.items())}}


def record(tree: Path) -> dict[str, Any]:
    """``hitflow qc`` with ``tree``'s code over the generated batch, in a process of its own."""
    with tempfile.TemporaryDirectory() as tmp:
        captions, flags = write_batch(Path(tmp) / "captions.csv"), Path(tmp) / "flags.csv"
        hitflow = Path(sys.executable).with_name("hitflow")
        subprocess.run([str(hitflow), "qc", str(captions), "--out", str(flags)], check=True, cwd=tree,
                       env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True)
        commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
        return {"commit": commit, "captions": CAPTIONS, **digests(flags)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, required=True, help="the checkout whose `hitflow qc` is recorded")
    kept = record(parser.parse_args().tree.resolve())
    RECORDED.write_text(json.dumps(kept, indent=1) + "\n")
    print(f"{RECORDED}: {sum(r['rows'] for r in kept['rules'].values())} flags of {kept['commit'][:8]}")
