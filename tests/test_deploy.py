"""The task server as a long-lived service: health, the secret from the environment, proxy
headers trusted only from the configured proxy, what people and the operator are told when there
is no work, a run's check of the server it hands links to, and deploy/'s files."""

from __future__ import annotations

import configparser
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.campaigns.task_pages import task_page
from flows.cli.main import _parser
from flows.core.config.config import load_config
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.core.site_secrets import invite_link
from flows.driver.campaign_run import check_task_server
from flows.platforms.mturk import adapter as mturk
from flows.taskserver.task_guard import SessionLimits
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import TaskServer
from flows.taskserver.task_units import secret_fingerprint, work_state
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"
STUDY = "s" * 24


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[tuple[Store, Any]]:
    cfg = load_config(CONFIG)
    store = Store(tmp_path / "h.db")
    plan_items(Run(cfg, store, None, mturk.Target("sim", "http://unused")), limit=50)
    yield store, cfg


def test_health_names_the_campaigns_and_fails_when_the_ledger_cannot_be_read(ledger, tmp_path: Path,
                                                                           monkeypatch) -> None:
    store, cfg = ledger
    monkeypatch.setenv("HITFLOW_TASK_SECRET", "from-the-environment-" + "x" * 32)
    with TaskServer(TaskSite(store.path, {cfg.name: cfg})) as server:
        health = httpx.get(f"{server.url}/health")
    assert health.status_code == 200
    assert health.json()["campaigns"] == [cfg.name] and health.json()["open_batches"] == {cfg.name: None}
    assert health.json()["signs_with"] == secret_fingerprint(b"from-the-environment-" + b"x" * 32)
    assert not Path(f"{store.path}.task-secret").exists()  # the secret came from the environment, no file
    broken = tmp_path / "a-folder.db"
    broken.mkdir()  # SQLite cannot open a folder
    with TaskServer(TaskSite(broken, {cfg.name: cfg})) as server:
        down = httpx.get(f"{server.url}/health")
    assert down.status_code == 503 and down.json()["ok"] is False


def _sessions_from(url: str, cfg: Any, forwarded: list[str]) -> list[int]:
    with httpx.Client(base_url=url) as http:
        return [http.get(f"/task/{cfg.name}", params={"PROLIFIC_PID": f"p{n}", "STUDY_ID": STUDY,
                                                      "SESSION_ID": f"sess{n}"},
                         headers={"X-Forwarded-For": address}).status_code
                for n, address in enumerate(forwarded)]


@pytest.mark.parametrize("trusted", [(), ("127.0.0.1",)])
def test_forwarded_addresses_count_only_from_a_trusted_proxy(ledger, trusted: tuple[str, ...]) -> None:
    store, cfg = ledger
    store.set_batch(cfg.name, 1, status="published")
    store.table("studies").insert({"study_id": STUDY, "campaign": cfg.name, "batch": 1, "status": "ACTIVE",
                                   "places": 10, "created_at": 0.0}, pk=("campaign", "study_id"))
    site = TaskSite(store.path, {cfg.name: cfg}, secret=b"k" * 32, limits=SessionLimits(per_address=2),
                    limit_loopback=True)
    with TaskServer(site, trusted_proxies=trusted) as server:
        statuses = _sessions_from(server.url, cfg, ["203.0.113.1", "203.0.113.2", "203.0.113.3"])
    # untrusted: the header is the client's own claim, so all three come from 127.0.0.1 (limit 2)
    assert statuses == ([200, 200, 200] if trusted else [200, 200, 429])


def test_people_are_told_why_there_is_no_work(ledger) -> None:
    store, cfg = ledger
    site = TaskSite(store.path, {cfg.name: cfg}, secret=b"k" * 32)
    link = invite_link(site.secret, "", cfg.name, "alice")
    assert work_state(store, cfg).startswith("no work open: no batch is published yet; open one with `hitflow run")
    with TaskServer(site) as server, httpx.Client(base_url=server.url) as http:
        before = http.get(link)
        store.set_batch(cfg.name, 1, status="blocked")
        between = http.get(link)
        store.table("campaigns").update(cfg.name, {"status": "done"})
        after = http.get(link)
        store.table("studies").insert({"study_id": STUDY, "campaign": cfg.name, "batch": 1, "status": "COMPLETED",
                                       "places": 10, "created_at": 0.0}, pk=("campaign", "study_id"))
        closed_study = http.get(f"/task/{cfg.name}", params={"PROLIFIC_PID": "p1", "STUDY_ID": STUDY,
                                                             "SESSION_ID": "x1"})
    assert before.status_code == 503 and "has not opened yet" in before.text and "stays valid" in before.text
    assert work_state(store, cfg) == "no work open: every batch of the campaign is done"
    assert between.status_code == 503 and "next round" in between.text
    assert after.status_code == 410 and "has closed" in after.text
    assert closed_study.status_code == 410 and "has closed" in closed_study.text


