"""Seeded fuzz of ``hitflow aggregate``: generated label files of hostile shapes through the command's own entry
point, each in a child process under a CPU limit, counting tracebacks and bombs.

``python -m bench.aggregate_fuzz [CASES] [SEED]`` (default 1,000 cases, seed 0) prints one JSON object: cases run,
exit codes, tracebacks (exit 1, a child killed, or "Traceback" on stderr), bombs (over ``CPU_S`` seconds of CPU or
``RSS_MB`` of peak resident memory), the slowest and largest cases with their shape and options. Shapes: many
fields of one label or of a few labels, many label values within the classes cap, long-tailed workers, free text,
repeated labels, hostile cells (formulas, long text, odd Unicode), unreadable rows, number and checkbox fields,
control items, and ``--adaptive`` with its options; each under a method drawn from every one ``--method`` takes.

Each case is a fork of this process (the CLI imported once, so a case costs its own work, not Python's start);
the child's CPU is capped at ``KILL_S`` (RLIMIT_CPU) and its address space at ``AS_GB`` (RLIMIT_AS), so a bomb
ends as a killed child, counted, instead of taking the machine.
"""

from __future__ import annotations

import json
import os
import random
import resource
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

CPU_S = 30.0
RSS_MB = 1024.0
KILL_S = 60  # RLIMIT_CPU of a case: a bomb is stopped here (and counted, being over CPU_S)
AS_GB = 4  # RLIMIT_AS of a case
METHODS = ("auto", "mv", "ds", "glad", "mace", "one-coin", "skill")
HOSTILE = ["=1+1", "+A1", "@SUM(A1)", "-2", "\u202egnp.exe", "caf\u00e9", "cafe\u0301", " a ", "A", "a", "",
           "\u00a0", "x" * 5000, "\ufeffb", "<b>b</b>", "nan", "None", "1e309", "-inf", "0", "\t", "a|b|c", '"q"']


def _csv(rows: list[list[str]], header: list[str]) -> str:
    def cell(value: str) -> str:
        return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\r\n') else value
    return "\r\n".join(",".join(cell(str(v)) for v in row) for row in [header, *rows]) + "\r\n"


