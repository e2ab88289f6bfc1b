"""Outputs and evidence built a batch at a time equal what building them from the whole campaign gave
(memory that depends on the batch, not the campaign)."""

from __future__ import annotations

import io
import json
import platform
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from flows.campaigns.block_evidence import campaign_history
from flows.captions.dataset_files import CaptionTally, DatasetFiles
from flows.core.inputs.csv_writing import write_dataset
from flows.core.ledger.store import Store
from postprocess.dataset import INFO, canned_per_image, canned_table, flat_table, vizwiz_parts
from postprocess.spellcheck import (
    add_word_workers,
    campaign_vocabulary,
    joined_spelling_stats,
    spelling_stats,
    words_of,
)
from qc.worker_history import worker_history

CANNED = "Quality issues are too severe to recognize visual content."


def captions() -> pd.DataFrame:
    """Three batches of captions: canned ones, a rejected one, a formula, non-ASCII text, edits."""
    rows = []
    for batch in (1, 2, 3):
        for image in range(3):
            for worker in ("W1", "W2", "W3"):
                text = CANNED if (worker == "W3" and image == batch % 3) else f"A red mug näer {worker} no. {image}."
                if worker == "W2" and image == 1:
                    text = "=HYPERLINK(\"x\") a caption typed as a formula"
                rows.append({"assignment_id": f"A{batch}{worker}", "worker_id": worker, "batch": batch,
                             "image_id": f"img{batch}{image}", "caption": text, "caption_corrected": text.upper(),
                             "edits": "mug->MUG" if image == 2 else "", "is_precanned": text == CANNED,
                             "text_present": "yes" if image else "no", "is_rejected": worker == "W1" and batch == 2,
                             "work_time_s": 10.0 * batch + image})
    return pd.DataFrame(rows)


def items() -> pd.DataFrame:
    return pd.DataFrame([{"image_id": f"img{b}{i}", "file_name": f"img{b}{i}.jpg"}
                         for b in (1, 2, 3) for i in range(3)])


def written(frame: pd.DataFrame, item_rows: pd.DataFrame, tmp: Path) -> dict[str, bytes]:
    """The dataset files written a batch at a time."""
    with DatasetFiles(tmp) as files:
        for _, part in frame.groupby("batch", sort=True) if len(frame) else [(0, frame)]:
            files.add(part, item_rows[item_rows["image_id"].isin(part["image_id"])] if len(frame) else item_rows)
    return {name: (tmp / name).read_bytes() for name in ("dataset.json", "dataset.csv", "dataset.raw.csv")}


def whole(frame: pd.DataFrame, item_rows: pd.DataFrame, tmp: Path) -> dict[str, bytes]:
    """The dataset files as the whole campaign at once wrote them."""
    images, annotations = vizwiz_parts(frame, item_rows)
    whole_json = {"info": INFO, "images": images, "annotations": annotations}
    (tmp / "dataset.json").write_text(json.dumps(whole_json, indent=1), encoding="utf-8")
    write_dataset(flat_table(frame, item_rows), tmp)
    return {name: (tmp / name).read_bytes() for name in ("dataset.json", "dataset.csv", "dataset.raw.csv")}


