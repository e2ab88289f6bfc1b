"""The AWS CLI and the AWS SDK for JavaScript v3 drive the simulator through every operation it
serves (tests/mturk_walk.py's plan: valid calls, error calls, the nine paginators): what a
requester's own scripts would do, with clients hitflow never wrote."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from flows.sim.mturk.mturk_api import OPERATIONS
from tests.mturk_clients import DUMMY_ENV, JS_PACKAGE, aws_interpreter, hit_creation_times, run_cli, run_js
from tests.mturk_walk import mismatches, plan, prepare, truth_from


def _skip_or_fail(message: str) -> None:
    """Skip loudly; under CI=true a client that is installed but unusable fails the run."""
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    print(f"\n*** SKIPPED: {message} ***")
    pytest.skip(message)


def test_aws_cli_runs_every_served_operation(sim, client) -> None:
    if shutil.which("aws") is None:
        pytest.skip("the AWS CLI (`aws`) is not installed")
    python = aws_interpreter()
    if python is None:  # e.g. AWS CLI v2's frozen binary: its driver cannot be run command after command
        pytest.skip(f"{shutil.which('aws')} is not a Python program: the batch runner needs AWS CLI v1's Python")
    calls = plan(prepare(client, sim))
    assert {c["op"] for c in calls} == set(OPERATIONS)
    results = run_cli(python, sim.url, calls)
    assert mismatches(calls, results, truth_from(client)) == []
    times = hit_creation_times(calls, results)
    assert len(times) >= 4 and all(abs(t - sim.market.now) < 86400 for t in times)


def test_the_aws_command_itself_pages_with_its_own_tokens(sim, client) -> None:
    """The real `aws` program (not just its driver): --max-items hands back a NextToken of the
    CLI's own, and --starting-token continues from it."""
    if shutil.which("aws") is None:
        pytest.skip("the AWS CLI (`aws`) is not installed")
    prepare(client, sim)
    everything = [h["HITId"] for h in client.list_hits(MaxResults=100)["HITs"]]
    base = ["aws", "mturk", "list-hits", "--endpoint-url", sim.url, "--output", "json", "--page-size", "2"]
    env = {**os.environ, **DUMMY_ENV}
    first = json.loads(subprocess.run([*base, "--max-items", "3"], capture_output=True, text=True, env=env,
                                      check=True, timeout=60).stdout)
    rest = json.loads(subprocess.run([*base, "--starting-token", first["NextToken"]], capture_output=True,
                                     text=True, env=env, check=True, timeout=60).stdout)
    assert [h["HITId"] for h in first["HITs"] + rest["HITs"]] == everything and len(everything) > 3


def test_javascript_sdk_runs_every_served_operation(sim, client) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the JavaScript SDK tests need it (and `make js-sdk`)")
    if not JS_PACKAGE.is_dir():
        _skip_or_fail(f"{JS_PACKAGE} is missing: run `make js-sdk` (npm ci in tests/js_sdk)")
    calls = plan(prepare(client, sim))
    assert {c["op"] for c in calls} == set(OPERATIONS)
    results = run_js(sim.url, calls)
    assert mismatches(calls, results, truth_from(client)) == []
    times = hit_creation_times(calls, results)
    assert len(times) >= 4 and all(abs(t - sim.market.now) < 86400 for t in times)
    errors = [r for r in results if not r["ok"]]
    assert errors and {r["name"] for r in errors} == {"RequestError"}  # MTurk's modelled exception class
