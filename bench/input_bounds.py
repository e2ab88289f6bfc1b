"""What a hostile or merely large input costs (``make bench-security`` prints it; ``python -m bench.input_bounds``
alone): CPU seconds, never wall time, on this machine.

1. A page's pattern (qc/page_patterns.py) against 10,000-character answers: the slowest check of each pattern
   that backtracks in Python's ``re`` (``(a+)+`` took 16.6 s on 29 characters before) and of 200 generated ones
   (tests/test_page_patterns.py's pieces). Target: under 1 s a check.
2. ``hitflow aggregate`` on 10,000 fields x 2 labels (0.3 MB): CPU of the command, by its default method and by
   each ``--method``. Target: under 30 s each.
3. ``hitflow run CONFIG --dry-run`` on 300,000 items (the demo caption campaign's config on a generated items
   file): CPU of the command. Target: under 30 s.
4. The same on a page of one's own (``hitflow new NAME --from page.html --items`` as a user imports it: one
   photo and its caption a page, a choice and a reason): CPU of the dry run. Target: under 30 s.
5. The same on an evaluation study (config/expert_rating.toml on generated sentences, 50 a page): CPU of the dry
   run. Target: under 30 s.

Commands 2 to 5 run as child processes, stopped after ``LIMIT_S`` of wall time (reported as not done).
"""

from __future__ import annotations

import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from qc.form_constraints import check_field

ROOT = Path(__file__).resolve().parents[1]
LIMIT_S = 300
BLOWUPS = ["(a+)+", "(a|a)*", "(a|aa)*b", "(\\w+\\s?)*",
           "([a-zA-Z0-9_.\\-])+@(([a-zA-Z0-9\\-])+\\.)+([a-zA-Z0-9]{2,4})+",
           "(.*a){12}", "(a*)*b", "((a+)+)+c", "(x+x+)+y", ".*.*.*.*=.*"]
ANSWERS = ["a" * 10_000, "a" * 9_999 + "!", "a@" * 5_000, "x" * 9_999 + "!", " " * 10_000, "a=" * 5_000]


def bench_patterns(generated: int = 200) -> dict[str, Any]:
    """The slowest check (CPU seconds) of the blow-up patterns and of generated ones on 10,000-character answers."""
    from tests.test_page_patterns import ATOMS, QUANTIFIERS

    rng = random.Random(0)
    atoms, quantifiers = list(ATOMS.elements), list(QUANTIFIERS.elements)  # type: ignore[attr-defined]
    from qc.page_patterns import PagePattern, page_pattern

    assert all(isinstance(page_pattern(p), PagePattern) for p in BLOWUPS)  # each kept: the check is timed, not skipped
    made = ["".join(f"(?:{rng.choice(atoms)}){rng.choice(quantifiers)}" for _ in range(rng.randint(1, 6)))
            for _ in range(generated)]
    worst: dict[str, float] = {}
    for name, patterns in (("blowups", BLOWUPS), ("generated", made)):
        slowest = 0.0
        for pattern in patterns:
            rule = {"name": "x", "type": "text", "input": "text", "pattern": pattern}
            for answer in ANSWERS:
                start = time.process_time()
                check_field(rule, answer)
                slowest = max(slowest, time.process_time() - start)
        worst[name] = round(slowest, 5)
    return {"answer_chars": 10_000, "patterns": len(BLOWUPS) + generated, "slowest_check_s": worst}


