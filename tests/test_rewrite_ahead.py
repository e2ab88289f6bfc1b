"""tests/rewrite_ahead.py: the controller's cache of rewritten test modules is what a worker reads."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.rewrite_ahead import rewrite_ahead

MODULE = '''
def test_sum():
    total = 1 + 1
    assert total == 3
'''


@pytest.fixture
def writing_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as under `make test`, whatever this shell says


def _cached(folder: Path) -> list[Path]:
    return sorted((folder / "__pycache__").glob("*-pytest-*.pyc"))


@pytest.mark.usefixtures("writing_bytecode")
def test_the_cache_written_ahead_is_what_pytest_writes(tmp_path: Path, pytestconfig: pytest.Config) -> None:
    """Byte for byte the cache pytest's own import writes for the module (the independent computation), once."""
    (tmp_path / "test_ahead.py").write_text(MODULE)
    assert rewrite_ahead(pytestconfig, tmp_path) == 1, \
        "pytest's rewriter moved: tests/rewrite_ahead.py writes nothing and every worker rewrites alone"
    ahead = _cached(tmp_path)[0].read_bytes()
    assert rewrite_ahead(pytestconfig, tmp_path) == 0  # there already
    _cached(tmp_path)[0].unlink()
    run = pytest.main([str(tmp_path / "test_ahead.py"), "-q", "-p", "no:cacheprovider", "-p", "no:xdist"])
    assert run == pytest.ExitCode.TESTS_FAILED
    assert [p.read_bytes() for p in _cached(tmp_path)] == [ahead]


@pytest.mark.usefixtures("writing_bytecode")
def test_a_module_that_does_not_parse_is_left_to_the_import(tmp_path: Path, pytestconfig: pytest.Config) -> None:
    (tmp_path / "test_broken.py").write_text("def test_x(:\n    pass\n")
    shutil.copy(__file__, tmp_path / "test_fine.py")
    assert rewrite_ahead(pytestconfig, tmp_path) == 1
    assert [p.name.split(".")[0] for p in _cached(tmp_path)] == ["test_fine"]


def test_nothing_is_written_where_bytecode_is_not(tmp_path: Path, pytestconfig: pytest.Config,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    (tmp_path / "test_ahead.py").write_text(MODULE)
    assert rewrite_ahead(pytestconfig, tmp_path) == 0 and not (tmp_path / "__pycache__").exists()
