"""Third-party MTurk clients run over a plan of calls (tests/mturk_walk.py): the AWS CLI and the
AWS SDK for JavaScript v3. Each gives back one result per call: ``ok``, ``code`` (the
TurkErrorCode of an error), ``reply`` (the parsed reply; for a paginated call every item)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from botocore import xform_name

from tests.mturk_walk import PAGINATED

HERE = Path(__file__).resolve().parent
CLI_BATCH = HERE / "aws_cli" / "batch.py"
JS_DIR = HERE / "js_sdk"
JS_PACKAGE = JS_DIR / "node_modules" / "@aws-sdk" / "client-mturk"
# No real account: dummy keys, no config files, one region; the CLI signs and the simulator ignores it.
DUMMY_ENV = {"AWS_ACCESS_KEY_ID": "dummy", "AWS_SECRET_ACCESS_KEY": "dummy", "AWS_DEFAULT_REGION": "us-east-1",
             "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull, "AWS_PAGER": ""}


def aws_interpreter() -> list[str] | None:
    """The command that runs the Python owning `aws` (its shebang; through pyenv's shim if one)."""
    aws = shutil.which("aws")
    if aws is None:
        return None
    first = Path(aws).read_bytes()[:200].split(b"\n")[0].decode(errors="replace")
    if first.startswith("#!") and "python" in first:
        return first[2:].split()
    pyenv = shutil.which("pyenv")
    if pyenv and "pyenv" in Path(aws).read_text(errors="replace"):
        real = subprocess.run([pyenv, "which", "aws"], capture_output=True, text=True).stdout.strip()
        first = Path(real).read_text(errors="replace").split("\n")[0] if real else ""
        return first[2:].split() if first.startswith("#!") and "python" in first else None
    return None


def cli_argv(endpoint: str, call: dict[str, Any]) -> list[str]:
    params = {k: datetime.fromtimestamp(v["$epoch"], UTC).isoformat() if isinstance(v, dict) and "$epoch" in v
              else v for k, v in call["params"].items()}
    argv = ["mturk", xform_name(call["op"], "-"), "--endpoint-url", endpoint, "--output", "json"]
    if params:
        argv += ["--cli-input-json", json.dumps(params)]
    if call["op"] in PAGINATED:  # the CLI pages through every list on its own unless told not to
        argv += ["--page-size", "2"] if call.get("paginate") else ["--no-paginate"]
    return argv


def run_cli_batch(python: list[str], argvs: list[list[str]]) -> list[dict[str, Any]]:
    done = subprocess.run([*python, str(CLI_BATCH)], input=json.dumps(argvs), capture_output=True, text=True,
                          env={**os.environ, **DUMMY_ENV}, timeout=300)
    assert done.returncode == 0, f"the AWS CLI batch failed: {done.stderr[-2000:]}"
    return json.loads(done.stdout)


def run_cli(python: list[str], endpoint: str, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    results = []
    for call, out in zip(calls, run_cli_batch(python, [cli_argv(endpoint, c) for c in calls]), strict=True):
        if out["rc"] != 0:
            results.append({"ok": False, "code": (out["codes"] or [None])[-1], "reply": out["stderr"]})
            continue
        reply = json.loads(out["stdout"]) if out["stdout"].strip() else {}
        results.append({"ok": True, "reply": reply[call["paginate"]] if call.get("paginate") else reply})
    return results


def run_js(endpoint: str, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    done = subprocess.run(["node", "walk.mjs"], cwd=JS_DIR, input=json.dumps({"endpoint": endpoint, "calls": calls}),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"the JavaScript SDK run failed: {done.stderr[-2000:]}"
    return json.loads(done.stdout)


def hit_creation_times(calls: list[dict[str, Any]], results: list[dict[str, Any]]) -> list[float]:
    """Every GetHIT reply's CreationTime as the client rendered it (the JS SDK: a Date, serialised
    as ISO 8601; AWS CLI v1: the wire's epoch number, its default cli_timestamp_format), back in
    epoch seconds: the simulator's timestamps must come out as the right time."""
    stamps = [r["reply"]["HIT"]["CreationTime"] for c, r in zip(calls, results, strict=True)
              if c["op"] == "GetHIT" and r["ok"]]
    return [float(t) if isinstance(t, int | float) else datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()
            for t in stamps]
