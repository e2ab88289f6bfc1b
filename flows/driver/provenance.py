"""``provenance.json`` beside the dataset, and ``hitflow verify FOLDER``."""

from __future__ import annotations

import json
import platform as python_platform
import subprocess
import time
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from flows.core.db_url import is_postgres_url
from flows.core.ledger.store import Store
from flows.core.outputs.output_mirror import file_sha256
from flows.core.run.run_context import Run

PROVENANCE = "provenance.json"
KEY_LIBRARIES = ("boto3", "jinja2", "prefect", "pandas", "pyspellchecker", "scipy", "sqlite-utils", "crowd-kit")
# Written beside the outputs but not by this export: the run's logs, the folder's owner, this file.
NOT_OUTPUTS = ("logs", "hitflow-manifest.json", PROVENANCE)
# What the ledger held for the campaign, per table: `hitflow verify` says whether the outputs still match it.
LEDGER_COUNTS = {"assignments": "campaign = ?", "decisions": "campaign = ?", "blocks": "campaign = ?",
                 "qc_flags": "campaign = ?", "items": "campaign = ?"}
SOURCE_ROOT = Path(__file__).resolve().parents[2]
HIT_TEMPLATES = SOURCE_ROOT / "hit_templates"  # a built-in task's page (its includes change with hitflow's revision)


def input_files(run: Run, crowd: Path | None) -> dict[str, Path]:
    """The campaign's inputs by role: every file whose change would change the outputs."""
    cfg = run.cfg
    kind = cfg.study.kind if cfg.study is not None else cfg.task
    named = {"config": cfg.path, "items": cfg.items, "template": cfg.template or HIT_TEMPLATES / f"{kind}.html.j2",
             "answer_key": cfg.answer_key,
             "controls": cfg.answers.controls, "crowd": crowd if run.target.kind == "sim" else None}
    return {role: Path(path) for role, path in named.items() if path is not None and Path(path).is_file()}


def run_provenance(run: Run, crowd: Path | None) -> dict[str, Any]:
    """Everything but the outputs' hashes (:func:`write_provenance` adds them): shown in the report's header."""
    inputs = {role: {"path": str(path), "sha256": file_sha256(path)} for role, path in input_files(run, crowd).items()}
    return {"campaign": run.cfg.name, "inputs": inputs, "seed": run.cfg.seed,
            "simulator_seed": run.notes.get("seed") if run.target.kind == "sim" else None,
            "hitflow": {"version": _version("hitflow"), "revision": source_revision()},
            "python": python_platform.python_version(),
            "libraries": {name: _version(name) for name in KEY_LIBRARIES},
            "platform": run.platform, "target": run.target.label, "ledger": _ledger(run.store),
            "time": {**_real_times(run.store, run.cfg.name), **platform_times(run.store, run.cfg.name)},
            "ledger_counts": ledger_counts(run.store, run.cfg.name)}


def write_provenance(out_dir: Path, provenance: dict[str, Any]) -> Path:
    """``provenance.json`` with the SHA-256 of every output file the export wrote (written last)."""
    record = {**provenance, "outputs": output_hashes(out_dir)}
    path = out_dir / PROVENANCE
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def output_hashes(out_dir: Path) -> dict[str, str]:
    files = (p for p in sorted(out_dir.rglob("*")) if p.is_file())
    return {p.relative_to(out_dir).as_posix(): file_sha256(p) for p in files
            if p.relative_to(out_dir).parts[0] not in NOT_OUTPUTS}


def ledger_counts(store: Store, campaign: str) -> dict[str, int]:
    return {table: int(store.table(table).count_where(where, [campaign])) for table, where in LEDGER_COUNTS.items()}


def platform_times(store: Store, campaign: str) -> dict[str, float | None]:
    """First acceptance and last submission on the platform's clock (the simulator's virtual one)."""
    rows = store.rows("SELECT MIN(accept_time) AS first, MAX(submit_time) AS last FROM assignments "
                      "WHERE campaign = ? AND accept_time > 0", [campaign])
    first, last = (rows[0]["first"], rows[0]["last"]) if rows else (None, None)
    return {"platform_first_accept": first, "platform_last_submit": last}


def _real_times(store: Store, campaign: str) -> dict[str, float | None]:
    rows = store.rows("SELECT created_at FROM campaigns WHERE name = ?", [campaign])
    return {"real_start": rows[0]["created_at"] if rows else None, "real_end": round(time.time(), 3)}


def _ledger(store: Store) -> str:
    """Where `hitflow verify` finds the ledger: a file's absolute path, a PostgreSQL URL without its password."""
    return store.shown() if is_postgres_url(store.location) else str(Path(store.location).resolve())


def source_revision() -> str:
    """The checkout's commit (``+dirty`` with uncommitted changes), or "" when not run from one."""
    if not (SOURCE_ROOT / ".git").exists():
        return ""
    try:  # one git for both (each export asks): the commit on its "# branch.oid" line, a change on any other
        lines = subprocess.run(["git", "status", "--porcelain=v2", "--branch", "--untracked-files=no"], cwd=SOURCE_ROOT,
                               capture_output=True, text=True, timeout=10, check=True).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return ""
    head = next((line.split()[2] for line in lines if line.startswith("# branch.oid ")), "(initial)")
    if head == "(initial)":  # no commit yet
        return ""
    return head + ("+dirty" if any(not line.startswith("#") for line in lines) else "")


@lru_cache(maxsize=16)  # a process runs the libraries it imported: ~8 ms for an export's nine lookups
def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return ""
