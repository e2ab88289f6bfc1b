"""The spelling index on disk, named by a hash of the dictionary and the format."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.resources
import os
import tempfile
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np
from spellchecker import SpellChecker

from postprocess.spell_index import FORMAT, SpellIndex


def cache_dir() -> Path:
    if os.environ.get("HITFLOW_CACHE_DIR"):
        return Path(os.environ["HITFLOW_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hitflow"


def dictionary_hash(frequencies: dict[str, int]) -> str:
    digest = hashlib.sha256(f"format {FORMAT}\n".encode())
    for word in sorted(frequencies):
        digest.update(f"{word}\t{frequencies[word]}\n".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


@lru_cache(maxsize=4)
def spelling_index(language: str = "en", folder: Path | None = None) -> SpellIndex:
    """pyspellchecker's list for ``language`` as an index, from the cache when it has it."""
    folder = folder or cache_dir()
    by_file = _by_dictionary_file(language, folder)
    if by_file is not None and (index := _load(by_file)) is not None:
        return index
    frequencies = dict(SpellChecker(language=language, distance=1).word_frequency.dictionary)
    index = cached_index(frequencies, folder, language)
    if by_file is not None:
        _save(by_file, index)
    return index


def _by_dictionary_file(language: str, folder: Path) -> Path | None:
    """Where the index of pyspellchecker's own ``language`` list is kept, named by that file's bytes."""
    try:
        data = (importlib.resources.files("spellchecker") / "resources" / f"{language}.json.gz").read_bytes()
        version = importlib.metadata.version("pyspellchecker")
    except (OSError, importlib.metadata.PackageNotFoundError):
        return None  # a list from elsewhere: named by its words, as any other
    digest = hashlib.sha256(f"format {FORMAT}\npyspellchecker {version}\n".encode())
    digest.update(data)
    return folder / "spelling" / f"{language}-file-{digest.hexdigest()[:16]}.npz"


def cached_index(frequencies: dict[str, int], folder: Path, name: str) -> SpellIndex:
    """The index of ``frequencies``: loaded from ``folder`` when built before, else built and saved."""
    path = folder / "spelling" / f"{name}-{dictionary_hash(frequencies)}.npz"
    index = _load(path)
    if index is None:
        index = SpellIndex.build(frequencies)
        _save(path, index)
    return index


def _load(path: Path) -> SpellIndex | None:
    try:
        with np.load(path) as arrays:
            return SpellIndex.from_arrays({k: arrays[k] for k in arrays.files})
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None  # not built yet, or damaged: build it again


def _save(path: Path, index: SpellIndex) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz", delete=False) as tmp:
            np.savez(tmp, **index.to_arrays())  # type: ignore[arg-type]  # numpy stubs take allow_pickle as a keyword too
        os.replace(tmp.name, path)  # whole or not at all, for runs started side by side
    except OSError:
        pass  # a read-only home: the next run builds it again
