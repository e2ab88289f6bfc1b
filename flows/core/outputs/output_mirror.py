"""The local run folder copied to its output URL through fsspec, only what changed."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flows.core.errors import ConfigError, HitflowError
from flows.core.outputs.output_location import credentials_as_text, is_output_url, protocols, shown_output, staging_root

PART = ".hitflow-part"  # a copy under way on a local filesystem; removed by the next mirror if left
PROBE = ".hitflow-write-check-"  # check_writable's file, never an output
RECORDS = ".hitflow-mirror"  # folder beside the campaigns' staging folders: what was copied where


class OutputMirrorError(HitflowError):
    """The outputs are complete locally but could not be copied to the URL; the same command copies them."""


def protocol_problem(url: str) -> str:
    """"" when fsspec can open ``url``'s protocol here, else what is wrong and what to do, in words."""
    import fsspec

    for name in protocols(url):  # each of a chain's (simplecache::s3://...)
        try:
            fsspec.get_filesystem_class(name)
        except ImportError as exc:
            extra = "pip install 'hitflow[s3]'" if name in ("s3", "s3a") else f"install it ({exc})"
            return f"{shown_output(url)}: {name}:// needs a package that is not installed: {extra}"
        except ValueError:
            return (f"{shown_output(url)}: fsspec knows no protocol {name!r}; give a folder or a URL such as "
                    "s3://bucket/runs or file:///mnt/shared/runs")
    return ""


def filesystem(url: str) -> tuple[Any, str]:
    """fsspec's filesystem for ``url`` and the path on it; an unknown protocol or missing package is one line."""
    import fsspec.core

    if problem := protocol_problem(url):
        raise ConfigError(f"--out {problem}")
    for name in protocols(url):
        credentials_as_text(name)
    try:
        return fsspec.core.url_to_fs(url)  # type: ignore[no-any-return]
    except Exception as exc:  # options the filesystem refuses (a bad port, an unknown setting)
        raise ConfigError(f"--out {shown_output(url)}: {type(exc).__name__}: {str(exc)[:160]}") from exc


def campaign_at_url(url: str, campaign: str) -> tuple[Any, str]:
    """fsspec's filesystem for ``url`` and the campaign's folder on it."""
    fs, root = filesystem(url)
    return fs, f"{root.rstrip('/')}/{campaign}"


def _unreachable(url: str, exc: BaseException) -> ConfigError:
    return ConfigError(f"--out {shown_output(url)} cannot be written ({type(exc).__name__}: "
                       f"{str(exc)[:160] or 'no detail'}); check that the bucket or folder exists and the "
                       "credentials (FSSPEC_S3_KEY/FSSPEC_S3_SECRET or the protocol's own), or give --out DIR")


def check_writable(out: str, campaign: str) -> None:
    """Write and remove a small file in the campaign's folder at the URL; any refusal is one line."""
    if not is_output_url(out):
        return
    fs, folder = campaign_at_url(out, campaign)
    probe = f"{folder}/{PROBE}{uuid.uuid4().hex[:8]}"
    try:
        if _is_local(fs):
            fs.makedirs(fs._parent(probe), exist_ok=True)
        fs.pipe_file(probe, b"hitflow\n")
    except Exception as exc:  # any filesystem's error: botocore's, paramiko's, OSError
        raise _unreachable(out, exc) from exc
    with contextlib.suppress(Exception):  # a bucket that lets us write but not delete keeps a 8-byte file
        fs.rm_file(probe)


def _record_path(out: str, campaign: str) -> Path:
    return staging_root(out) / RECORDS / f"{campaign}.json"


def _read_record(out: str, campaign: str) -> dict[str, list[Any]]:
    try:
        record = json.loads(_record_path(out, campaign).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record.get("files", {}) if isinstance(record, dict) and record.get("url") == out else {}


def _write_record(out: str, campaign: str, files: dict[str, list[Any]]) -> None:
    path = _record_path(out, campaign)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"url": out, "files": files}, indent=0, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def file_sha256(path: Path) -> str:
    """A file's SHA-256, read in blocks (outputs and inputs can be large)."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _local_files(folder: Path) -> dict[str, Path]:
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.endswith(PART) and not p.name.startswith(PROBE)}


def _remote_files(fs: Any, folder: str) -> dict[str, int]:
    """Relative path -> size of every file under ``folder`` at the URL (none when it does not exist)."""
    try:
        found = fs.find(folder, detail=True)
    except FileNotFoundError:
        return {}
    prefix = fs._strip_protocol(folder).rstrip("/") + "/"
    return {path[len(prefix):]: int(info.get("size") or 0) for path, info in found.items()
            if path.startswith(prefix) and info.get("type", "file") == "file"}


def _entry(path: Path, was: list[Any] | None, remote_size: int | None) -> tuple[list[Any], bool]:
    """The record's entry for ``path`` now, and whether the URL already holds this content."""
    stat = path.stat()
    if was is not None and remote_size == stat.st_size and was[:2] == [stat.st_size, stat.st_mtime_ns]:
        return was, True
    digest = file_sha256(path)
    same = was is not None and remote_size == stat.st_size and was[2] == digest
    return [stat.st_size, stat.st_mtime_ns, digest], same


