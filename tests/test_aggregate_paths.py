"""`hitflow aggregate`'s inputs and outputs: a data file never chooses where hitflow connects (a manifest beside a
dataset.csv named the ledger, so a folder someone sent could name any PostgreSQL server, which got $PGPASSWORD),
no output overwrites an input, and a summary with nothing to measure prints null, never NaN."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from flows.cli.main import main

ROWS = "item_id,worker_id,label\na,w1,x\na,w2,x\nb,w1,y\nb,w2,x\n"


def test_a_manifest_naming_a_postgres_ledger_is_never_connected_to(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    sent = tmp_path / "sent"
    sent.mkdir()
    (sent / "dataset.csv").write_text(ROWS, encoding="utf-8")
    (sent / "hitflow-manifest.json").write_text(json.dumps(
        {"campaign": "stars", "ledger": f"postgresql://hf@127.0.0.1:{port}/hfdb", "platform": "mturk"}), "utf-8")
    monkeypatch.setenv("PGPASSWORD", "S3ntinel75pw")
    monkeypatch.chdir(tmp_path)  # no ledger at the default runs/hitflow.db here
    try:
        rc = main(["aggregate", str(sent / "dataset.csv"), "--out", str(tmp_path / "answers.csv")])
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody knocked
    finally:
        listener.close()
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and "S3ntinel75pw" not in err
    note, error = [line for line in err.splitlines() if line.strip()]
    assert note.startswith("hitflow: note: ") and f"127.0.0.1:{port}" in note and "not opened on a file's word" in note
    assert "pass --db" in error and not (tmp_path / "runs").exists()  # no ledger made on the way


def test_the_labels_file_is_never_the_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "l.csv"
    labels.write_text(ROWS, encoding="utf-8")
    assert main(["aggregate", str(labels), "--out", str(labels)]) == 2
    assert "would write" in capsys.readouterr().err and labels.read_text(encoding="utf-8") == ROWS
    workers = tmp_path / "workers.csv"  # the workers file goes beside --out
    workers.write_text(ROWS, encoding="utf-8")
    assert main(["aggregate", str(workers), "--out", str(tmp_path / "answers.csv")]) == 2
    assert workers.read_text(encoding="utf-8") == ROWS and not (tmp_path / "answers.csv").exists()
    controls = tmp_path / "c.csv"
    controls.write_text("item_id,answer\na,x\n", encoding="utf-8")
    assert main(["aggregate", str(labels), "--controls", str(controls), "--out", str(controls)]) == 2
    assert controls.read_text(encoding="utf-8") == "item_id,answer\na,x\n"


def test_every_item_a_control_prints_null_not_nan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels, controls = tmp_path / "labels.csv", tmp_path / "all_items.csv"
    labels.write_text(ROWS, encoding="utf-8")
    controls.write_text("item_id,answer\na,x\nb,y\n", encoding="utf-8")
    assert main(["aggregate", str(labels), "--controls", str(controls), "--out", str(tmp_path / "a.csv")]) == 0
    text = capsys.readouterr().out
    shown = json.loads(text)  # strict JSON: json.loads reads NaN too, so look at the text
    assert "NaN" not in text and shown["answers"] == 0 and shown["mean_confidence"] is None
