"""``make bench-placeholder-import``: ``hitflow new --from`` on a page of MTurk ``${x}`` placeholders
(300,000 of them in 1.2 MB took 176 s and 3.3 GB). Each size is imported in a fresh process
(its peak RSS is the import's, modules included); the figures are seconds and peak MB per size, for
the issue's page (one column), one naming a column per placeholder, and a Ground Truth page of Liquid
``{{ task.input.x | upcase }}`` (100,000 took 74 s and 1.5 GB). Linear means seconds per
placeholder flat."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = (30_000, 100_000, 300_000)


KINDS = ("shared", "distinct", "liquid")


def page(n: int, kind: str) -> str:
    """The issue's page (``${x}`` n times: 1.2 MB at 300,000), one naming a column per placeholder, or
    Liquid's ``{{ task.input.x | upcase }}`` n times."""
    cells = "".join(f"${{c{i}}}" for i in range(n)) if kind == "distinct" else \
        "{{ task.input.x | upcase }}" * n if kind == "liquid" else "${x}" * n
    return f"<html><body><form><input name='ok'>{cells}</form></body></html>"


def one(n: int, kind: str) -> dict[str, float | str]:
    """Import one page in this process: its size, seconds, exit code and peak RSS."""
    from flows.cli.main import main

    text = page(n, kind)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "page.html"
        source.write_text(text, encoding="utf-8")
        start = time.perf_counter()
        code = main(["new", "imp", "--from", str(source), "--dir", str(Path(tmp) / "out")])
        seconds = time.perf_counter() - start
    return {"placeholders": n, "kind": kind, "page_mb": round(len(text) / 2**20, 2), "exit": code,
            "seconds": round(seconds, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def main() -> None:
    if len(sys.argv) == 3:  # a child: one size
        print(json.dumps(one(int(sys.argv[1]), sys.argv[2])))
        return
    rows = []
    for kind in KINDS:
        for n in SIZES if kind != "liquid" else SIZES[:2]:  # Ground Truth's pages are smaller than MTurk's CSVs
            done = subprocess.run([sys.executable, "-m", "bench.placeholder_import", str(n), kind],
                                  capture_output=True, text=True, check=True)
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(rows[-1], flush=True)
    Path("bench/results-placeholder-import.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
