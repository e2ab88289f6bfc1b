"""Full scale as a config: generated items, --scale as new images, a paced simulator."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from flows.campaigns.campaign_plan import Run, checked_items, item_plan, plan_items
from flows.core.config.config import load_config
from flows.core.config.item_generator import generated_items
from flows.core.errors import ConfigError, InputFormatError
from flows.core.ledger.store import Store
from flows.platforms.mturk import adapter as mturk
from flows.sim.service.pacing import Pacing
from flows.sim.service.server import SimServer

ROOT = Path(__file__).resolve().parents[1]


def test_full_scale_config_plans_39181_distinct_images() -> None:
    cfg = load_config(ROOT / "config" / "vizwiz_full_scale.toml")
    plan = item_plan(cfg)
    assert len(plan) == 39181 == len({p["item_id"] for p in plan}) == len({p["url"] for p in plan})
    assert {p["batch"] for p in plan} == {1, 2, 3, 4, 5} and cfg.assignments_per_image == 5
    assert len(item_plan(cfg, limit=500)) == 500  # --limit N keeps working


def test_scale_makes_new_images_not_repeats() -> None:
    cfg = load_config(ROOT / "config" / "vizwiz_captions.toml")
    plan = item_plan(cfg, limit=10, scale=3)
    assert len(plan) == 30 == len({p["item_id"] for p in plan}) == len({p["file_name"] for p in plan})


def test_bad_generator_spec_is_a_config_error(tmp_path: Path) -> None:
    text = (ROOT / "config" / "vizwiz_full_scale.toml").read_text().replace('"generate:39181"', '"generate:lots"')
    (tmp_path / "c.toml").write_text(text)
    with pytest.raises(ConfigError, match=r"\[campaign\].items .*generate:N"):
        load_config(tmp_path / "c.toml")
    assert generated_items("generate:3", tmp_path).read_text().count("\n") == 4  # header + 3 rows


def item_file(tmp_path: Path, rows: list[str]) -> Path:
    path = tmp_path / "items.csv"
    path.write_text("image_id,file_name,url\n" + "".join(f"{r}\n" for r in rows), encoding="utf-8")
    return path


def test_the_item_file_is_read_as_it_is_planned_not_whole(tmp_path: Path) -> None:
    """The first item comes before a bad line further down is even read (a file read whole first
    would fail at once): the plan never holds the item list (the multi-host work.5)."""
    good = [f"i{k},i{k}.jpg,https://x.org/i{k}.jpg" for k in range(3)]
    cfg = dataclasses.replace(load_config(ROOT / "config" / "vizwiz_full_scale.toml"),
                              items=item_file(tmp_path, [*good, "i1,again.jpg,https://x.org/again.jpg"]))
    rows = checked_items(cfg)
    assert next(rows) == {"image_id": "i0", "file_name": "i0.jpg", "url": "https://x.org/i0.jpg"}
    with pytest.raises(InputFormatError, match=r"items.csv:5: image_id 'i1' is empty or repeated"):
        list(rows)


def test_a_bad_last_line_plans_nothing(tmp_path: Path) -> None:
    """Every line is checked before any item is stored: a repeated id on the last of 2,000 lines
    leaves the ledger without a plan (and a fixed file then plans all of it, in 5 batches)."""
    good = [f"i{k},i{k}.jpg,https://x.org/i{k}.jpg" for k in range(2000)]
    cfg = dataclasses.replace(load_config(ROOT / "config" / "vizwiz_full_scale.toml"),
                              items=item_file(tmp_path, [*good, "i7,dup.jpg,https://x.org/dup.jpg"]))
    run = Run(cfg, Store(tmp_path / "ledger.db"), None, mturk.Target("sim", "http://unused"))
    with pytest.raises(InputFormatError, match=r"items.csv:2002: image_id 'i7'"):
        plan_items(run)
    assert run.store.table("items").count_where("campaign = ?", [cfg.name]) == 0
    item_file(tmp_path, good)
    plan_items(run, limit=1500)
    stored = run.store.rows("SELECT item_id, batch, hit_index FROM items WHERE campaign = ? ORDER BY rowid", [cfg.name])
    assert [r["item_id"] for r in stored] == [f"i{k}" for k in range(1500)]
    assert [r["batch"] for r in stored] == [1 + k // 300 for k in range(1500)]
    assert stored[299]["hit_index"] == 59 and stored[300]["hit_index"] == 0


def test_pacing_throttles_bursts_and_adds_latency() -> None:
    with SimServer(seed=2) as sim:
        # refills one call per 20 s, so a loaded machine cannot refill the bucket between calls
        sim.httpd.pacing = Pacing(latency_ms=50, rate_per_s=0.05, burst=2)
        client = boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1", aws_access_key_id="x",
                              aws_secret_access_key="y", config=Config(retries={"max_attempts": 1}))
        start, codes = time.perf_counter(), []
        for _ in range(5):
            try:
                client.get_account_balance()
                codes.append("ok")
            except ClientError as err:
                codes.append(err.response["Error"]["Code"])
        elapsed = time.perf_counter() - start
    assert codes[:2] == ["ok", "ok"] and "ThrottlingException" in codes  # the bucket held two calls
    assert elapsed >= 5 * 0.05 * 0.8  # every call waited its round trip
