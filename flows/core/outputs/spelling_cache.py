"""The spelling index on disk: built once per dictionary, loaded in well under a second after.

Kept under ``$HITFLOW_CACHE_DIR`` (else ``$XDG_CACHE_HOME/hitflow``, else ``~/.cache/hitflow``),
in ``spelling/<language>-<hash>.npz`` where the hash covers the dictionary's words and counts and
the index format: a new pyspellchecker word list or index layout gets a new file, never a stale
one. A cache that cannot be written or read is not an error: the index is then built in memory.
"""

from __future__ import annotations

import hashlib
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
    frequencies = dict(SpellChecker(language=language, distance=1).word_frequency.dictionary)
    return cached_index(frequencies, folder or cache_dir(), language)


def cached_index(frequencies: dict[str, int], folder: Path, name: str) -> SpellIndex:
    """The index of ``frequencies``: loaded from ``folder`` when built before, else built and saved."""
    path = folder / "spelling" / f"{name}-{dictionary_hash(frequencies)}.npz"
    try:
        with np.load(path) as arrays:
            return SpellIndex.from_arrays({k: arrays[k] for k in arrays.files})
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        pass  # not built yet, or damaged: build it again
    index = SpellIndex.build(frequencies)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz", delete=False) as tmp:
            np.savez(tmp, **index.to_arrays())  # type: ignore[arg-type]  # numpy stubs take allow_pickle as a keyword too
        os.replace(tmp.name, path)  # whole or not at all, for runs started side by side
    except OSError:
        pass  # a read-only home: the next run builds it again
    return index
