"""What ``hitflow run CONFIG --dry-run`` costs as the item file grows: CPU seconds (user + system) and peak
RSS of the command, on the demo caption campaign's config with a generated items file (bench/input_bounds.py's
rows), at 30,000 and 300,000 items. Target: under 30 s of CPU at 300,000 items (60,000 HITs).

``python -m bench.dry_run_speed [--tree DIR ...] [--items N ...]``: each tree (a checkout of hitflow; this
one by default) runs each size in turn, so two trees are measured side by side under the same load. The
printed plans of the trees are compared too: a faster dry run must print the same plan.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def items_config(folder: Path, items: int) -> Path:
    """The demo caption config on ``items`` generated images, with a budget no plan exceeds."""
    path = folder / "items.csv"
    path.write_text("image_id,file_name,url\n" + "".join(
        f"VizWiz_{i:08d},VizWiz_{i:08d}.jpg,https://vizwiz.cs.colorado.edu/images/VizWiz_{i:08d}.jpg\n"
        for i in range(items)), "utf-8")
    config = (ROOT / "config" / "vizwiz_captions.toml").read_text(encoding="utf-8")
    config = config.replace('items = "items/vizwiz_demo_items.csv"', f'items = "{path}"')
    config = re.sub(r'(?m)^budget = "[^"]*"', 'budget = "100000000.00 USD"', config)  # the plan, not the money
    (folder / "big.toml").write_text(config, encoding="utf-8")
    return folder / "big.toml"


def dry_run_cost(tree: Path, config: Path) -> dict[str, Any]:
    """CPU seconds and peak RSS of one dry run with ``tree``'s code, and a digest of the plan it printed."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PREFECT_HOME": str(config.parent / ".prefect")}
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen([sys.executable, "-m", "flows.cli", "run", str(config), "--dry-run", "--out",
                                  str(config.parent / "runs")], cwd=config.parent, env=env, stdout=out,
                                 stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU and peak RSS
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        printed = out.read()
    return {"rc": child.returncode, "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mb": round(usage.ru_maxrss / 1024), "plan_lines": printed.count(b"\n"),
            "plan_sha256": hashlib.sha256(printed).hexdigest()[:16]}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", type=Path, help="a hitflow checkout (default: this one)")
    parser.add_argument("--items", action="append", type=int, help="item counts (default: 30000 and 300000)")
    a = parser.parse_args(argv)
    trees, sizes = a.tree or [ROOT], a.items or [30_000, 300_000]
    results: dict[str, Any] = {"load_1min_before": os.getloadavg()[0], "runs": []}
    for items in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            config = items_config(Path(tmp), items)
            for tree in trees:
                results["runs"].append({"items": items, "tree": str(tree), **dry_run_cost(tree, config)})
    print(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
