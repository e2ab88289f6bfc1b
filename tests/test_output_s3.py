"""The multi-host work against a real S3-compatible server: moto's, started here on a free port (its
server mode: a real HTTP endpoint that s3fs and botocore talk to as to S3). The small demo's outputs
go to ``s3://BUCKET/runs``, with the key and secret in the URL; a bucket that does not exist is one
line before anything is posted. Skipped where s3fs or moto[server] is not installed (the ``s3`` and
``dev`` extras bring them)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flows.core.outputs.output_location import staging_root
from flows.core.run.prefect_api import free_port
from tests.forked_hitflow import ForkServer
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
KEY, SECRET = "AKIDHITFLOWTEST", "s3-Secret-Xw93PqLm"  # moto takes any; the secret must show up nowhere


@pytest.fixture(scope="module")
def s3() -> Iterator[str]:
    """A moto S3 server on 127.0.0.1 with one bucket; yields its endpoint URL. s3fs and moto are looked for
    here, not as the module is collected: every xdist worker collects it, and they cost ~1 s of CPU to import."""
    import boto3

    pytest.importorskip("s3fs", reason="outputs on S3 need s3fs: pip install 'hitflow[s3]'")
    moto_server = pytest.importorskip("moto.server",
                                      reason="the S3 test server is moto[server]: pip install -e '.[dev]'")

    port = free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    try:
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=KEY,
                     aws_secret_access_key="x").create_bucket(Bucket="hitflow-outputs")
        yield endpoint
    finally:
        server.stop()


def objects(endpoint: str, prefix: str) -> dict[str, bytes]:
    import boto3

    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=KEY,
                          aws_secret_access_key="x")
    listed = client.list_objects_v2(Bucket="hitflow-outputs", Prefix=prefix).get("Contents", [])
    return {o["Key"][len(prefix):]: client.get_object(Bucket="hitflow-outputs", Key=o["Key"])["Body"].read()
            for o in listed}


def hitflow(forks: ForkServer, tmp: Path, endpoint: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``hitflow ARGS`` as a process of its own forked from the session's fork server (tests/forked_hitflow.py),
    which has not imported fsspec: the command's fsspec reads its FSSPEC_* variables as it imports it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FSSPEC_", "HITFLOW_OUT", "AWS_"))}
    env.update({"FSSPEC_S3_ENDPOINT_URL": endpoint, "HITFLOW_STAGING": str(tmp / "staging"),
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false"})
    return forks.run(list(args), text=True, env=env, cwd=ROOT, timeout=240)


@pytest.mark.slow
def test_a_campaigns_outputs_on_s3_equal_the_local_run_and_hold_no_secret(s3: str, tmp_path: Path,
                                                                          hitflow_forks: ForkServer) -> None:
    url = f"s3://{KEY}:{SECRET}@hitflow-outputs/runs"
    done = hitflow(hitflow_forks, tmp_path, s3, "run", str(small_vizwiz(tmp_path)), "--no-prefect", "--db",
                   str(tmp_path / "h.db"), "--out", url)
    assert done.returncode == 0, done.stderr
    local = tmp_path / "staging" / staging_root("s3://hitflow-outputs/runs").name / "vizwiz_captions"
    at_url = objects(s3, "runs/vizwiz_captions/")
    assert at_url == {p.relative_to(local).as_posix(): p.read_bytes() for p in local.rglob("*") if p.is_file()}
    assert {"dataset.json", "dataset.csv", "report.html", "hitflow-manifest.json"} <= set(at_url)
    assert "outputs copied to s3://hitflow-outputs/runs/vizwiz_captions/" in done.stdout  # the key taken out
    assert SECRET not in done.stdout + done.stderr
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert not [k for k, body in at_url.items() if SECRET.encode() in body]


def test_a_bucket_that_does_not_exist_is_one_line_before_anything_is_posted(s3: str, tmp_path: Path,
                                                                             hitflow_forks: ForkServer) -> None:
    done = hitflow(hitflow_forks, tmp_path, s3, "run", str(small_vizwiz(tmp_path)), "--no-prefect", "--db",
                   str(tmp_path / "h.db"), "--out", f"s3://{KEY}:{SECRET}@no-such-bucket/runs")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "cannot be written" in done.stderr, done.stderr
    assert "--out s3://no-such-bucket/runs cannot be written" in done.stderr and SECRET not in done.stderr
    assert not (tmp_path / "h.db").exists()


def test_an_all_digit_key_and_secret_from_the_environment_stay_text(s3: str, tmp_path: Path) -> None:
    """fsspec reads FSSPEC_* values as JSON when imported, so a worker (or a flow run a CLI run started)
    that inherited FSSPEC_S3_SECRET=<digits> handed s3fs a number, and signing failed. A fresh process,
    as a worker is, checks the URL and copies a folder there with all-digit credentials."""
    key, secret = "20261124", "8675309123456"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FSSPEC_", "AWS_"))}
    env.update({"FSSPEC_S3_ENDPOINT_URL": s3, "FSSPEC_S3_KEY": key, "FSSPEC_S3_SECRET": secret,
                "HITFLOW_STAGING": str(tmp_path / "staging")})
    url = "s3://hitflow-outputs/digits"
    local = tmp_path / "staging" / staging_root(url).name / "c"  # the worker's run folder
    local.mkdir(parents=True)
    (local / "dataset.csv").write_text("image_id\n1\n")
    script = ("import sys; from flows.core.outputs.output_mirror import check_writable, mirror; "
              "check_writable(sys.argv[1], 'c'); print(mirror(sys.argv[1], 'c'))")
    done = subprocess.run([sys.executable, "-c", script, url], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)
    assert done.returncode == 0 and "'copied': 1" in done.stdout, done.stderr[-2000:]
    assert objects(s3, "digits/c/") == {"dataset.csv": b"image_id\n1\n"}
    assert secret not in done.stdout + done.stderr
