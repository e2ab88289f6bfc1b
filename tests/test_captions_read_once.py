"""A small campaign's captions are read once for the dataset's two passes (flows/captions/outputs.py,
KEPT_CAPTIONS): the files are the same bytes as when each batch is read again in the second pass (the way before,
and still past the limit), with every batch kept, some, or none."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.captions import outputs
from flows.driver.campaign_run import run_campaign
from flows.driver.operations import ledger_run

CONFIG = Path(__file__).resolve().parents[1] / "config" / "vizwiz_captions.toml"
FILES = ("dataset.json", "dataset.csv", "dataset.raw.csv", "answers.csv", "workers.csv", "flags.csv")


def test_captions_kept_between_the_passes_write_the_same_files(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    run_campaign(CONFIG, db_path=tmp_path / "h.db", out_root=tmp_path / "runs", limit=30, progress=lambda _: None)
    run = ledger_run(str(tmp_path / "h.db"), "vizwiz_captions")
    batches = [r["batch"] for r in run.store.rows("SELECT DISTINCT batch FROM assignments WHERE batch > 0")]
    first = len(outputs.batch_captions(run, min(batches)))
    assert len(batches) > 1 and first > 0
    written = {}
    for limit in (0, first, outputs.KEPT_CAPTIONS):  # none kept (read twice), the first batch only, all
        monkeypatch.setattr(outputs, "KEPT_CAPTIONS", limit)
        kept: dict[int, object] = {}
        outputs.campaign_keep_words(run, batches, kept)  # type: ignore[arg-type]
        assert len(kept) == {0: 0, first: 1}.get(limit, len(batches))
        outputs.write_outputs(run, tmp_path / str(limit), platform_asked=True)
        written[limit] = [(tmp_path / str(limit) / name).read_bytes() for name in FILES]
    assert written[0] == written[first] == written[outputs.KEPT_CAPTIONS]
    own = [(tmp_path / "runs" / "vizwiz_captions" / name).read_bytes() for name in FILES]
    assert own == written[0]  # and what the run itself wrote