def _size(r: random.Random, small: int, large: int) -> int:
    """Mostly small, three cases in a hundred up to ``large``."""
    return r.randint(large // 4, large) if r.random() < 0.03 else r.randint(1, small)


def one_label_fields(r: random.Random) -> tuple[str, list[str]]:
    rows = [[f"i{k}", f"w{k % 13}", "a", f"f{k}"] for k in range(_size(r, 2_000, 60_000))]
    return _csv(rows, ["item_id", "worker_id", "label", "field"]), []


def small_fields(r: random.Random) -> tuple[str, list[str]]:
    fields, items, workers = _size(r, 100, 3_000), r.randint(1, 4), r.randint(1, 4)
    rows = [[f"i{i}", f"w{w}", r.choice("ab"), f"f{f}"] for f in range(fields) for i in range(items)
            for w in range(workers)]
    return _csv(rows, ["item_id", "worker_id", "label", "field"]), []


def many_classes(r: random.Random) -> tuple[str, list[str]]:
    workers = r.choice([3, 5, 20, 50, 200])
    values = r.randint(2, int((2_000_000 / workers) ** 0.5) + 5)  # up to a little past the classes cap
    items, per = _size(r, 400, 3_000), r.randint(1, min(workers, 6))
    rows = [[f"i{i}", f"w{w}", f"l{r.randrange(values)}"] for i in range(items) for w in r.sample(range(workers), per)]
    return _csv(rows, ["item_id", "worker_id", "label"]), ["--force-free-text"] if r.random() < 0.6 else []


def long_tail(r: random.Random) -> tuple[str, list[str]]:
    workers, items = r.choice([50, 500, 5_000]), _size(r, 600, 6_000)
    rows = [[f"i{i}", f"w{w}", r.choice("abcd")] for i in range(items)
            for w in {int(workers * r.random() ** 4) for _ in range(r.randint(1, 7))}]
    return _csv(rows, ["item_id", "worker_id", "label"]), []


def free_text(r: random.Random) -> tuple[str, list[str]]:
    rows = [[f"i{i}", f"w{w}", f"comment {r.randrange(10 ** 6)} on {i}"] for i in range(_size(r, 300, 5_000))
            for w in range(r.randint(1, 3))]
    return _csv(rows, ["item_id", "worker_id", "label"]), ["--force-free-text"] if r.random() < 0.5 else []


def hostile_cells(r: random.Random) -> tuple[str, list[str]]:
    pool = HOSTILE + [f"w{k}" for k in range(5)]
    rows = [[r.choice([*pool, "i1", "i2"]), r.choice(pool), r.choice(pool), r.choice(["label", "f", "=f", ""])]
            for _ in range(r.randint(1, 60))]
    extra = ["--repeats", r.choice(["last", "first", "majority", "refuse"])]
    extra += ["--no-fold-case"] if r.random() < .3 else []
    return _csv(rows, ["item_id", "worker_id", "label", "field"]), extra


def unread_rows(r: random.Random) -> tuple[str, list[str]]:
    good = [f"i{k},w{k % 5},{r.choice('ab')}" for k in range(r.randint(1, 50))]
    bad = ["x,y,z,extra,more", "only", '"unclosed,a,b'] * _size(r, 200, 30_000)
    lines = good + bad
    r.shuffle(lines)
    return "item_id,worker_id,label\r\n" + "\r\n".join(lines) + "\r\n", []


def numbers(r: random.Random) -> tuple[str, list[str]]:
    values = ["1", "5", "3.5", "-1e308", "1e308", "inf", "nan", "", "x", "0x10", "1_000", "\u0663"]
    rows = [[f"i{i}", f"w{w}", r.choice(values), "score"] for i in range(_size(r, 300, 20_000))
            for w in range(r.randint(1, 5))]
    return _csv(rows, ["item_id", "worker_id", "label", "field"]), ["--numbers", "score"]


def ticks(r: random.Random) -> tuple[str, list[str]]:
    options = [f"o{k}" for k in range(r.choice([2, 10, 200, 2_000]))]
    rows = [[f"i{i}", f"w{w}", "|".join(r.sample(options, r.randint(0, min(5, len(options))))), "boxes"]
            for i in range(_size(r, 200, 5_000)) for w in range(r.randint(1, 4))]
    return _csv(rows, ["item_id", "worker_id", "label", "field"]), ["--ticks", "boxes"]


def adaptive(r: random.Random) -> tuple[str, list[str]]:
    text, _ = r.choice([small_fields, long_tail, many_classes])(r)
    options = ["--adaptive"]
    for option, values in (("--budget", ["0.1", "0.4", "1"]), ("--confidence", ["0.5", "0.9", "0.999"]),
                           ("--lead", ["1", "3"]), ("--min-judgements", ["1", "2", "5"]),
                           ("--max-judgements", ["1", "3"]), ("--sweep", ["0.6,0.8,0.95"]),
                           ("--typical-prior-weight", ["12"]), ("--crowd-prior-weight", ["5"])):
        if r.random() < 0.3:
            options += [option, r.choice(values)]
    return text, options


SHAPES: dict[str, Callable[[random.Random], tuple[str, list[str]]]] = {
    "one_label_fields": one_label_fields, "small_fields": small_fields, "many_classes": many_classes,
    "long_tail": long_tail, "free_text": free_text, "hostile_cells": hostile_cells, "unread_rows": unread_rows,
    "numbers": numbers, "ticks": ticks, "adaptive": adaptive}


def _child(argv: list[str], folder: Path) -> None:
    """In the forked child: limits, output to files, the CLI; never returns."""
    resource.setrlimit(resource.RLIMIT_CPU, (KILL_S, KILL_S + 5))
    resource.setrlimit(resource.RLIMIT_AS, (AS_GB << 30, AS_GB << 30))
    for fd, name in ((1, "stdout"), (2, "stderr")):
        os.dup2(os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
    code = 1
    try:
        from flows.cli.main import main
        code = main(argv) or 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # a traceback the CLI let through: printed, counted by the parent
        import traceback
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def run_case(argv: list[str], folder: Path) -> dict[str, Any]:
    pid = os.fork()
    if pid == 0:
        _child(argv, folder)
    _, status, usage = os.wait4(pid, 0)
    err = (folder / "stderr").read_text("utf-8", "replace")
    return {"rc": os.waitstatus_to_exitcode(status), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "rss_mb": round(usage.ru_maxrss / 1024), "traceback": "Traceback" in err, "line": err.strip()[-300:]}


def main(cases: int = 1_000, seed: int = 0) -> dict[str, Any]:
    import flows.cli.main  # noqa: F401 (imported once, before the forks)

    draw = random.Random(seed)
    codes: Counter[str] = Counter()
    tracebacks: list[dict[str, Any]] = []
    bombs: list[dict[str, Any]] = []
    worst: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in range(cases):
            shape = draw.choice(list(SHAPES))
            text, options = SHAPES[shape](draw)
            folder = Path(tmp) / f"c{case}"
            folder.mkdir()
            (folder / "labels.csv").write_text(text, "utf-8", newline="")
            method = ["--method", draw.choice(METHODS)] if draw.random() < 0.7 else []
            argv = ["aggregate", str(folder / "labels.csv"), "--out", str(folder / "answers.csv"), *options, *method]
            got = run_case(argv, folder)
            about = {"case": case, "shape": shape, "bytes": len(text.encode()), "options": [*options, *method], **got}
            codes[str(got["rc"])] += 1
            if got["traceback"] or got["rc"] not in (0, 2, 3):
                tracebacks.append(about)
            if got["cpu_s"] > CPU_S or got["rss_mb"] > RSS_MB:
                bombs.append(about)
            worst = sorted([*worst, about], key=lambda a: -a["cpu_s"])[:5]
            print(json.dumps(about), file=sys.stderr, flush=True)  # progress, a case a line
            for child in folder.iterdir():
                child.unlink()
            folder.rmdir()
    result = {"cases": cases, "seed": seed, "exit_codes": dict(sorted(codes.items())), "tracebacks": len(tracebacks),
              "bombs": len(bombs), "limits": {"cpu_s": CPU_S, "rss_mb": RSS_MB}, "traceback_cases": tracebacks[:10],
              "bomb_cases": bombs[:10], "slowest": worst}
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
