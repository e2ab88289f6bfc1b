"""The simulator's marketplace in a SQLite file: restarts, ids of its own, the default target as a
local platform across commands, and a server that refuses malformed requests in one line."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import sqlite3
import subprocess
from pathlib import Path

import boto3
import httpx
import pytest

from flows.cli.main import main
from flows.core.errors import ConfigError
from flows.core.pages.mturk_forms import html_question
from flows.platforms.prolific.adapter import SIM_TOKEN
from flows.platforms.registry import open_session
from flows.sim.service.server import MAX_BODY, SimServer
from tests.conftest import advance
from tests.forked_hitflow import Forked, ForkServer
from tests.small_configs import extensions
from tests.test_sim_contract import PAGE, hit_type, post

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"


def boto(sim: SimServer | str):
    return boto3.client("mturk", endpoint_url=sim if isinstance(sim, str) else sim.url, region_name="us-east-1",
                        aws_access_key_id="dummy", aws_secret_access_key="dummy")


def assignments_of(client, hit_id: str) -> list[dict]:
    return client.list_assignments_for_hit(HITId=hit_id, MaxResults=100)["Assignments"]


def test_state_survives_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "market.db"
    with SimServer(seed=3, state=state) as sim:
        client = boto(sim)
        type_id = hit_type(client)
        first = post(client, type_id, n=3, token="tok-1", item="7")
        second = post(client, type_id, n=2, item="8")
        advance(sim, 6 * 3600)
        done = assignments_of(client, first)
        client.approve_assignment(AssignmentId=done[0]["AssignmentId"])
        client.reject_assignment(AssignmentId=done[1]["AssignmentId"], RequesterFeedback="too short")
        client.create_worker_block(WorkerId=done[2]["WorkerId"], Reason="QC")
        client.update_expiration_for_hit(HITId=second, ExpireAt=0)
        balance = client.get_account_balance()["AvailableBalance"]
        clock = sim.market.now
    with SimServer(seed=None, state=state) as again:  # the file's seed
        client = boto(again)
        assert again.market.seed == 3 and again.market.now == pytest.approx(clock)
        assert client.get_account_balance()["AvailableBalance"] == balance
        assert [h["HITId"] for h in client.list_hits()["HITs"]] == [first, second]
        kept = assignments_of(client, first)
        assert [a["AssignmentId"] for a in kept] == [a["AssignmentId"] for a in done]
        assert [a["AssignmentStatus"] for a in kept] == ["Approved", "Rejected", "Submitted"]
        assert [a["Answer"] for a in kept] == [a["Answer"] for a in done]
        assert kept[1]["RequesterFeedback"] == "too short"
        assert client.list_worker_blocks()["WorkerBlocks"] == [{"WorkerId": done[2]["WorkerId"], "Reason": "QC"}]
        assert client.get_hit(HITId=second)["HIT"]["HITStatus"] in ("Reviewable", "Unassignable")
        with pytest.raises(client.exceptions.RequestError) as dup:  # the token window came back too
            post(client, type_id, n=3, token="tok-1", item="7")
        assert first in str(dup.value)
        third = post(client, hit_type(client), n=1, item="9")  # the id counter went on, no reuse
        assert third not in (first, second)
        assert again.market.workers[done[0]["WorkerId"]].hits_approved == sim.market.workers[
            done[0]["WorkerId"]].hits_approved


def test_a_second_simulator_on_the_same_file_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "market.db"
    with SimServer(seed=3, state=state), pytest.raises(ConfigError, match="in use by another hitflow process"):
        SimServer(seed=3, state=state)
    with pytest.raises(ConfigError, match="belongs to seed 3"):
        SimServer(seed=4, state=state)
    with sqlite3.connect(state) as db:  # a file from another format version
        db.execute("UPDATE meta SET value = '0' WHERE key = 'version'")
    with pytest.raises(ConfigError, match="has format '0'"):
        SimServer(seed=3, state=state)


def test_sessions_of_one_process_share_the_simulator_of_a_state_file(tmp_path: Path) -> None:
    state = tmp_path / "market.db"
    with open_session(sim_state=state) as one, open_session(sim_state=state) as two:
        assert one.target.endpoint_url == two.target.endpoint_url  # two campaigns, one marketplace
        hit_id = post(one.client, hit_type(one.client), n=1)
        assert two.client.get_hit(HITId=hit_id)["HIT"]["HITId"] == hit_id
    with open_session(sim_state=state) as again:  # closed with the last session, then reopened from the file
        assert again.client.get_hit(HITId=hit_id)["HIT"]["HITId"] == hit_id


def test_simulators_with_the_same_seed_give_the_same_ids_and_work(tmp_path: Path) -> None:
    """The reproducibility work: ids come from the seed, so two rehearsals of a campaign are the same byte for byte;
    another seed gives other ids."""
    runs = []
    for seed, state in ((1, None), (1, tmp_path / "a.db"), (1, tmp_path / "b.db"), (2, None)):
        with SimServer(seed=seed, state=state) as sim:
            client = boto(sim)
            hits = [client.create_hit(Title="Describe", Description="d", Reward="0.50", MaxAssignments=5,
                                      AssignmentDurationInSeconds=3600, LifetimeInSeconds=86400,
                                      RequesterAnnotation=f"camp:b1:h{i}",
                                      Question=html_question(PAGE.replace("{item}", str(i))))["HIT"]
                    for i in range(3)]
            advance(sim, 6 * 3600)
            done = [a for h in hits for a in assignments_of(client, h["HITId"])]
            runs.append({"ids": {h["HITId"] for h in hits} | {h["HITTypeId"] for h in hits}
                         | {a["AssignmentId"] for a in done},
                         "work": sorted((a["WorkerId"], a["Answer"]) for a in done)})
    assert all(len(r["ids"]) == 3 + 1 + 15 for r in runs)
    for one in runs[1:3]:
        assert one["ids"] == runs[0]["ids"]
        assert one["work"] == runs[0]["work"]  # the same crowd doing the same work
    assert not runs[3]["ids"] & runs[0]["ids"]


STUDY = {"name": "Describe", "description": "d", "prolific_id_option": "url_parameters",
         "external_study_url": "https://example.org/t?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}"
                               "&SESSION_ID={{%SESSION_ID%}}",
         "completion_codes": [{"code": "C1", "code_type": "COMPLETED"}], "total_available_places": 3,
         "estimated_completion_time": 5, "reward": 90, "device_compatibility": ["desktop"]}
AUTH = {"Authorization": f"Token {SIM_TOKEN}"}  # the only token the simulator answers


def test_prolific_ids_come_from_the_seed() -> None:
    ids = []
    for seed in (1, 1, 2):
        with SimServer(seed=seed) as sim:
            ids.append((httpx.post(f"{sim.url}/api/v1/studies/", json=STUDY, headers=AUTH).json()["id"],
                        next(iter(sim.prolific.workspaces))))
    assert ids[0] == ids[1] and not set(ids[0]) & set(ids[2])


def test_prolific_side_survives_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "market.db"
    body, auth = STUDY, AUTH
    with SimServer(seed=3, state=state) as sim:
        study = httpx.post(f"{sim.url}/api/v1/studies/", json=body, headers=auth).json()
        group = httpx.post(f"{sim.url}/api/v1/participant-groups/", headers=auth,
                           json={"name": "blocked", "workspace_id": next(iter(sim.prolific.workspaces))})
    with SimServer(seed=3, state=state) as again:
        got = httpx.get(f"{again.url}/api/v1/studies/{study['id']}/", headers=auth)
        assert got.status_code == 200 and got.json()["name"] == "Describe"
        assert got.json()["status"] == "UNPUBLISHED"
        assert group.status_code in (200, 201) and group.json()["id"] in again.prolific.groups


def _raw(sim: SimServer, headers: dict[str, str], body: bytes = b"") -> tuple[int, dict]:
    conn = http.client.HTTPConnection(sim.url.removeprefix("http://"), timeout=10)
    conn.putrequest("POST", "/", skip_accept_encoding=True)
    for k, v in {"X-Amz-Target": "MTurkRequesterServiceV20170117.GetAccountBalance", **headers}.items():
        conn.putheader(k, v)
    conn.endheaders(body)
    reply = conn.getresponse()
    return reply.status, json.loads(reply.read() or b"{}")


@pytest.mark.parametrize(("length", "status"), [("abc", 400), ("-1", 400), (None, 411), (str(MAX_BODY + 1), 413),
                                                ("1e3", 400), ("\u00b2", 400)])
def test_bad_content_length_gets_a_json_error_not_a_traceback(sim, capfd, length, status) -> None:
    code, payload = _raw(sim, {} if length is None else {"Content-Length": length})
    assert code == status and payload["__type"] == "RequestError"
    assert ("Content-Length" if status != 413 else "over the") in payload["Message"]
    assert "Traceback" not in capfd.readouterr().err
    assert _raw(sim, {"Content-Length": "2"}, b"{}")[1]["AvailableBalance"] == "10000.00"  # still serving


@pytest.mark.parametrize("body", [b"[1, 2]", b"\xff\xfe", b"not json"])
def test_malformed_bodies_get_a_json_error(sim, capfd, body) -> None:
    code, payload = _raw(sim, {"Content-Length": str(len(body))}, body)
    assert code == 400 and payload["__type"] == "RequestError"
    clock = httpx.post(f"{sim.url}/_sim/clock", content=body, headers={"Content-Type": "application/json"})
    assert clock.status_code == 400 and "JSON object" in clock.json()["Message"]
    assert "Traceback" not in capfd.readouterr().err


def status_in_new_process(forks: ForkServer, cwd: Path) -> list[dict]:
    """``hitflow status --json`` in a process of its own, forked from the session's fork server (not a fresh
    interpreter: ~2 s of CPU importing hitflow, which is not what is tested)."""
    env = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    done = forks.run(["status", "--json"], cwd=cwd, env=env, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def hitflow(capsys, *args: str) -> str:
    assert main(list(args)) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_default_target_is_a_local_platform_across_commands(tmp_path: Path, monkeypatch, capsys,
                                                            hitflow_forks: ForkServer) -> None:
    """run, then status (in a new process), reconcile, cancel and run again on the default ledger and target."""
    # the demo (its caption top-ups too) on ten images in two batches, a HIT of five images a batch; its config
    # in a folder of its own, as the demo's is, so that the ledger and marketplace found in the working folder
    # are the working folder's, not the config's
    from tests.small_configs import small_vizwiz

    (tmp_path / "demo").mkdir()
    config = small_vizwiz(tmp_path / "demo", edits={"batches = 5 ": "batches = 2 "}, items=10, top_ups=True)
    monkeypatch.chdir(tmp_path)
    hitflow(capsys, "run", str(config), "--no-prefect")
    state = Path("runs") / "sim" / "marketplace-seed1.db"  # the folder's marketplace, not the demo's
    assert state.is_file() and Path("runs/hitflow.db").is_file()
    report = status_in_new_process(hitflow_forks, tmp_path)[0]
    assert report["campaign"] == "vizwiz_captions" and len(report["batches"]) == 2
    for batch in report["batches"]:  # the platform's final word, not "Submitted"
        assert set(batch["assignments"]) <= {"Approved", "Rejected"} and batch["assignments"]["Approved"] > 0
        assert sum(batch["assignments"].values()) == 5 + extensions(Path("runs/hitflow.db"), batch["batch"])
    with sqlite3.connect("runs/hitflow.db") as ledger:  # a ledger that missed what the platform did
        ledger.execute("UPDATE assignments SET status = 'Submitted' WHERE batch = 1")
    refreshed = json.loads(hitflow(capsys, "status", "--json", "--refresh"))[0]
    assert refreshed["batches"][0]["assignments"] == report["batches"][0]["assignments"]
    reconciled = hitflow(capsys, "reconcile", "vizwiz_captions")
    assert "fetched 0 missed submission(s)" in reconciled and str(state.resolve()) in reconciled
    assert "cancel: 2 finished HIT(s) deleted," in hitflow(capsys, "cancel", "vizwiz_captions")
    assert "cancel: 0 finished HIT(s) deleted," in hitflow(capsys, "cancel", "vizwiz_captions")  # kept in the file
    # a cancelled campaign runs again only on purpose (a plain run is refused: tests/test_operator_safety.py)
    resumed = hitflow(capsys, "run", str(config), "--no-prefect", "--resume-cancelled")
    assert "posted now" not in resumed and f"captions: {5 * (10 + extensions(Path('runs/hitflow.db')))}" in resumed
    after = json.loads(hitflow(capsys, "status", "--json"))[0]
    assert [b["assignments"] for b in after["batches"]] == [b["assignments"] for b in report["batches"]]


def serve(forks: ForkServer, state: Path) -> tuple[Forked, str]:
    """``hitflow sim serve`` as a process of its own, forked from the session's fork server."""
    proc = forks.popen(["sim", "serve", "--port", "0", "--speed", "0", "--state", str(state)],
                       stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+", line)
    assert match, line
    return proc, match.group(0)


def test_restarted_sim_serve_continues_from_its_state(tmp_path: Path, hitflow_forks: ForkServer) -> None:
    state = tmp_path / "served.db"
    proc, url = serve(hitflow_forks, state)
    try:
        client = boto(url)
        hit_id = post(client, hit_type(client), n=2)
        httpx.post(f"{url}/_sim/clock", json={"advance_seconds": 6 * 3600})
        before = assignments_of(client, hit_id)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    proc, url = serve(hitflow_forks, state)
    try:
        client = boto(url)
        assert assignments_of(client, hit_id) == before and len(before) == 2
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
