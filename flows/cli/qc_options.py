"""`hitflow qc`'s options: offline QC over a submissions CSV."""

from __future__ import annotations

import argparse
from typing import Any

from flows.cli import args as arg

# qc/timing_rules.METHODS, written out: the parser is built before pandas is loaded (a test keeps them equal)
TIME_OUTLIER_METHODS = ("seed_slow_apart", "seed", "robust", "robust_both")


def add_qc_parser(sub: Any) -> argparse.ArgumentParser:
    qc: argparse.ArgumentParser = sub.add_parser("qc", help="offline QC over a submissions CSV")
    qc.add_argument("submissions", help="submissions CSV (plain, MTurk batch results or CLT .results)")
    qc.add_argument("--out", required=True, type=arg.writable_file, help="the flag table (CSV) to write")
    qc.add_argument("--config", help="campaign config whose [qc] and [submit_rules] apply")
    qc.add_argument("--text-field", action="append", default=[], metavar="NAME",
                    help="the answer's free-text field to check (repeatable; default: caption columns, or a "
                         "crowd-form's fields whose answers read as prose)")
    qc.add_argument("--time-outlier-method", choices=TIME_OUTLIER_METHODS, default=None,
                    help="the time band, over the config's [qc] time_outlier_method: seed_slow_apart (default; "
                         "mu +/- k sigma, the fast side without the slow workers), seed (the paper's band exactly: "
                         "mu +/- k sigma of all assignments, both sides), robust, robust_both")
    return qc