def _is_local(fs: Any) -> bool:
    return "file" in ((fs.protocol,) if isinstance(fs.protocol, str) else tuple(fs.protocol))


def _copy(fs: Any, local: Path, remote: str) -> None:
    if _is_local(fs):  # folders exist there (S3 has none, and making one could create a bucket)
        fs.makedirs(fs._parent(remote), exist_ok=True)
        part = f"{remote}.{uuid.uuid4().hex[:8]}{PART}"  # whole or not at all for a reader of that folder
        fs.put_file(str(local), part)
        fs.mv(part, remote)
    else:
        fs.put_file(str(local), remote)


def mirror(out: str, campaign: str) -> dict[str, int]:
    """Copy ``campaign``'s staging folder to ``out``: changed files only; how many copied, removed, left."""
    if not is_output_url(out):
        return {"copied": 0, "removed": 0, "kept": 0}
    fs, folder = campaign_at_url(out, campaign)
    local, record = _local_files(staging_root(out) / campaign), _read_record(out, campaign)
    counts = {"copied": 0, "removed": 0, "kept": 0}
    try:
        fs.invalidate_cache()  # what the URL holds now, not a listing this process saw earlier
        remote = _remote_files(fs, folder)
        for rel, path in local.items():
            entry, same = _entry(path, record.get(rel), remote.get(rel))
            if not same:
                _copy(fs, path, f"{folder}/{rel}")
            record[rel] = entry
            counts["kept" if same else "copied"] += 1
        for rel in sorted(set(record) - set(local)):  # copied once, gone here since
            if rel in remote:
                fs.rm_file(f"{folder}/{rel}")
                counts["removed"] += 1
            del record[rel]
        for rel in remote:
            if rel.endswith(PART):  # a copy a killed run left half-way
                fs.rm_file(f"{folder}/{rel}")
    except ConfigError:
        raise
    except Exception as exc:
        raise OutputMirrorError(f"the outputs are complete in {staging_root(out) / campaign} but could not be "
                                f"copied to {shown_output(out)}/{campaign}/ ({type(exc).__name__}: "
                                f"{str(exc)[:160]}); run the same command again to copy them") from exc
    finally:
        _write_record(out, campaign, record)
    return counts


def pull_missing(out: str, campaign: str) -> int:
    """Bring into the staging folder the files the URL holds for ``campaign`` and it lacks; how many."""
    if not is_output_url(out):
        return 0
    fs, folder = campaign_at_url(out, campaign)
    target = staging_root(out) / campaign
    try:
        remote = _remote_files(fs, folder)
    except Exception as exc:
        raise _unreachable(out, exc) from exc
    local, record = _local_files(target), _read_record(out, campaign)
    missing = [rel for rel in remote if rel not in local and not rel.endswith(PART) and PROBE not in rel]
    for rel in missing:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        fs.get_file(f"{folder}/{rel}", str(target / rel))
        stat = (target / rel).stat()
        record[rel] = [stat.st_size, stat.st_mtime_ns, file_sha256(target / rel)]
    if missing:
        _write_record(out, campaign, record)
    return len(missing)


def mirror_between_batches(out: str, campaign: str, progress: Callable[[str], None]) -> None:
    """A batch's end: copy what changed; a failure is a line and the run goes on."""
    try:
        mirror(out, campaign)
    except HitflowError as exc:
        progress(f"outputs: not copied this time: {exc}")


def mirrored_before(out: str, campaign: str) -> bool:
    """This folder was copied to (or filled from) ``out`` at least once."""
    return _record_path(out, campaign).is_file()


def read_output(out: str | Path, campaign: str, name: str) -> bytes | None:
    """One file of a campaign's outputs, from the folder or from the URL (``hitflow ui``); None when absent."""
    if not is_output_url(out):
        path = Path(out) / campaign / name
        return path.read_bytes() if path.is_file() else None
    fs, folder = campaign_at_url(str(out), campaign)
    try:
        return fs.cat_file(f"{folder}/{name}")  # type: ignore[no-any-return]
    except FileNotFoundError:
        return None


def has_output(out: str | Path, campaign: str, name: str) -> bool:
    if not is_output_url(out):
        return (Path(out) / campaign / name).is_file()
    fs, folder = campaign_at_url(str(out), campaign)
    return bool(fs.isfile(f"{folder}/{name}"))
