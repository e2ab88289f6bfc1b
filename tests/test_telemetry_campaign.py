"""Text telemetry through a whole campaign on the simulator: the pages' records reach QC,
assistant pasters are blocked on the same rates as every rule, and people see it: the dataset's
``text_origin``, the report's "How the text arrived", and each caption's telemetry in words on the
review page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd

from flows.campaigns.batch_review import caption_frame
from flows.campaigns.campaign_plan import Run
from flows.captions.caption_telemetry import attach_telemetry, telemetry_words
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.platforms.mturk import adapter as mturk
from qc.runner import TELEMETRY_RULES
from qc.telemetry_frame import telemetry_columns, text_origin
from tests.ledger_reads import worker_captions
from tests.small_configs import ROOT, small_vizwiz

CROWD = """seed = 3
caption_bank = "captions.csv"
[[profile]]
name = "diligent"
count = 8
[[profile]]
name = "assistant_paster"
count = 2
[[profile]]
name = "note_paster"
count = 2
[[profile]]
name = "fast_typist"
count = 1
"""


def test_a_campaign_reads_blocks_and_shows_how_text_arrived(tmp_path: Path) -> None:
    config = small_vizwiz(tmp_path)  # the demo config: the telemetry rules on, with their block rates
    shutil.copy(ROOT / "config" / "items" / "vizwiz_demo_captions.csv", tmp_path / "captions.csv")
    (tmp_path / "crowd.toml").write_text(CROWD)
    summary = run_campaign(config, db_path=tmp_path / "h.db", out_root=tmp_path, limit=25,
                           crowd=tmp_path / "crowd.toml", progress=lambda _m: None)
    out = tmp_path / "vizwiz_captions"
    truth = {w["worker_id"]: w["profile"] for w in json.loads((out / "sim_workers.json").read_text())}
    flat = pd.read_csv(out / "dataset.csv", keep_default_na=False)
    flat["profile"] = flat["worker_id"].map(truth)
    origins = flat.groupby("profile")["text_origin"].agg(set).to_dict()
    assert origins["assistant_paster"] <= {"external paste", "unknown"}  # unknown: the canned button
    assert "external paste" in origins["assistant_paster"]
    assert origins["diligent"] <= {"typed", "unknown"} and "typed" in origins["diligent"]  # unknown: the canned button
    assert "typed" in origins["note_paster"]
    annotation = json.loads((out / "dataset.json").read_text())["annotations"][0]
    assert annotation["text_origin"] in ("typed", "in-page paste", "external paste", "mixed", "unknown")

    blocked = pd.read_csv(out / "blocked_workers.csv", keep_default_na=False)
    by_worker = dict(zip(blocked["worker_id"], blocked["rules"], strict=True))
    pasters = [w for w, p in truth.items() if p == "assistant_paster" and w in set(flat["worker_id"])]
    assert pasters and all(any(rule in by_worker.get(w, "") for rule in TELEMETRY_RULES) for w in pasters), by_worker
    honest = [w for w, p in truth.items() if p in ("diligent", "note_paster", "fast_typist")]
    assert not any(rule in by_worker.get(w, "") for w in honest for rule in TELEMETRY_RULES)

    report = (out / "report.html").read_text()
    assert "How the text arrived" in report and "Workers flagged for how their text arrived" in report
    assert f"<td>{pasters[0]}</td>" in report.split("How the text arrived")[1]

    cfg = load_config(config)
    run = Run(cfg, Store(tmp_path / "h.db"), None, mturk.Target("sim", ""))
    batch = int(flat.loc[flat["worker_id"] == pasters[0], "batch"].min())
    words = telemetry_words(run, worker_captions(run.store, cfg.name, batch, pasters[0]))
    assert words and all(w.startswith("typed ") for w in words)  # "typed 0 characters, pasted 131 from outside..."
    assert any(" from outside the page" in w and "left the page" in w for w in words), words
    assert summary["captions"] == 125
    # A batch's captions read only that batch's records and pages (the multi-host work.5), and get what the
    # whole campaign's read gave them
    whole = caption_frame(run)
    assert whole["telemetry"].str.len().gt(0).mean() > 0.8 and whole["batch"].nunique() == 5
    columns = ["assignment_id", "image_id", "telemetry", "telemetry_field"]
    for b in range(1, 6):
        pd.testing.assert_frame_equal(caption_frame(run, b)[columns],
                                      whole.loc[whole["batch"] == b, columns].reset_index(drop=True))


def test_a_caption_finds_its_field_on_mturk_hits_and_task_server_sessions(tmp_path: Path) -> None:
    """A caption's field is caption_<its image's place on the page>: from the HIT's items on MTurk,
    from the task-server session's on Prolific and links (whose assignment id is the session id)."""
    cfg = load_config(small_vizwiz(tmp_path))
    store = Store(tmp_path / "h.db")
    typed = {"typed": 60, "keys": 64, "active_ms": 15000, "paste_x": 0, "len": 60}
    pasted = {"typed": 0, "keys": 2, "paste": [[9000, 60, "x"]], "paste_n": 1, "paste_x": 60, "len": 60}
    record = json.dumps({"v": 1, "f": {"caption_0": typed, "caption_1": pasted}})
    store.table("hits").insert({"hit_id": "H1", "campaign": cfg.name, "batch": 1, "hit_index": 0,
                                "item_ids": json.dumps(["img7", "img3"])})
    store.table("task_sessions").insert({"session_id": "S1", "campaign": cfg.name, "batch": 1, "unit": 0,
                                         "item_ids": json.dumps(["img3", "img7"])})
    for assignment, hit in (("A1", "H1"), ("S1", "prolific-study:u0")):
        store.table("assignments").insert({"assignment_id": assignment, "hit_id": hit, "campaign": cfg.name,
                                           "batch": 1, "worker_id": "W"})
        store.table("answers").insert({"campaign": cfg.name, "assignment_id": assignment, "item_id": "",
                                       "field": "hitflow_telemetry",
                                       "value": record})
    frame = pd.DataFrame({"assignment_id": ["A1", "A1", "S1", "S1"],
                          "hit_id": ["H1", "H1", "prolific-study:u0", "prolific-study:u0"],
                          "image_id": ["img7", "img3", "img7", "img3"], "caption": ["x" * 60] * 4})
    out = attach_telemetry(Run(cfg, store, None, mturk.Target("sim", "")), frame)
    assert list(out["telemetry_field"]) == ["caption_0", "caption_1", "caption_1", "caption_0"]
    texts = out["telemetry"].tolist()  # one text per assignment, not a copy per caption row (the multi-host work.5)
    assert texts[0] == record and texts[0] is texts[1] and texts[2] is texts[3]
    assert list(text_origin(telemetry_columns(out))) == ["typed", "external paste", "external paste", "typed"]
