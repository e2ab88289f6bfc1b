"""``hitflow verify FOLDER``: its option and wiring (the checks are in flows/driver/verify_outputs.py)."""

from __future__ import annotations

import argparse
import json


HELP = """Recomputes the SHA-256 of the inputs and outputs recorded in FOLDER/provenance.json and the
ledger's counts for the campaign. Exit 0: everything is as recorded; 1: something differs (listed);
2: no provenance to check."""


def add_verify_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    v = sub.add_parser("verify", help="check an output folder against its provenance and the ledger",
                       epilog=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    v.add_argument("folder", help="an output folder (runs/NAME) with provenance.json")
    v.add_argument("--db", default="", help="the ledger (default: the one provenance.json names)")
    v.add_argument("--json", action="store_true", help="machine-readable output")


def cmd_verify(a: argparse.Namespace) -> int:
    from dataclasses import asdict
    from pathlib import Path

    from flows.driver.verify_outputs import verify_folder

    findings = verify_folder(Path(a.folder), a.db or None)
    differ = [f for f in findings if f.status != "same"]
    if a.json:
        print(json.dumps({"ok": not differ, "findings": [asdict(f) for f in findings]}, indent=1))
        return 1 if differ else 0
    for part, noun in (("input", "input files"), ("output", "output files"), ("ledger", "ledger counts")):
        mine = [f for f in findings if f.part == part]
        same = sum(f.status == "same" for f in mine)
        print(f"{noun}: {same} of {len(mine)} as recorded")
        for f in mine:
            if f.status != "same":
                print(f"  {f.status}: {f.name}{' (' + f.detail + ')' if f.detail else ''}")
    print("verified: the folder matches its provenance and the ledger" if not differ else
          f"NOT verified: {len(differ)} difference(s) above")
    return 1 if differ else 0
