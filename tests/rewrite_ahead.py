"""The test modules' asserts rewritten once, by the xdist controller before its workers start.

pytest rewrites each test module's ``assert`` statements on import and caches the result beside it
(``__pycache__/*-pytest-*.pyc``, hash-based: valid in a fresh clone once written). From a fresh clone the
workers start together and each rewrote all ~230 test modules itself before the first found the
cache: ~4.5 s of CPU a worker (collection 9.5 -> 4.7 s of CPU with the cache, on this 2-core host). The
controller never imports a test module, so it writes the cache first, with pytest's own rewriter and
the session's config (what a worker would write, byte for byte).

pytest keeps the rewriter's functions private: when they move, nothing is written and the workers
rewrite as before (slower, never wrong); tests/test_rewrite_ahead.py says so when it happens.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest


def rewrite_ahead(config: pytest.Config, folder: Path) -> int:
    """Write the rewritten-assert cache of ``folder``'s test modules that have none; how many were written."""
    if sys.dont_write_bytecode or config.getoption("assertmode", "rewrite") != "rewrite":
        return 0  # the workers would neither read nor write the cache
    try:
        from _pytest.assertion import rewrite
        state = config.stash[rewrite.assertstate_key]
    except (ImportError, AttributeError, KeyError):
        return 0
    written = 0
    for module in sorted(folder.glob("test_*.py")):
        cache = rewrite.get_cache_dir(module)
        pyc = cache / (module.name[:-3] + rewrite.PYC_TAIL)
        if pyc.exists() or not rewrite.try_makedirs(cache):
            continue
        try:
            source_hash, code = rewrite._rewrite_test(module, config)
        except SyntaxError:
            continue  # the worker's import says what is wrong, as without this
        written += bool(rewrite._write_pyc(state, code, source_hash, pyc))
    return written
