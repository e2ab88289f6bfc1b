"""``hitflow verify FOLDER``: the inputs, outputs and ledger counts against ``provenance.json``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flows.core.errors import ConfigError
from flows.core.ledger.store_base import existing_store
from flows.core.outputs.output_mirror import file_sha256
from flows.driver.provenance import PROVENANCE, ledger_counts, output_hashes


@dataclass(frozen=True)
class Finding:
    part: str  # "input" | "output" | "ledger"
    name: str
    status: str  # "same" | "changed" | "missing" | "added" | "unreadable"
    detail: str = ""


def read_provenance(out_dir: Path) -> dict[str, Any]:
    path = out_dir / PROVENANCE
    if not path.is_file():
        raise ConfigError(f"{out_dir} has no {PROVENANCE}: pass the folder a `hitflow run` wrote its outputs to "
                          "(runs/NAME); outputs written before hitflow recorded provenance cannot be verified")
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path} is not readable JSON ({type(exc).__name__}): write the outputs again with "
                          "`hitflow collect` or `hitflow run`") from exc
    if not isinstance(record, dict) or not isinstance(record.get("outputs"), dict):
        raise ConfigError(f"{path} has no outputs section: write the outputs again with `hitflow run`")
    return record


def check_inputs(record: dict[str, Any]) -> list[Finding]:
    found = []
    for role, entry in sorted(record.get("inputs", {}).items()):
        path = Path(entry.get("path", ""))
        if not path.is_file():
            found.append(Finding("input", role, "missing", str(path)))
            continue
        same = file_sha256(path) == entry.get("sha256")
        found.append(Finding("input", role, "same" if same else "changed", str(path)))
    return found


def check_outputs(out_dir: Path, record: dict[str, Any]) -> list[Finding]:
    recorded: dict[str, str] = record["outputs"]
    now = output_hashes(out_dir)
    found = [Finding("output", name, "missing") if name not in now else
             Finding("output", name, "same" if now[name] == digest else "changed")
             for name, digest in sorted(recorded.items())]
    return found + [Finding("output", name, "added") for name in sorted(set(now) - set(recorded))]


def check_ledger(record: dict[str, Any], db: str | Path | None) -> list[Finding]:
    location = db or record.get("ledger", "")
    try:
        store = existing_store(location)
    except ConfigError as exc:
        return [Finding("ledger", str(location), "unreadable", str(exc))]
    try:
        now = ledger_counts(store, record["campaign"])
    finally:
        store.close()
    return [Finding("ledger", table, "same" if now.get(table) == count else "changed",
                    f"{count} when written, {now.get(table)} now")
            for table, count in sorted(record.get("ledger_counts", {}).items())]


def verify_folder(out_dir: Path, db: str | Path | None = None) -> list[Finding]:
    record = read_provenance(out_dir)
    return check_inputs(record) + check_outputs(out_dir, record) + check_ledger(record, db)
