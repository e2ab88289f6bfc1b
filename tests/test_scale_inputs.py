"""Full scale as a config: generated items, --scale as new images, a paced simulator."""

from __future__ import annotations

import time
from pathlib import Path

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from flows.campaigns.campaign_plan import item_plan
from flows.core.config import load_config
from flows.core.errors import ConfigError
from flows.core.item_generator import generated_items
from flows.sim.pacing import Pacing
from flows.sim.server import SimServer

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