def test_a_run_hands_out_links_only_to_a_server_on_its_ledger(ledger, tmp_path: Path) -> None:
    store, cfg = ledger
    run = Run(cfg, store, None, mturk.Target("sim", "http://unused"), page=task_page)
    with pytest.raises(ConfigError, match="no task server answers"):
        check_task_server(run, "http://127.0.0.1:9")
    other = load_config(ROOT / "config" / "expert_rating.toml")
    with TaskServer(TaskSite(store.path, {other.name: other})) as server, \
            pytest.raises(ConfigError, match="does not serve vizwiz_captions"):
        check_task_server(run, server.url)
    with TaskServer(TaskSite(tmp_path / "another.db", {cfg.name: cfg})) as server, \
            pytest.raises(ConfigError, match="signs with another secret"):
        check_task_server(run, server.url)
    with TaskServer(TaskSite(store.path, {cfg.name: cfg})) as server:
        check_task_server(run, server.url)  # same ledger, same secret: fine


def _parses_as_hitflow_serve(argv: list[str], tmp_path: Path) -> Any:
    """The command line through hitflow's own parser (ledger paths moved under tmp_path) and every
    --campaign a config in the repository."""
    argv = [str(tmp_path / Path(a).name) if a.startswith(("/data/", "/var/lib/")) else a for a in argv]
    args = _parser().parse_args(argv)
    assert args.command == "serve"
    for config in args.campaign:
        assert (ROOT / config).is_file(), config
    return args


def test_the_systemd_unit_runs_hitflow_serve_with_the_ledger_in_its_state_directory(tmp_path: Path) -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]  # systemd keys are case-sensitive
    unit.read(ROOT / "deploy" / "hitflow-serve.service")
    service = unit["Service"]
    exec_start = shlex.split(service["ExecStart"])
    assert exec_start[0] == "/opt/hitflow/.venv/bin/hitflow" and service["WorkingDirectory"] == "/opt/hitflow"
    args = _parses_as_hitflow_serve(exec_start[1:], tmp_path)
    assert args.trusted_proxy == ["127.0.0.1"] and args.public_url.startswith("https://")
    assert service["StateDirectory"] == "hitflow" and "/var/lib/hitflow/hitflow.db" in service["ExecStart"]
    assert "HITFLOW_TASK_SECRET" not in service.get("Environment", "")  # the secret stays in EnvironmentFile
    assert service["EnvironmentFile"] == "/etc/hitflow/serve.env"
    assert int(service["LimitNOFILE"]) >= 65536  # connections are files; systemd's soft default is 1,024


def test_the_image_copies_real_paths_checks_health_and_keeps_the_ledger_on_a_volume(tmp_path: Path) -> None:
    text = (ROOT / "deploy" / "Dockerfile").read_text()
    for source in re.findall(r"^COPY (.+) \S+$", text, re.M):
        for path in source.split():
            assert (ROOT / path).exists(), path
    assert 'VOLUME ["/data"]' in text and "HITFLOW_DB=/data/hitflow.db" in text
    assert "/health" in re.search(r"^HEALTHCHECK .*(?:\n .*)*", text, re.M).group(0)  # type: ignore[union-attr]
    entry = json.loads(re.search(r"^ENTRYPOINT (.+)$", text, re.M).group(1))  # type: ignore[union-attr]
    cmd = json.loads(re.search(r"^CMD (.+)$", text, re.M).group(1))  # type: ignore[union-attr]
    assert entry[0] == "hitflow"
    args = _parses_as_hitflow_serve(entry[1:] + cmd, tmp_path)
    assert args.host == "0.0.0.0" and args.db.endswith("hitflow.db")


