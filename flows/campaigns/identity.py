"""A campaign is one identity (name, platform, ledger, output folder), checked before any write."""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from flows.core.db_url import is_postgres_url, shown_location
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.core.outputs.output_location import staging_root

MANIFEST = "hitflow-manifest.json"
CANCELLED = "cancelled"


@dataclass(frozen=True)
class Intent:
    """What the user allowed on purpose: a new attempt, resuming a cancelled campaign, a foreign output folder."""

    new_attempt: bool = False
    resume_cancelled: bool = False
    replace_outputs: bool = False


def stored_campaign(db: str | Path, name: str) -> dict[str, object] | None:
    """The ledger's row for ``name`` with its recorded platform, or None (no ledger file is created)."""
    if not is_postgres_url(db) and not Path(db).is_file():
        return None
    store = Store(db)
    rows = store.rows("SELECT name, status, config_json FROM campaigns WHERE name = ?", [name])
    if not rows:
        return None
    return {"status": rows[0]["status"], "platform": recorded_platform(store, name, rows[0]["config_json"])}


def recorded_platform(store: Store, name: str, config_json: str | None) -> str:
    """The platform the campaign's row records; a row from before it did: Prolific if it has studies."""
    platform = json.loads(config_json or "{}").get("platform")
    return str(platform) if platform else \
        "prolific" if store.table("studies").count_where("campaign = ?", [name]) else "mturk"


def attempt_name(db: str | Path, name: str) -> str:
    """A new attempt's name: the newest unfinished ``NAME-attempt-N`` (so it resumes), else the next free one."""
    n = 2
    while (stored := stored_campaign(db, f"{name}-attempt-{n}")) is not None:
        if stored["status"] not in ("done", CANCELLED) and stored_campaign(db, f"{name}-attempt-{n + 1}") is None:
            return f"{name}-attempt-{n}"
        n += 1
    return f"{name}-attempt-{n}"


def run_name(db: str | Path, name: str, intent: Intent) -> str:
    """The campaign name this run is: ``name``, or a new attempt's (reads the ledger, never makes one)."""
    return attempt_name(db, name) if intent.new_attempt else name


def claim_campaign(db: str | Path, name: str, platform: str, out_root: str | Path, intent: Intent) -> None:
    """Refuse a run that would be another campaign, then claim its output folder."""
    check_identity(db, name, platform, out_root, intent)
    if intent.resume_cancelled and (stored_campaign(db, name) or {}).get("status") == CANCELLED:
        Store(db).table("campaigns").update(name, {"status": "running"})  # resumed on purpose
    claim_output_folder(staging_root(out_root) / name, db, name, platform, intent.replace_outputs)


def check_identity(db: str | Path, name: str, platform: str, out_root: str | Path, intent: Intent) -> None:
    """Refuse a run that would be another campaign under the same name (see the module docstring)."""
    stored = stored_campaign(db, name)
    if stored is None and intent.resume_cancelled:
        raise ConfigError(f"the ledger {shown_location(db)} has no campaign {name} to resume: pass the --db it ran "
                          "with, or drop --resume-cancelled to start it")
    if stored is not None and stored["platform"] != platform:
        raise ConfigError(f"campaign {name} already ran on {stored['platform']} in the ledger "
                          f"{shown_location(db)}; running it on {platform} would mix two campaigns: pass "
                          "--new-attempt to run it as "
                          f"{attempt_name(db, name)} (its own outputs), or --platform {stored['platform']} to "
                          "resume it")
    if stored is not None and stored["status"] == CANCELLED and not intent.resume_cancelled:
        raise ConfigError(f"campaign {name} was cancelled (`hitflow cancel`); nothing was posted. To post its "
                          "remaining batches on purpose pass --resume-cancelled, or --new-attempt to start afresh")
    check_output_folder(staging_root(out_root) / name, db, name, intent.replace_outputs)


def check_output_folder(out_dir: Path, db: str | Path, name: str, replace: bool) -> None:
    """An output folder another ledger made is refused (its dataset and report would be overwritten)."""
    made_by = read_manifest(out_dir)
    if made_by is None or replace:
        return
    if made_by.get("ledger") != ledger_id(db) or made_by.get("campaign") != name:
        raise ConfigError(f"{out_dir} holds the outputs of campaign {made_by.get('campaign')} from the ledger "
                          f"{made_by.get('ledger')}, not of {name} from {ledger_id(db)}: pass --out DIR for another "
                          "folder, or --replace-outputs to overwrite them")


def ledger_id(db: str | Path) -> str:
    """The ledger as a manifest names it: a file's absolute path, or a PostgreSQL URL as shown."""
    return shown_location(db) if is_postgres_url(db) else str(Path(db).resolve())


def read_manifest(out_dir: Path) -> dict[str, str] | None:
    try:
        data = json.loads((out_dir / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as exc:  # deep nesting is a RecursionError, not a ValueError
        raise ConfigError(f"{out_dir / MANIFEST} is unreadable ({type(exc).__name__}); remove it if the folder's "
                          "outputs are yours") from exc
    if not isinstance(data, dict):
        return None
    return {key: value for key, value in data.items() if isinstance(value, str)}  # data, never a structure


def claim_output_folder(out_dir: Path, db: str | Path, name: str, platform: str, replace: bool = False) -> None:
    """Write the manifest before the run starts: of two racing ledgers, the first manifest wins."""
    out_dir.mkdir(parents=True, exist_ok=True)
    mine = json.dumps({"campaign": name, "ledger": ledger_id(db), "platform": platform}, indent=1)
    path = out_dir / MANIFEST
    if replace:
        path.unlink(missing_ok=True)
    if _created_whole(path, mine):
        return
    check_output_folder(out_dir, db, name, False)
    made_by = read_manifest(out_dir) or {}
    if made_by.get("platform") != platform:  # same ledger and name: the platform a new attempt records
        os.replace(_written_beside(path, mine), path)


def _created_whole(path: Path, text: str) -> bool:
    """Create ``path`` holding ``text`` unless it exists (False then), never existing empty."""
    scratch = _written_beside(path, text)
    try:
        os.link(scratch, path)
        return True
    except FileExistsError:
        return False
    except OSError:  # a file system without hard links: the exclusive create, then the write
        return _created_then_written(path, text)
    finally:
        scratch.unlink(missing_ok=True)


def _created_then_written(path: Path, text: str) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    return True


def _written_beside(path: Path, text: str) -> Path:
    """``text`` in a scratch file of this call's own beside ``path`` (a racing run writes another)."""
    scratch = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    scratch.write_text(text, encoding="utf-8")
    return scratch
