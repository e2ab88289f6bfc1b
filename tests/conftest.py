"""Shared fixtures: a running simulator, a boto3 client for it, the shared data folder."""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

from flows.sim.server import SimServer

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def sim() -> Iterator[SimServer]:
    with SimServer(seed=3) as server:
        yield server


@pytest.fixture
def client(sim: SimServer):
    return boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1",
                        aws_access_key_id="dummy", aws_secret_access_key="dummy")


def advance(sim: SimServer, seconds: float) -> None:
    req = urllib.request.Request(f"{sim.url}/_sim/clock", method="POST",
                                 data=json.dumps({"advance_seconds": seconds}).encode())
    urllib.request.urlopen(req).read()


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"needs ../shared/data beside the project ({SHARED_DATA} is absent)")
    return SHARED_DATA
