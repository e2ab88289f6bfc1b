"""A simulator restarted on its state file with a crowd that grows with the work (a size rule):
the newcomers recruited before the restart are there again, the same people, with their records."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import boto3

from flows.sim.service.server import SimServer
from tests.test_sim_contract import hit_type, post

ROOT = Path(__file__).resolve().parents[1]
FULL_SCALE = ROOT / "config" / "crowds" / "vizwiz_full_scale.toml"


def growing_crowd(folder: Path) -> Path:
    """The full-scale crowd, starting small and growing fast: a worker per 2 images posted."""
    text = FULL_SCALE.read_text(encoding="utf-8").replace("images_per_worker = 24", "images_per_worker = 2")
    text = text.replace("min_workers = 60", "min_workers = 5")
    text = text.replace('caption_bank = "../items/', 'caption_bank = "')  # beside it: files stay in its folder
    shutil.copy(ROOT / "config" / "items" / "vizwiz_demo_captions.csv", folder / "vizwiz_demo_captions.csv")
    (folder / "crowd.toml").write_text(text, encoding="utf-8")
    return folder / "crowd.toml"


def client_for(sim: SimServer) -> Any:  # boto3 builds its client types at run time
    return boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1", aws_access_key_id="x",
                        aws_secret_access_key="y")


def test_a_restart_brings_back_the_crowd_recruited_before_it(tmp_path: Path) -> None:
    state, crowd_file = tmp_path / "sim.db", growing_crowd(tmp_path)
    with SimServer(seed=4, crowd_file=crowd_file, state=state) as first:
        before = set(first.market.workers)
        client = client_for(first)
        kind = hit_type(client, quals=[])
        for item in range(40):  # 40 HITs of one image each: the size rule recruits as they are posted
            post(client, kind, n=5, item=str(item))
        first.market.advance(60)  # workers are chosen (and newcomers recruited) when the clock moves
        grown = {w: (first.market.workers[w].profile, first.market.workers[w].arrived_at)
                 for w in first.market.workers}
    assert len(grown) > len(before)  # newcomers arrived with the work
    with SimServer(seed=None, crowd_file=crowd_file, state=state) as again:
        reopened = {w: (again.market.workers[w].profile, again.market.workers[w].arrived_at)
                    for w in again.market.workers}
        assignments = list(again.market.assignments.values())
    assert reopened == grown  # the same people, arrived when they did
    assert {a.worker_id for a in assignments} <= set(reopened)  # every stored assignment's worker exists
