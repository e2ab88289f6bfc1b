"""The review queue's item states kept in the ledger, for ``hitflow status`` without pandas."""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections import Counter
from pathlib import Path
from stat import S_ISREG
from typing import Any

from flows.campaigns.queue_cache import fingerprint
from flows.campaigns.review_rows import review_settings
from flows.core.errors import HitflowError
from flows.core.inputs.text_files import read_text
from flows.core.ledger.store import Store

ROOT = Path(__file__).resolve().parents[2]
CODE = ("flows", "qc", "postprocess")  # the packages whose code builds the queue and loads the config


def settings_key(store: Store, campaign: str) -> str | None:
    """A digest of the campaign's config file and hitflow's code; None without a readable config."""
    meta = store.rows("SELECT config_path FROM campaigns WHERE name = ?", [campaign])
    if not meta or not meta[0]["config_path"]:
        return None
    try:
        text = read_text(Path(meta[0]["config_path"]), "the config file")
    except HitflowError:
        return None
    digest = hashlib.blake2b(text.encode(), digest_size=16)
    digest.update(_code_stamp().encode())
    digest.update(_named_files(Path(meta[0]["config_path"]).parent, text).encode())
    digest.update(os.environ.get("HITFLOW_ALLOW_OUTSIDE_PATHS", "").encode())  # load_config reads it
    return digest.hexdigest()


def _named_files(folder: Path, text: str) -> str:
    """Each file the config's text may name: whether it is there, its size and time."""
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return ""  # load_config refuses it too: the text alone decides
    seen = []
    for value in sorted(set(_strings(doc))):
        try:
            stat = (folder / value).stat()
        except (OSError, ValueError):  # not a path, or no such file
            continue
        if S_ISREG(stat.st_mode):  # not a folder (the output root changes as runs write in it)
            seen.append(f"{value}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\n".join(seen)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value and len(value) < 4096 else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _code_stamp() -> str:
    """Each source file's path, size and modification time: code changed under a kept state voids it."""
    seen: list[str] = []
    for package in CODE:
        for folder, dirs, files in os.walk(ROOT / package):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith(".py")):
                stat = os.stat(os.path.join(folder, name))
                seen.append(f"{folder}/{name}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\n".join(seen)


def kept_items(store: Store, campaign: str, key: str) -> list[dict[str, Any]] | None:
    """The items' ``batch, state`` rows kept for ``key`` on the ledger as it is now; None when none are."""
    kept = _kept_row(store, campaign)
    if kept is None or kept[0] != key or kept[1] != fingerprint(store, campaign):
        return None
    return [{"batch": batch, "state": state} for batch, state, n in json.loads(kept[2]) for _ in range(n)]


def keep_items(store: Store, campaign: str, key: str, seen: str, items: list[dict[str, Any]]) -> None:
    """Keep the items' states computed for ``key`` on the ledger as ``seen``; nothing if the same is kept."""
    counts = Counter((int(i["batch"]), str(i["state"])) for i in items)
    text = json.dumps([[b, s, n] for (b, s), n in sorted(counts.items())])
    if _kept_row(store, campaign) == (key, seen, text):
        return  # the ui's overview asks every 5 s: no write while nothing changed
    store.execute("INSERT INTO kept_states (campaign, settings, fingerprint, items) VALUES (?, ?, ?, ?) "
                  "ON CONFLICT (campaign) DO UPDATE SET settings = excluded.settings, "
                  "fingerprint = excluded.fingerprint, items = excluded.items", [campaign, key, seen, text])


def _kept_row(store: Store, campaign: str) -> tuple[str, str, str] | None:
    """The kept ``settings, fingerprint, items`` of ``campaign``, if any."""
    rows = store.rows("SELECT settings, fingerprint, items FROM kept_states WHERE campaign = ?", [campaign])
    return (rows[0]["settings"], rows[0]["fingerprint"], rows[0]["items"]) if rows else None


def keep_for_config(store: Store, campaign: str, settings: tuple[Any, str], seen: str,
                    items: list[dict[str, Any]]) -> None:
    """:func:`keep_items` for states computed with a caller's config, when its file loads the same now."""
    key = settings_key(store, campaign)  # before the file is loaded, as ledger_state reads it
    if key is None:
        return
    cfg, mode = review_settings(store, campaign)
    if cfg is not None and mode != "none" and repr((cfg.policy, mode)) == repr(settings):
        keep_items(store, campaign, key, seen, items)
