"""`hitflow aggregate`'s inputs and outputs: a data file never chooses where hitflow connects (a manifest beside a
dataset.csv named the ledger, so a folder someone sent could name any PostgreSQL server, which got $PGPASSWORD),
no output overwrites an input, and a summary with nothing to measure prints null, never NaN."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

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


def test_the_workers_file_beside_any_out_name_never_replaces_an_input(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "l-workers.csv"  # what `--out l.csv` writes its workers file as
    labels.write_text(ROWS, encoding="utf-8")
    assert main(["aggregate", str(labels), "--out", str(tmp_path / "l.csv")]) == 2
    controls = tmp_path / "k-workers.csv"
    controls.write_text("item_id,answer\na,x\n", encoding="utf-8")
    other = tmp_path / "other.csv"
    other.write_text(ROWS, encoding="utf-8")
    assert main(["aggregate", str(other), "--controls", str(controls), "--out", str(tmp_path / "k.csv")]) == 2
    assert "k-workers.csv goes beside it" in capsys.readouterr().err
    assert labels.read_text(encoding="utf-8") == ROWS
    assert controls.read_text(encoding="utf-8") == "item_id,answer\na,x\n"
    assert not (tmp_path / "l.csv").exists() and not (tmp_path / "k.csv").exists()


def _sent_folder(tmp_path: Path, manifest: str) -> Path:
    sent = tmp_path / "sent"
    sent.mkdir()
    (sent / "dataset.csv").write_text(ROWS, encoding="utf-8")
    (sent / "hitflow-manifest.json").write_text(manifest, encoding="utf-8")
    return sent / "dataset.csv"


@pytest.mark.parametrize("manifest", ["[" * 100_000 + "]" * 100_000, json.dumps({"campaign": {"a": [1]}, "ledger": 7}),
                                      json.dumps({"campaign": "c", "ledger": "/etc/passwd"}), "VIEW"])
def test_a_hostile_manifest_ends_in_one_line_and_opens_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str],
                                                              manifest: str) -> None:
    """Deep nesting, values that are not text, a system file or another program's SQLite file (with a view where
    hitflow keeps a table) as the ledger: one line, and the file it names is never opened for writing."""
    import sqlite3

    other_db = tmp_path / "other.db"
    with sqlite3.connect(other_db) as conn:
        conn.execute("CREATE VIEW campaigns AS SELECT 1 AS name")
    if manifest == "VIEW":
        manifest = json.dumps({"campaign": "c", "ledger": str(other_db)})
    before = other_db.read_bytes()
    dataset = _sent_folder(tmp_path, manifest)
    monkeypatch.chdir(tmp_path)
    rc = main(["aggregate", str(dataset), "--out", str(tmp_path / "answers.csv")])
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("hitflow: error:") == (rc != 0) and rc in (0, 2, 3)
    assert rc == 2 or manifest.startswith('{"campaign": {')  # a manifest that is no campaign's: the file read as labels
    assert other_db.read_bytes() == before and not list(tmp_path.glob("other.db-*"))


def test_a_campaign_name_on_another_programs_sqlite_file_is_refused_unmigrated(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    other_db = tmp_path / "notes.db"
    with sqlite3.connect(other_db) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    assert main(["aggregate", "c", "--db", str(other_db), "--out", str(tmp_path / "a.csv")]) == 2
    assert "not a hitflow ledger" in capsys.readouterr().err
    with sqlite3.connect(other_db) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["notes"]


@pytest.mark.parametrize("writer", ["pandas", "arrow"])
def test_an_interrupted_write_leaves_no_partial_file_under_the_final_name(tmp_path: Path, writer: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd

    from flows.core.inputs import csv_writing

    out = tmp_path / "answers.csv"
    out.write_text("old,whole\n1,2\n", encoding="utf-8")

    def half_then_fail(self: pd.DataFrame, path: Path, **_: object) -> None:
        Path(path).write_text("item_id,la", encoding="utf-8")
        raise KeyboardInterrupt

    def half_rows_then_fail(columns: object, header: object, for_spreadsheet: bool, fh: Any) -> bool:
        fh.write(b"item_id,la")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_fail)
    monkeypatch.setattr(csv_writing, "_arrow_rows", half_rows_then_fail)
    # a number column goes to pandas' writer, text columns to Arrow's
    frame = pd.DataFrame({"item_id": ["a"], "label": [0.5 if writer == "pandas" else "x"]})
    with pytest.raises(KeyboardInterrupt):
        csv_writing.write_csv(frame, out)
    assert out.read_text(encoding="utf-8") == "old,whole\n1,2\n" and [p.name for p in tmp_path.iterdir()] == [out.name]


def test_a_campaign_name_away_from_its_ledger_says_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # no runs/hitflow.db here
    rc = main(["aggregate", "survey", "--field", "rating", "--out", str(tmp_path / "answers.csv")])
    err = capsys.readouterr().err
    assert rc == 2 and "no campaign in the ledger at runs/hitflow.db" in err and "--db" in err, err
    assert "check the path" not in err and "Traceback" not in err
    (tmp_path / "labels").write_text(ROWS, encoding="utf-8")  # a file without a suffix is still read as labels
    assert main(["aggregate", "labels", "--out", str(tmp_path / "answers.csv")]) == 0