@pytest.mark.prefect
def test_deploy_speaks_in_hitflow_s_words_not_prefect_s(tmp_path: Path, on_prefect_server: str, capsys) -> None:
    # Prefect printed its own tip (".serve", "Set `ignore_warnings=True`", a table) on `hitflow deploy`'s
    # stdout: advice for code the user never wrote. It printed only a UUID, under the
    # flow's name "caption-campaign-next-batch/NAME-next-batch", and its serve-schedules command dropped
    # --platform prolific, so the command as printed served the campaign on MTurk.
    import shlex

    from flows.cli.main import main
    from flows.cli.parser import _parser as build_parser

    # a campaign name of its own: the session's Prefect server is shared with other workers' tests, and
    # test_prefect_flow registers (and checks) vizwiz_captions' deployment there
    config = small_vizwiz(tmp_path, "deploy_words")
    typed = ["--endpoint-url", "http://127.0.0.1:9", "--db", str(tmp_path / "h.db"), "--out", str(tmp_path / "out"),
             "--platform", "prolific", "--task-url", "http://127.0.0.1:8"]
    code = main(["deploy", str(config), *typed, "--pool", "deploy-words"])
    shown = capsys.readouterr()
    assert code == 0
    said = shown.out + shown.err
    assert "ignore_warnings" not in said and ".serve" not in said and "Deployments" not in said, said
    lines = shown.out.splitlines()
    assert lines[0] == "target: http://127.0.0.1:9" and len(lines) == 2, lines
    assert lines[1].startswith("deployment hitflow-next-batch/deploy_words registered (one batch per run, on the "
                               "config's [schedule]) on the process work pool deploy-words"), lines[1]
    assert "prefect worker start --pool deploy-words" in lines[1]
    command = re.search(r"`hitflow (serve-schedules [^`]+)`", lines[1])
    assert command, lines[1]
    served = build_parser().parse_args(shlex.split(command[1]))  # the command as printed, read as typed
    expected = build_parser().parse_args(["serve-schedules", str(config), *typed])
    assert (served.platform, served.endpoint_url, served.db, served.out, served.task_url, served.config) == (
        "prolific", expected.endpoint_url, expected.db, expected.out, expected.task_url, str(config))
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:  # its hourly schedule would make runs on the shared server
        client.delete_deployment(client.read_deployment_by_name("hitflow-next-batch/deploy_words").id)


def test_deploy_refuses_a_live_target_without_live_before_registering(tmp_path: Path, capsys) -> None:
    """A live route's schedule (stop 69's note: deploy had no --target/--live, so a live Prolific schedule could
    not be deployed): unconfirmed, it is refused at once in one line, not at the schedule's first run."""
    from flows.cli.main import main

    config = small_vizwiz(tmp_path, "deploy_unconfirmed")
    code = main(["deploy", str(config), "--platform", "prolific", "--target", "prolific",
                 "--db", str(tmp_path / "h.db")])
    err = capsys.readouterr().err
    assert code == 2 and "pass --live to confirm" in err and "Traceback" not in err
    assert main(["deploy", str(config), "--db", str(tmp_path / "h.db")]) != 0  # the simulator's needs its endpoint
    assert "needs --endpoint-url" in capsys.readouterr().err


@pytest.mark.prefect
def test_deploy_registers_a_live_prolific_schedule_and_says_how_to_serve_it(tmp_path: Path, on_prefect_server: str,
                                                                             capsys, monkeypatch) -> None:
    from prefect.client.orchestration import get_client

    from flows.cli.main import main
    from flows.cli.parser import _parser as build_parser

    monkeypatch.setenv("PROLIFIC_TOKEN", "tok-not-to-be-stored")
    config = small_vizwiz(tmp_path, "deploy_live")
    typed = ["--platform", "prolific", "--target", "prolific", "--live", "--db", str(tmp_path / "h.db"),
             "--task-url", "https://tasks.example.org"]
    assert main(["deploy", str(config), *typed, "--pool", "deploy-live"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("target: prolific (live") and "checks the budget" in lines[0]
    command = re.search(r"`hitflow (serve-schedules [^`]+)`", lines[1])
    assert command, lines[1]
    served = build_parser().parse_args(shlex.split(command[1]))  # the command as printed, read as typed
    assert (served.target, served.live, served.platform, served.endpoint_url) == ("prolific", True, "prolific", "")
    with get_client(sync_client=True) as client:
        deployment = client.read_deployment_by_name("hitflow-next-batch/deploy_live")
        client.delete_deployment(deployment.id)  # its schedule would make runs on the shared server
    assert deployment.parameters["target"] == "prolific" and deployment.parameters["live"] is True
    assert "tok-not-to-be-stored" not in json.dumps(deployment.parameters) + json.dumps(
        deployment.job_variables or {})