def test_dataset_written_batch_by_batch_is_byte_for_byte_the_whole_campaigns(tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    (tmp_path / "all").mkdir()
    parts, at_once = written(captions(), items(), tmp_path / "parts"), whole(captions(), items(), tmp_path / "all")
    assert parts == at_once
    data = json.loads(parts["dataset.json"])
    assert len(data["images"]) == 9 and [a["id"] for a in data["annotations"]] == list(range(1, 28))
    assert b"'=HYPERLINK" in parts["dataset.csv"] and b"'=HYPERLINK" not in parts["dataset.raw.csv"]


def test_an_empty_campaigns_dataset_files_are_the_same_too(tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    (tmp_path / "all").mkdir()
    empty = captions().iloc[0:0]
    parts = written(empty, items().iloc[0:0], tmp_path / "parts")
    assert parts == whole(empty, items().iloc[0:0], tmp_path / "all")
    assert json.loads(parts["dataset.json"])["annotations"] == []


def test_report_tallies_gathered_per_batch_equal_the_whole_frames() -> None:
    frame = captions()
    tally = CaptionTally({"W3"}, per_image=3)
    for _, part in frame.groupby("batch"):
        tally.add(part.reset_index(drop=True))
    kept = frame[~frame["is_rejected"]]
    pd.testing.assert_frame_equal(tally.canned(), canned_table(canned_per_image(kept), 3))
    assert joined_spelling_stats(tally.spelling) == spelling_stats(kept[~kept["is_precanned"]])
    counts = tally.counts_frame()
    assert (len(counts), int((~counts["is_rejected"]).sum()), counts["worker_id"].nunique()) == (
        len(frame), len(kept), frame["worker_id"].nunique())
    assert tally.captions == 27 and tally.samples["W3"] == list(frame[frame["worker_id"] == "W3"]["caption"].head(3))
    pd.testing.assert_frame_equal(tally.times(), frame.drop_duplicates("assignment_id")[["batch", "work_time_s"]]
                                  .reset_index(drop=True))
    work = frame.groupby("worker_id")["assignment_id"].nunique().rename("assignments").reset_index()
    pd.testing.assert_frame_equal(tally.work(), work)


def test_campaign_words_gathered_per_batch_equal_the_whole_campaigns() -> None:
    frame = captions()
    seen: dict[str, set[str]] = {}
    for _, part in frame.groupby("batch"):
        add_word_workers(seen, part, 3)
    assert words_of(seen, 3) == campaign_vocabulary(frame, 3)[0] and "mug" in words_of(seen, 3)
    assert words_of(seen, 4) == campaign_vocabulary(frame, 4)[0] == set()


def ledger(tmp_path: Path) -> Store:
    """Two batches of answers and flags in a real ledger file."""
    store = Store(tmp_path / "l.db")
    for batch in (1, 2):
        for worker in ("W1", "W2"):
            aid = f"A{batch}{worker}"
            store.table("assignments").insert({"assignment_id": aid, "hit_id": f"H{batch}", "campaign": "c",
                                               "batch": batch, "worker_id": worker, "status": "Submitted"})
            store.table("answers").insert_all([{"campaign": "c", "assignment_id": aid, "item_id": f"i{batch}{n}",
                                                "field": "caption",
                                                "value": "a caption"} for n in range(5)])
        store.table("qc_flags").insert_all([
            {"campaign": "c", "batch": batch, "worker_id": "W1", "rule": "caps_lock", "value": "0.8",
             "threshold": "0.5", "assignment_id": "", "image_id": "", "detail": ""},
            {"campaign": "c", "batch": batch, "worker_id": "W2", "rule": "min_words", "value": "2", "threshold": "8",
             "assignment_id": f"A{batch}W2", "image_id": f"i{batch}0", "detail": ""}])
    return store


def test_a_workers_history_built_batch_by_batch_equals_the_whole_campaigns(tmp_path: Path) -> None:
    store = ledger(tmp_path)
    assignments = pd.DataFrame(store.rows(
        "SELECT a.assignment_id, a.worker_id, a.batch, COUNT(*) AS captions FROM assignments a JOIN answers x "
        "ON x.campaign = a.campaign AND x.assignment_id = a.assignment_id GROUP BY a.campaign, a.assignment_id"))
    flags = pd.DataFrame(store.rows("SELECT worker_id, rule, value, threshold, assignment_id, image_id, detail, batch "
                                    "FROM qc_flags"))
    history = campaign_history(store, "c", 2)
    pd.testing.assert_frame_equal(history, worker_history(assignments, flags), check_dtype=False)
    assert set(history["batch"]) == {1, 2} and len(campaign_history(store, "c", 1)) == len(history) // 2
    assert campaign_history(store, "other", 2).empty


def test_store_frame_reads_by_pages_what_rows_reads(tmp_path: Path) -> None:
    store = ledger(tmp_path)
    sql = "SELECT assignment_id, item_id, value FROM answers ORDER BY rowid"
    columns = ["assignment_id", "item_id", "value"]
    paged = store.frame(sql, [], columns, page=3)  # 20 rows: seven pages
    pd.testing.assert_frame_equal(paged, pd.DataFrame(store.rows(sql), columns=columns))
    empty = store.frame("SELECT assignment_id FROM answers WHERE item_id = ?", ["none"], ["assignment_id"])
    assert list(empty.columns) == ["assignment_id"] and empty.empty


def test_csv_appended_in_parts_reads_as_one_file() -> None:
    from flows.core.inputs.csv_writing import append_csv

    frame = pd.DataFrame({"a": ["=1+1", "x"], "b": [1, 2]})
    handle = io.StringIO(newline="")
    append_csv(frame.iloc[:1], handle, header=True)
    append_csv(frame.iloc[1:], handle, header=False)
    assert handle.getvalue() == "a,b\r\n'=1+1,1\r\nx,2\r\n"


# Four threads at once each allocate 300 blocks of 64 KB (from their own malloc heaps) and free all but the
# last, which keeps each heap's top in use, so glibc gives none of the freed ~75 MB back on its own.
FREED_IN_THREADS = """
import threading
from bench.rss_phases import rss_mb
from flows.core.run.free_memory import release_free_memory
kept = []
together = threading.Barrier(4)  # all alive at once: each allocates in a heap of its own
def work():
    together.wait()
    blocks = [b"x" * 65536 for _ in range(300)]  # written, so resident (not calloc's untouched pages)
    kept.append(blocks[-1])
    together.wait()
threads = [threading.Thread(target=work) for _ in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
before = rss_mb()
print(release_free_memory(), before, rss_mb())
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's; elsewhere only Arrow's pool")
def test_memory_freed_in_thread_heaps_goes_back_to_the_system() -> None:
    """What a batch step's threads freed stops counting in RSS once the driver releases it
    (flows/core/run/free_memory.py; a 39,181-image batch's collection left ~100 MB so)."""
    out = subprocess.run([sys.executable, "-c", FREED_IN_THREADS], capture_output=True, text=True, timeout=120,
                         check=True, cwd=Path(__file__).resolve().parents[1]).stdout.split()
    asked, before, after = out[0], float(out[1]), float(out[2])
    assert asked == "True" and before - after > 40, (before, after)
