"""`hitflow qc` imports what the enabled rules need and nothing else (QC over 200,000
captions in 3 s through the CLI, a third of which was start-up). The ledger's backends (psycopg,
sqlite_utils), scikit-learn and scipy.stats are never needed to check a file; scipy.sparse only for
instruction_echo's product (consensus and the template rules compare texts with numpy alone)."""

from __future__ import annotations

import ast
import csv
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WATCHED = ("psycopg", "sqlite_utils", "sklearn", "scipy.stats", "scipy.sparse", "crowdkit", "matplotlib")
PROBE = ("import sys\nfrom flows.cli.main import main\ncode = main(sys.argv[1:])\n"
         f"print('LOADED', sorted(m for m in {WATCHED!r} if m in sys.modules), code)")


def submissions(path: Path) -> Path:
    captions = ["A red mug on a wooden desk beside a closed laptop computer.",
                "A red coffee mug sits on a desk next to a laptop that is shut.",
                "A can of tomato soup held in one hand over a kitchen counter top.",
                "Quality issues are too severe to recognize visual content."]
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["assignment_id", "worker_id", "image_id", "caption", "work_time_s"])
        for k in range(12):
            writer.writerow([f"A{k // 3}", f"W{k % 4}", f"I{k // 4}", captions[k % 4], 60 + 7 * k])
    return path


def loaded(tmp_path: Path, config: str | None) -> list[str]:
    argv = ["qc", str(submissions(tmp_path / "subs.csv")), "--out", str(tmp_path / "flags.csv"),
            *(["--config", config] if config else [])]
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=180, check=True)
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("LOADED ") and last.endswith(" 0"), done.stdout + done.stderr
    assert (tmp_path / "flags.csv").read_text(encoding="utf-8").startswith("worker_id")  # it did check the file
    return list(ast.literal_eval(last.removeprefix("LOADED ").rsplit(" ", 1)[0]))


@pytest.mark.parametrize(("config", "needed"), [("config/vizwiz_full_scale.toml", []), (None, []),
                                                ("config/vizwiz_captions.toml", ["scipy.sparse"])])
def test_qc_imports_only_what_its_rules_need(tmp_path: Path, config: str | None, needed: list[str]) -> None:
    """The full-scale config enables no rule that compares texts; without a config consensus and the template
    rules run (no scipy); the captions config adds instruction_echo."""
    assert loaded(tmp_path, config) == needed


def _qc_watching_the_freeze(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    """`hitflow qc` through main(), with the collector's frozen count and state seen while it checks the file."""
    import gc

    import flows.campaigns.offline as offline
    from flows.cli.main import main

    real, frozen = offline.offline_qc, []

    def watched(*args: object) -> int:
        frozen.append((gc.get_freeze_count(), gc.isenabled()))
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(offline, "offline_qc", watched)
    out = tmp_path / "flags.csv"
    assert main(["qc", str(submissions(tmp_path / "subs.csv")), "--out", str(out),
                 "--config", "config/vizwiz_captions.toml"]) == 0
    assert out.read_text(encoding="utf-8").startswith("worker_id")
    return frozen


def test_qc_without_a_config_loads_no_config_or_spelling_modules(tmp_path: Path) -> None:
    """Without --config no config (its schema, pydantic, the page renderer) and no spell-correction is
    loaded: a quarter of a second of `hitflow qc`'s start-up on any file."""
    unneeded = ("flows.core.config.config", "pydantic", "flows.campaigns.page_text", "spellchecker")
    probe = ("import sys\nfrom flows.cli.main import main\ncode = main(sys.argv[1:])\n"
             f"print('LOADED', sorted(m for m in {unneeded!r} if m in sys.modules), code)")
    argv = ["qc", str(submissions(tmp_path / "subs.csv")), "--out", str(tmp_path / "flags.csv")]
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=180, check=True)
    assert done.stdout.strip().splitlines()[-1] == "LOADED [] 0", done.stdout + done.stderr
    assert (tmp_path / "flags.csv").read_text(encoding="utf-8").startswith("worker_id")


def test_qc_runs_with_what_was_loaded_frozen_and_thaws_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The objects loaded before the QC (tens of thousands) are frozen and the collector is off
    while `hitflow qc` checks the file; both are handed back afterwards (a program calling main() that
    leaves the collector to Python goes on collecting them)."""
    import gc

    from flows.core.run import heap_owner

    monkeypatch.setattr(heap_owner, "_DECLARED", [False])  # a caller that does not freeze its heap itself
    gc.unfreeze()  # (this test worker froze its own before the test: tests/conftest.py; frozen again after)
    try:
        frozen = _qc_watching_the_freeze(tmp_path, monkeypatch)
        assert len(frozen) == 1 and frozen[0][0] > 10_000 and not frozen[0][1]
        assert gc.get_freeze_count() == 0 and gc.isenabled()
    finally:
        gc.freeze()


def test_qc_leaves_a_callers_frozen_heap_frozen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A caller that froze its own heap (this test worker: tests/conftest.py, ~730,000 objects) keeps it
    frozen: the thaw after the QC once handed all of it back, and the worker's next full collection
    walked it again (0.2 s after each of test_qc_text_offline's qc calls)."""
    import gc

    before = gc.get_freeze_count()
    assert before > 10_000
    during = _qc_watching_the_freeze(tmp_path, monkeypatch)
    assert len(during) == 1 and during[0][0] > 0.9 * before  # nothing thawed before the QC either
    # kept frozen (reference counting still frees a frozen object whose last reference goes: a few dozen)
    assert gc.get_freeze_count() > 0.9 * before
