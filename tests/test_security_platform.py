"""The first security review and the artifact part of 9, against the simulator: extra items
on the HTMLQuestion route, Prolific completions without stored work and forged sessions, the
token's hygiene and paging host, adoption by item digest, the --live gate, escaped artifacts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.campaigns.task_pages import task_page
from flows.cli.main import main
from flows.core.config.config import load_config
from flows.core.errors import ConfigError, PlatformError
from flows.core.ledger.store import Store
from flows.core.pages.markdown_text import md_text
from flows.core.pages.mturk_forms import answer_rows, answer_xml
from flows.core.site_secrets import completion_code
from flows.driver.campaign_status import batch_markdown
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.batch_collect import store_assignment
from flows.platforms.mturk.batch_publish import publish_batch
from flows.platforms.prolific import adapter as prolific
from flows.platforms.prolific.batches import apply_decisions, exclude_participants, record_submissions
from flows.platforms.prolific.submission_records import NOT_ON_PROLIFIC
from flows.platforms.registry import open_session
from flows.platforms.targets import check_target
from flows.platforms.units import hit_groups
from flows.sim.prolific.prolific_state import new_id
from flows.sim.service.server import SimServer
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import TaskServer
from tests.local_http import QuietHandler, local_http_server
from tests.test_campaign import make_run
from tests.test_task_server import CONFIG, answers_for

TOKEN = "abcDEF123456-secret_token"


# 2. the MTurk-simulator HTMLQuestion route ---------------------------------------------------
def test_extra_items_posted_to_an_html_question_never_reach_the_answers(sim, tmp_path: Path) -> None:
    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=50)
    publish_batch(run, 1)
    hit = run.store.rows("SELECT * FROM hits WHERE campaign = ? AND batch = 1 LIMIT 1", [run.cfg.name])[0]
    accepted = httpx.get(f"{sim.url}/mturk/accept", params={"hitId": hit["hit_id"], "workerId": "AHOSTILE1"})
    page = httpx.get(f"{sim.url}{accepted.headers['location']}" if accepted.status_code == 302 else accepted.url)
    values = answers_for(page.text)
    values["assignmentId"] = str(httpx.URL(accepted.headers["location"]).params["assignmentId"])
    foreign = hit_groups(run, 2)[0][1][0]["item_id"]  # a real campaign item this HIT never showed
    values.update({"image_id_7": foreign, "caption_7": "Planted.", "caption_9": "No id at all."})
    assert httpx.post(f"{sim.url}/mturk/externalSubmit", data=values).status_code == 200
    mine = [a for a in mturk.list_submissions(run.client, hit["hit_id"]) if a["WorkerId"] == "AHOSTILE1"]
    assert store_assignment(run, 1, hit, mine[0])
    items = {r["item_id"] for r in run.store.rows("SELECT DISTINCT item_id FROM answers WHERE item_id != ''")}
    assert items == set(json.loads(hit["item_ids"])) and foreign not in items


def test_answer_rows_keep_only_the_hits_items() -> None:
    xml = answer_xml({"image_id_0": "a", "caption_0": "x", "image_id_1": "b", "caption_1": "y",
                      "image_id_7": "z", "caption_7": "planted", "caption_8": "planted", "page_end_ms": "5"})
    rows = answer_rows("A1", xml, ["a", "b"])
    assert {(r["item_id"], r["field"]) for r in rows} == {("a", "caption"), ("b", "caption"), ("", "page_end_ms")}


# 3. Prolific: completed without stored work, forged sessions, the blocklist ---------------------
@pytest.fixture
def prolific_world(tmp_path: Path) -> Iterator[dict[str, Any]]:
    cfg = load_config(CONFIG)
    store = Store(tmp_path / "h.db")
    with SimServer(seed=4) as sim:
        plan_items(Run(cfg, store, None, mturk.Target("sim", sim.url)), limit=50)
        store.set_batch(cfg.name, 1, status="published")
        site = TaskSite(store.path, {cfg.name: cfg})  # the secret beside the store, as in a campaign run
        with TaskServer(site) as server:
            client = prolific.make_client(sim.url, simulator=True)
            run = Run(cfg, store, client, mturk.Target("sim", sim.url), lambda _: None, platform="prolific",
                      page=task_page)
            url = (f"{server.url}/task/{cfg.name}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}"
                   "&SESSION_ID={{%SESSION_ID%}}")
            code = completion_code(site.secret, cfg.name, 1)
            study = prolific.create_study(client, {
                "name": "t", "description": "d", "external_study_url": url, "prolific_id_option": "url_parameters",
                "completion_codes": [{"code": code, "code_type": "COMPLETED"}], "total_available_places": 2,
                "estimated_completion_time": 6, "reward": 90, "device_compatibility": ["desktop"]})
            store.table("studies").insert({"study_id": study, "campaign": cfg.name, "batch": 1, "status": "ACTIVE",
                                           "places": 2, "created_at": 0.0}, pk=("campaign", "study_id"))
            yield {"sim": sim, "run": run, "study": study, "code": code, "task": server.url, "store": store}


def fake_completion(world: dict[str, Any], pid: str, study_code: str | None) -> str:
    """A submission Prolific shows as completed, for which the task server stored nothing."""
    state = world["sim"].prolific
    sub = {"id": new_id(state.rng), "participant_id": pid, "study_id": world["study"], "status": "AWAITING REVIEW",
           "started_at": state.iso(state.now), "completed_at": state.iso(state.now), "study_code": study_code,
           "_started": state.now, "_finish_at": state.now, "_code": study_code or ""}
    state.submissions[sub["id"]] = sub
    return str(sub["id"])


def test_completed_on_prolific_with_nothing_stored_is_decided_with_a_reason(prolific_world: dict[str, Any]) -> None:
    run, study = prolific_world["run"], prolific_world["study"]
    with_code = fake_completion(prolific_world, "a" * 24, prolific_world["code"])
    without = fake_completion(prolific_world, "b" * 24, "NOCODE")
    record_submissions(run, 1, study)
    assert {r["has_response"] for r in prolific_world["store"].rows("SELECT has_response FROM platform_submissions")} \
        == {0}
    result = apply_decisions(run, 1, [])
    assert result["completed_without_response"] == 2
    subs = prolific_world["sim"].prolific.submissions
    assert subs[with_code]["status"] == "REJECTED" and subs[with_code]["rejection"]["category"] == "NO_DATA"
    assert subs[without]["status"] == "AWAITING REVIEW" and subs[without]["_return_requested_at"]
    outcome = {r["submission_id"]: r["outcome"] for r in prolific_world["store"].rows(
        "SELECT submission_id, outcome FROM platform_submissions")}
    assert outcome[with_code].startswith("reject: NO_DATA") and outcome[without].startswith("return: ")
    apply_decisions(run, 1, [])  # a second review acts on nothing twice (ledgered)
    assert subs[without]["status"] == "AWAITING REVIEW"


def test_a_forged_session_is_kept_out_of_qc_and_the_blocklist(prolific_world: dict[str, Any]) -> None:
    run, study, store = prolific_world["run"], prolific_world["study"], prolific_world["store"]
    http = httpx.Client(base_url=prolific_world["task"])
    page = http.get(f"/task/{run.cfg.name}", params={"PROLIFIC_PID": "forged-pid", "STUDY_ID": study,
                                                       "SESSION_ID": "forged-session"})
    done = http.post(f"/task/{run.cfg.name}/submit", data=answers_for(page.text))
    assert done.status_code == 303  # the server cannot tell yet; the join with Prolific can
    real = fake_completion(prolific_world, "c" * 24, prolific_world["code"])
    record_submissions(run, 1, study)
    status = store.rows("SELECT status FROM assignments WHERE assignment_id = 'forged-session'")[0]["status"]
    assert status == NOT_ON_PROLIFIC
    from flows.campaigns.batch_review import caption_frame

    assert "forged-pid" not in set(caption_frame(run, 1)["worker_id"])
    exclude_participants(run, ["forged-pid", "c" * 24])
    group = prolific.ensure_group(run.client, prolific.default_workspace(run.client),
                                  f"hitflow-{run.cfg.name}-blocked")
    members = {m.get("participant_id") or m.get("id")
               for m in prolific.every_page(run.client, f"participant-groups/{group}/participants/")}
    assert members == {"c" * 24} and real


# 5. the Prolific token -----------------------------------------------------------------------
@pytest.mark.parametrize("bad", [TOKEN + "\n" + TOKEN, "with space " + TOKEN, "short"])
def test_a_malformed_token_is_refused_without_being_echoed(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("PROLIFIC_TOKEN", bad)
    with pytest.raises(ConfigError) as err:
        prolific.make_client("http://127.0.0.1:9", simulator=False)
    assert TOKEN not in str(err.value) and "short" not in str(err.value) and "\n" not in str(err.value)


def test_a_run_with_a_newline_token_never_prints_it(sim, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN[:10] + "\n" + TOKEN[10:])  # a pasted token broken by a newline
    code = main(["run", str(CONFIG), "--no-prefect", "--limit", "5", "--out", str(tmp_path), "--platform", "prolific",
                 "--target", "prolific", "--live", "--endpoint-url", sim.url, "--db", str(tmp_path / "h.db")])
    out = capsys.readouterr()
    assert code == 2 and "Prolific token from PROLIFIC_TOKEN is malformed" in out.err
    for text in (out.out, out.err, caplog.text):
        assert TOKEN[:10] not in text and TOKEN[10:] not in text


def test_surrounding_whitespace_is_stripped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROLIFIC_TOKEN", f"  {TOKEN}\n")
    assert prolific.token(simulator=False) == TOKEN


def recording_client(pages: dict[str, dict[str, Any]], seen: list[httpx.Request]) -> prolific.ProlificClient:
    """A client whose transport answers from ``pages`` and records every request it was given."""
    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=pages[str(request.url).split("?")[0]])

    client = prolific.make_client("https://api.prolific.test", simulator=False)
    client.http = httpx.Client(base_url="https://api.prolific.test/api/v1/", transport=httpx.MockTransport(answer),
                               auth=client.http.auth, headers=client.http.headers)
    return client


def test_paging_never_follows_a_next_link_to_another_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    seen: list[httpx.Request] = []
    pages = {"https://api.prolific.test/api/v1/studies/s/submissions/": {
        "results": [{"id": 1}], "_links": {"next": {"href": "https://evil.example/api/v1/steal?page=2"}}}}
    with pytest.raises(PlatformError, match=r"outside https://api\.prolific\.test"):
        prolific.submissions(recording_client(pages, seen), "s")
    assert [r.url.host for r in seen] == ["api.prolific.test"]
    assert seen[0].headers["authorization"] == f"Token {TOKEN}"


def test_the_token_goes_only_to_the_configured_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    seen: list[httpx.Request] = []
    client = recording_client({"https://elsewhere.example/x": {}}, seen)
    client.http.get("https://elsewhere.example/x")
    assert "authorization" not in seen[0].headers


def test_a_transport_error_message_carries_no_header_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    client = prolific.make_client("http://127.0.0.1:9", simulator=False)  # nothing listens on port 9
    with pytest.raises(PlatformError) as err:
        prolific.call(client, "GET", "studies/")
    assert TOKEN not in str(err.value) and err.value.__cause__ is None and err.value.__context__ is not None


# 6. adoption by item digest ------------------------------------------------------------------
def test_a_fresh_run_never_adopts_another_runs_hits_with_other_items(sim, tmp_path: Path) -> None:
    first = make_run(sim, tmp_path / "first.db")
    plan_items(first, limit=50)
    publish_batch(first, 1)
    theirs = {r["hit_id"]: json.loads(r["item_ids"]) for r in first.store.rows("SELECT * FROM hits")}
    second = make_run(sim, tmp_path / "second.db")
    plan_items(second, limit=50)
    # the same campaign:batch:hit keys, but the items sit in other HITs (another order, another plan)
    second.store.db.execute("UPDATE items SET hit_index = 1 - hit_index WHERE campaign = ? AND batch = 1 "
                            "AND hit_index IN (0, 1)", [second.cfg.name])
    publish_batch(second, 1)
    ours = {r["hit_index"]: (r["hit_id"], json.loads(r["item_ids"])) for r in second.store.rows("SELECT * FROM hits")}
    planned = {index: [i["item_id"] for i in items] for index, items in hit_groups(second, 1)}
    assert {index: items for index, (_, items) in ours.items()} == planned
    for hit_id, items in ours.values():  # a HIT of the first run only when it shows the very same items
        assert theirs.get(hit_id, items) == items
    assert ours[0][0] not in theirs and ours[1][0] not in theirs  # the swapped pair was posted afresh
    assert sum(hit_id in theirs for hit_id, _ in ours.values()) == len(ours) - 2  # the rest adopted


# 8. the --live gate --------------------------------------------------------------------------
class _Impostor(QuietHandler):
    def do_GET(self) -> None:
        self.reply(b'{"ok": true}')


@pytest.fixture
def impostor() -> Iterator[str]:
    with local_http_server(_Impostor) as url:
        yield url


def test_a_non_simulator_endpoint_needs_live(sim, impostor: str) -> None:
    with pytest.raises(ConfigError, match="does not answer as a hitflow simulator"):
        check_target("sim", impostor, live=False)
    with pytest.raises(ConfigError, match="--live"), open_session("sim", impostor, live=False):
        pass
    with pytest.raises(ConfigError, match="hitflow simulator"), open_session("sim", impostor, platform="prolific"):
        pass
    check_target("sim", sim.url, live=False)  # a real simulator needs no --live
    with open_session("sim", sim.url) as session:
        assert session.target.kind == "sim"


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_config_endpoint_that_is_not_a_simulator_stops_the_run(impostor: str, tmp_path: Path, platform: str,
                                                                capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HITFLOW_ALLOW_OUTSIDE_PATHS", "1")  # the copy names the repo's files by absolute path
    text = CONFIG.read_text().replace('endpoint_url = ""', f'endpoint_url = "{impostor}"')
    text = text.replace('items = "', f'items = "{CONFIG.parent}/', 1)
    config = tmp_path / "c.toml"
    config.write_text(text)
    code = main(["run", str(config), "--no-prefect", "--limit", "5", "--out", str(tmp_path / "out"),
                 "--platform", platform])
    err = capsys.readouterr()
    assert code == 2 and "does not answer as a hitflow simulator" in err.err and "--live" in err.err
    assert "target: simulator" not in err.out and not (tmp_path / "out").exists()


# 9. a Prefect markdown artifact embeds participant ids escaped -------------------------------
def test_participant_ids_in_the_batch_artifact_are_inert(tmp_path: Path) -> None:
    hostile = "`</code><img src=x onerror=alert(1)>[click](javascript:alert(1))|col|\n# head"
    store = Store(tmp_path / "h.db")
    store.table("campaigns").insert({"name": "c", "config_path": "", "target": "sim", "created_at": 0.0,
                                     "status": "running", "config_json": json.dumps({"batches": 1})}, pk="name")
    store.table("blocks").insert({"campaign": "c", "worker_id": hostile, "batch": 1, "rules": "<b>rule</b>",
                                  "mode": "blocklist", "applied": "yes"})
    markdown, _ = batch_markdown(store, "c", 1)
    line = next(x for x in markdown.splitlines() if "img" in x)
    assert "<img" not in markdown and "<b>" not in markdown and "[click](" not in line
    assert [x for x in markdown.splitlines() if x.startswith("#")] == ["# c, batch 1"]
    assert "`" not in line.replace("\\`", "") and "|" not in line.replace("\\|", "")
    assert md_text(hostile).count("alert") == 2  # shown, not dropped