def _child_cpu(argv: list[str], cwd: Path) -> dict[str, Any]:
    """CPU seconds (user + system) of a hitflow command run to its end, or not done within LIMIT_S."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_HOME": str(cwd / ".prefect")}
    try:
        done = subprocess.run([sys.executable, "-m", "flows.cli", *argv], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        return {"done": False, "cpu_s": None, "note": f"not done in {LIMIT_S} s of wall time"}
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"done": done.returncode == 0, "rc": done.returncode, "cpu_s": round(cpu, 2),
            "peak_rss_mb": round(after.ru_maxrss / 1024), "stderr_tail": done.stderr.strip().splitlines()[-1:]}


def bench_aggregate_fields(fields: int = 10_000, method: str | None = None) -> dict[str, Any]:
    """``hitflow aggregate`` on ``fields`` fields of one item and two workers' labels (a or b), by its default
    method or ``--method method``."""
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        labels = Path(tmp) / "labels.csv"
        labels.write_text("item_id,worker_id,label,field\n" + "".join(
            f"it{k % 50},{w},{rng.choice('ab')},f{k}\n" for k in range(fields) for w in ("w1", "w2")), "utf-8")
        forced = [] if method is None else ["--method", method]
        return {"fields": fields, "bytes": labels.stat().st_size, **_child_cpu(
            ["aggregate", str(labels), *forced, "--out", str(Path(tmp) / "out" / "answers.csv")], Path(tmp))}


def bench_aggregate_methods(fields: int = 10_000) -> dict[str, Any]:
    """:func:`bench_aggregate_fields` by each method the aggregation offers."""
    from postprocess.answers.aggregation import METHODS

    return {method: bench_aggregate_fields(fields, method) for method in METHODS}


def bench_dry_run(items: int = 300_000) -> dict[str, Any]:
    from bench.dry_run_speed import items_config

    with tempfile.TemporaryDirectory() as tmp:
        config = items_config(Path(tmp), items)
        return {"items": items, "bytes": (Path(tmp) / "items.csv").stat().st_size,
                **_child_cpu(["run", config.name, "--dry-run", "--out", str(Path(tmp) / "runs")], Path(tmp))}


OWN_PAGE = """<p>Rate the caption for the photo. Give a reason of at least eight words.</p>
<img src="${image_url}"><p>${caption}</p>
<label><input type="radio" name="rating" value="good" required> good</label>
<label><input type="radio" name="rating" value="bad"> bad</label>
<textarea name="reason" required></textarea>"""


def bench_own_page_dry_run(items: int = 300_000) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "page.html").write_text(OWN_PAGE, "utf-8")
        (folder / "items.csv").write_text("item_id,image_url,caption\n" + "".join(
            f"it{k:07d},https://example.org/img/{k}.jpg,a photo of thing number {k}\n" for k in range(items)), "utf-8")
        made = _child_cpu(["new", "rate", "--from", "page.html", "--items", "items.csv"], folder)
        if not made["done"]:
            return {"items": items, "import": made}
        config = (folder / "config" / "rate.toml").read_text("utf-8")
        (folder / "config" / "rate.toml").write_text(  # the plan, not the money
            re.sub(r'(?m)^budget = "[^"]*"', 'budget = "100000000.00 USD"', config), "utf-8")
        return {"items": items, "bytes": (folder / "items.csv").stat().st_size,
                **_child_cpu(["run", "config/rate.toml", "--dry-run"], folder)}


def bench_study_dry_run(items: int = 300_000) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "items").mkdir()
        (folder / "crowds").mkdir()
        shutil.copy(ROOT / "config" / "crowds" / "judges.toml", folder / "crowds" / "judges.toml")
        (folder / "items" / "big.csv").write_text("item_id,image_url,sentence,sim_truth\n" + "".join(
            f"er-{k:07d},https://study-images.example.org/img{k % 500:03d}.jpg,A sentence about thing {k}.,3\n"
            for k in range(items)), "utf-8")
        config = (ROOT / "config" / "expert_rating.toml").read_text("utf-8")
        config = re.sub(r'(?m)^items = "[^"]*"', 'items = "items/big.csv"', config)
        config = re.sub(r'(?m)^budget_usd = "[^"]*"', 'budget_usd = "100000000.00"', config)  # the plan, not the money
        (folder / "study.toml").write_text(config, "utf-8")
        return {"items": items, **_child_cpu(["run", "study.toml", "--dry-run"], folder)}


def main() -> dict[str, Any]:
    results = {"pattern_checks": bench_patterns(), "aggregate_10000_fields": bench_aggregate_fields(),
               "aggregate_10000_fields_by_method": bench_aggregate_methods(),
               "dry_run_300000_items": bench_dry_run(), "own_page_dry_run_300000_items": bench_own_page_dry_run(),
               "study_dry_run_300000_items": bench_study_dry_run()}
    print(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
