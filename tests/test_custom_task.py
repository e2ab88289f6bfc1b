"""A campaign on the user's own page, and the simulator doing any page a plain boto3 client posts:
HTMLQuestion, ExternalQuestion (a page of its own server, and hitflow's task server) and QuestionForm."""

from __future__ import annotations

import json
import re
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd
import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.campaigns.task_pages import task_page
from flows.cli.main import main
from flows.core.config.config import load_config
from flows.core.errors import ConfigError, InputFormatError
from flows.core.ledger.store import Store
from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_page, custom_spec, read_custom_items
from flows.custom.scaffold import scaffold
from flows.platforms.mturk import adapter as mturk
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import TaskServer
from qc.form_constraints import check_form
from tests.conftest import advance
from tests.forked_hitflow import ForkServer
from tests.local_http import QuietHandler, local_http_server

ANSWERS_NS = "{http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd}"
USER_PAGE = """<!DOCTYPE html><html><body>
<script src="https://assets.crowd.aws/crowd-html-elements.js"></script>
<form name="mturk_form" method="post" id="mturk_form" action="https://www.mturk.com/mturk/externalSubmit">
<input type="hidden" value="" name="assignmentId" id="assignmentId"/>
<img src="https://example.org/street.jpg" alt="a street">
<p>A busy street market with fruit stalls under striped awnings and a man pushing a cart.</p>
<p>Describe the photo for someone who cannot see it.</p>
<textarea name="description" required minlength="30" maxlength="250"></textarea>
<p>Is there any text in the photo?</p>
<input type="radio" name="has_text" value="yes" required> yes <input type="radio" name="has_text" value="no"> no
<p>What do you see?</p>
<input type="checkbox" name="objects" value="people"> <input type="checkbox" name="objects" value="fruit">
<input type="checkbox" name="objects" value="cars">
<select name="time_of_day" required><option value="">pick one</option><option value="day">day</option>
<option value="night">night</option></select>
<input type="submit"></form></body></html>"""
HTML_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2011-11-11/HTMLQuestion.xsd"
EXTERNAL_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"


def plain_answers(xml: str) -> dict[str, str]:
    """QuestionFormAnswers read with the standard library only (what a user's own client does)."""
    out = {}
    for answer in ET.fromstring(xml).iter(f"{ANSWERS_NS}Answer"):
        name = answer.findtext(f"{ANSWERS_NS}QuestionIdentifier") or ""
        free = answer.find(f"{ANSWERS_NS}FreeText")
        picks = [e.text or "" for e in answer.iter(f"{ANSWERS_NS}SelectionIdentifier")]
        out[name] = (free.text or "") if free is not None else "|".join(picks)
    return out


def honest_answers(client: Any, sim: Any, hit_id: str, wait_s: float = 0.0) -> list[dict[str, str]]:
    """The answers of workers the simulator's ground truth says are not rule breakers."""
    deadline = time.monotonic() + wait_s
    while True:
        subs = client.list_assignments_for_hit(HITId=hit_id, MaxResults=100)["Assignments"]
        if len(subs) >= 3 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
        advance(sim, 3600)
    truth = {w["worker_id"]: w["profile"] for w in sim.market.ground_truth()}
    return [{**plain_answers(a["Answer"]), "_profile": truth[a["WorkerId"]]} for a in subs
            if truth[a["WorkerId"]] != "rule_breaker"]


def create(client: Any, question: str, n: int = 5) -> str:
    return client.create_hit(MaxAssignments=n, LifetimeInSeconds=86400, AssignmentDurationInSeconds=3600,
                             Reward="0.20", Title="Describe a photo", Description="One photo, four questions",
                             Question=question)["HIT"]["HITId"]


def three_days_of_answers(client: Any, sim: Any, question: str, n: int = 5) -> list[dict[str, str]]:
    """A HIT of ``question`` posted, three virtual days later its honest workers' answers (three or more)."""
    hit_id = create(client, question, n)
    advance(sim, 3 * 86400)
    answers = honest_answers(client, sim, hit_id)
    assert len(answers) >= 3
    return answers


def test_a_plain_boto3_html_question_gets_every_field_answered_within_its_constraints(client, sim) -> None:
    question = (f'<HTMLQuestion xmlns="{HTML_NS}"><HTMLContent><![CDATA[{USER_PAGE}]]></HTMLContent>'
                "<FrameHeight>600</FrameHeight></HTMLQuestion>")
    # nine assignments: with five, 2 of 40 simulator seeds drew no diligent or typo-prone worker at all, and the
    # CI run of 2026-11-24 drew such a crowd (which workers arrive depends on timing, not only on the seed)
    answers = three_days_of_answers(client, sim, question, n=9)
    for a in answers:
        assert 30 <= len(a["description"]) <= 250
        assert a["has_text"] in ("yes", "no") and a["time_of_day"] in ("day", "night")
        assert set(filter(None, a["objects"].split("|"))) <= {"people", "fruit", "cars"}
    # careful workers write what the page shows, not an unrelated sentence (speeders and pasters need not)
    careful = [a["description"].lower() for a in answers if a["_profile"] in ("diligent", "typo_prone")]
    named = re.compile(r"\b(?:busy|street|market|fruit|stalls|awnings|cart)\b")  # the item's words
    assert careful and all(named.search(text) for text in careful), careful


class _UserSite(QuietHandler):
    seen: ClassVar[list[str]] = []  # the paths the simulated workers opened

    def do_GET(self) -> None:
        self.seen.append(self.path)
        self.reply(USER_PAGE.encode(), "text/html; charset=utf-8")


@pytest.fixture
def user_site() -> Iterator[str]:
    with local_http_server(_UserSite) as url:
        yield url


def test_an_external_question_page_is_fetched_from_its_url_and_filled(client, sim, user_site: str) -> None:
    question = (f'<ExternalQuestion xmlns="{EXTERNAL_NS}"><ExternalURL>{user_site}/task?x=1</ExternalURL>'
                "<FrameHeight>600</FrameHeight></ExternalQuestion>")
    hit_id = create(client, question)
    advance(sim, 3 * 86400)
    answers = honest_answers(client, sim, hit_id, wait_s=20)
    assert len(answers) >= 3 and all(30 <= len(a["description"]) <= 250 for a in answers)
    assert all("assignmentId" not in a for a in answers)
    assert any(f"hitId={hit_id}" in p and "assignmentId=" in p for p in _UserSite.seen)


def test_a_question_form_hit_gets_free_text_and_selections(client, sim) -> None:
    from tests.test_any_form import QUESTION_FORM

    for a in three_days_of_answers(client, sim, QUESTION_FORM):
        assert 15 <= len(a["summary"]) <= 120 and 1 <= int(a["age"]) <= 40
        assert a["colour"] in ("red", "blue") and 1 <= len(a["parts"].split("|")) <= 2


# --- a campaign on the user's own page ----------------------------------------------------------

@pytest.fixture
def project(tmp_path: Path) -> Path:
    scaffold("demo_task", tmp_path)
    return tmp_path


def test_hitflow_new_then_run_writes_a_dataset_with_every_field_answered(project: Path, monkeypatch) -> None:
    monkeypatch.chdir(project)
    assert main(["new", "other_task", "--dir", str(project)]) == 0
    assert main(["new", "other_task", "--dir", str(project)]) == 2  # nothing is overwritten
    assert main(["run", "config/demo_task.toml", "--no-prefect"]) == 0
    out = project / "runs" / "demo_task"
    data = pd.read_csv(out / "dataset.csv", keep_default_na=False, dtype=str)
    assert set(data["field"]) == {"description", "has_text", "problems", "setting", "people"}
    assert set(data["item_id"]) == {"photo-001", "photo-002", "photo-003"}
    assert (data["value"] != "").all() and (data["decision"] == "approve").all()
    assert data.groupby(["assignment_id", "item_id"]).size().eq(5).all()  # one row per assignment x item x field
    everything = pd.read_csv(out / "responses.csv", keep_default_na=False, dtype=str)
    assert len(everything) >= len(data) and set(everything["decision"]) <= {"approve", "reject"}
    items = json.loads((out / "dataset.json").read_text())["items"]
    assert items[0]["note"].startswith("A red bicycle") and items[0]["responses"]
    report = (out / "report.html").read_text()
    assert "description" in report and "minlength=20" in report
    assert (out / "flags.csv").is_file() and (out / "sim_workers.json").is_file()


def test_dry_run_reports_fields_rules_and_the_largest_page(project: Path, capsys) -> None:
    assert main(["run", str(project / "config" / "demo_task.toml"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "fields found: description, has_text, problems, setting, people" in out
    assert "rule description_0 (textarea): required, minlength=20, maxlength=300" in out
    assert "rule people_0 (number): required, min=0, max=50, step=1" in out
    assert "of 65535 bytes" in out


HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>"\' {{ 7*7 }} {% raw %}'


def test_hostile_item_text_is_rendered_inert(project: Path) -> None:
    items = project / "config" / "demo_task_items.csv"
    items.write_text('item_id,image_url,note\nx1,javascript:alert(3),"' + HOSTILE.replace('"', '""') + '"\n',
                     encoding="utf-8")
    cfg = load_config(project / "config" / "demo_task.toml")
    with pytest.raises(InputFormatError, match=r"demo_task_items.csv:2: image_url 'javascript:alert\(3\)' must be"):
        read_custom_items(cfg)
    row = {"item_id": "x1", "file_name": "", "url": "", "payload": json.dumps({"image_url": "javascript:alert(3)",
                                                                              "note": HOSTILE})}
    page = custom_page(cfg, page_items([row]))
    assert "<script>alert(1)" not in page and "<img src=x" not in page and "javascript:" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "{{ 7*7 }}" in page.replace("&#39;", "'")
    assert "49" not in page.split("Photographer")[1][:200]  # item text is never evaluated as a template


def test_the_page_carries_the_rules_its_controls_declare(project: Path) -> None:
    cfg = load_config(project / "config" / "demo_task.toml")
    rows = [{"item_id": f"p{i}", "file_name": "", "url": "", "payload": json.dumps(
        {"image_url": "https://example.org/a.jpg", "note": "A note."})} for i in range(2)]
    page = custom_page(cfg, page_items(rows))
    embedded = json.loads(page.split('id="submit-rules">')[1].split("</script>")[0])
    assert embedded == custom_spec(cfg, page_items(rows)) == form_spec(form_fields(page))
    assert check_form(embedded, {}) and len(embedded["fields"]) == 10


@pytest.mark.parametrize(("edit", "message"), [
    (('template = "demo_task.html.j2"', 'template = "missing.html.j2"'), "[campaign].template points at"),
    (('template = "demo_task.html.j2"', ''), 'template is required when task = "custom"'),
    (('task = "custom"', 'task = "caption"'), 'template is only read when task = "custom"'),
])
def test_config_mistakes_get_one_clear_line(project: Path, edit: tuple[str, str], message: str) -> None:
    path = project / "config" / "demo_task.toml"
    path.write_text(path.read_text().replace(*edit), encoding="utf-8")
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_config(path)


def test_a_template_that_breaks_is_one_clear_line(project: Path, capsys) -> None:
    (project / "config" / "demo_task.html.j2").write_text("{% extends '_custom_page.html.j2' %}{% block item %}"
                                                          "{{ item.no_such_column }}{% endblock %}")
    code = main(["run", str(project / "config" / "demo_task.toml"), "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2 and "demo_task.html.j2" in err and "no_such_column" in err and len(err.splitlines()) == 1


def test_hitflows_task_server_page_as_an_external_question(project: Path, client, sim) -> None:
    cfg = load_config(project / "config" / "demo_task.toml")
    store = Store(project / "h.db")
    plan_items(Run(cfg, store, None, mturk.Target("sim", "http://unused")))
    ids = [r["item_id"] for r in store.rows("SELECT item_id FROM items WHERE campaign = ? ORDER BY rowid",
                                            [cfg.name])]
    with TaskServer(TaskSite(store.path, {cfg.name: cfg}, secret=b"s" * 32)) as server:
        question = (f'<ExternalQuestion xmlns="{EXTERNAL_NS}"><ExternalURL>{server.url}/task/{cfg.name}'
                    "</ExternalURL><FrameHeight>600</FrameHeight></ExternalQuestion>")
        hit_id = create(client, question, n=4)
        store.table("hits").insert({"hit_id": hit_id, "campaign": cfg.name, "batch": 1, "hit_index": 0,
                                    "item_ids": json.dumps(ids), "status": "posted"}, pk=("campaign", "hit_id"))
        advance(sim, 3 * 86400)
        answers = honest_answers(client, sim, hit_id, wait_s=30)
    spec = custom_spec(cfg, page_items(store.rows("SELECT * FROM items WHERE campaign = ? ORDER BY rowid",
                                                  [cfg.name])))
    assert len(answers) >= 3
    assert all(check_form(spec, a) == [] for a in answers)
    assert all(a["image_id_0"] == "photo-001" for a in answers)


def test_prolific_participants_do_a_custom_page_on_the_task_server(project: Path, monkeypatch) -> None:
    monkeypatch.chdir(project)
    assert main(["run", "config/demo_task.toml", "--no-prefect", "--platform", "prolific"]) == 0
    data = pd.read_csv(project / "runs" / "demo_task" / "responses.csv", keep_default_na=False, dtype=str)
    assert data["assignment_id"].nunique() >= 2 and set(data["field"]) >= {"description", "people"}


def test_hitflow_sim_serve_as_its_own_process_does_a_plain_boto3_page(tmp_path: Path,
                                                                      hitflow_forks: ForkServer) -> None:
    """The done-when check as a user runs it: `hitflow sim serve` in another process, boto3 alone (the process
    forked from the session's server, tests/forked_hitflow.py: its own, without importing hitflow again)."""
    import socket
    import subprocess

    import boto3

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = hitflow_forks.popen(["sim", "serve", "--port", str(port), "--speed", "100000"], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None and "target: simulator" in server.stdout.readline()
        mturk_client = boto3.client("mturk", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                                    aws_access_key_id="dummy", aws_secret_access_key="dummy")
        question = (f'<HTMLQuestion xmlns="{HTML_NS}"><HTMLContent><![CDATA[{USER_PAGE}]]></HTMLContent>'
                    "<FrameHeight>600</FrameHeight></HTMLQuestion>")
        hit_id = create(mturk_client, question)
        deadline, subs = time.monotonic() + 30, []
        while len(subs) < 5 and time.monotonic() < deadline:
            time.sleep(0.3)
            subs = mturk_client.list_assignments_for_hit(HITId=hit_id, MaxResults=100)["Assignments"]
        answers = [plain_answers(a["Answer"]) for a in subs]
        full = [a for a in answers if 30 <= len(a["description"]) <= 250 and a["has_text"] in ("yes", "no")
                and a["time_of_day"] in ("day", "night")]
        assert len(subs) == 5 and len(full) >= 3  # a rule breaker may post around the page
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_task_server_response_is_checked_against_the_page_its_items_make(project: Path) -> None:
    """Prolific and link responses have no HIT: their own item ids say which page they answered."""
    from flows.core.pages.mturk_forms import answer_xml
    from flows.custom.custom_review import custom_qc_batch

    cfg = load_config(project / "config" / "demo_task.toml")
    store = Store(project / "h.db")
    run = Run(cfg, store, None, mturk.Target("sim", "http://unused"), progress=lambda _: None, page=task_page)
    plan_items(run)
    good = {"image_id_0": "photo-001", "description_0": "A red bicycle against a fence in the sun.",
            "has_text_0": "no", "problems_0": "none", "setting_0": "outdoor", "people_0": "0"}
    for k, item in ((1, "photo-002"), (2, "photo-003")):
        good |= {f"image_id_{k}": item, **{f"{n}_{k}": good[f"{n}_0"] + ("" if n != "description" else f" {k}")
                                           for n in ("description", "has_text", "problems", "setting", "people")}}
    bypassed = {**good, "setting_1": "", "people_2": "7.5", "problems_0": "none|blurry|melted"}
    for n, values in enumerate((good, bypassed)):
        store.table("assignments").insert({"assignment_id": f"R{n}", "hit_id": "study:u0", "campaign": cfg.name,
                                           "batch": 1, "worker_id": f"P{n}", "status": "AWAITING REVIEW",
                                           "accept_time": 0.0, "submit_time": 90.0,
                                           "answer_xml": answer_xml(values), "parse_error": ""})
    custom_qc_batch(run, 1)
    flags = store.rows("SELECT worker_id, rule, detail FROM qc_flags WHERE rule = 'invalid_answer'")
    assert [f["worker_id"] for f in flags] == ["P1"]
    assert flags[0]["detail"] == "problems_0: not_an_option; setting_1: required, left blank; people_2: step"


@pytest.mark.parametrize("probe", ["{{ ''.__class__.__mro__[1].__subclasses__() }}",
                                   "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
                                   "{{ items.append(1) }}"])
def test_a_template_cannot_reach_python_through_the_sandbox(project: Path, probe: str) -> None:
    (project / "config" / "demo_task.html.j2").write_text(
        "{% extends '_custom_page.html.j2' %}{% block item %}" + probe + "{% endblock %}", encoding="utf-8")
    cfg = load_config(project / "config" / "demo_task.toml")
    row = {"item_id": "x1", "file_name": "", "url": "", "payload": json.dumps({"note": "n"})}
    with pytest.raises(ConfigError, match=r"demo_task\.html\.j2:\d+: .*unsafe"):
        custom_page(cfg, page_items([row]))


class _SlowSite(_UserSite):
    ready = threading.Event()

    def do_GET(self) -> None:
        if not self.ready.is_set():
            self.reply(b"", status=503)
            return
        super().do_GET()


def test_a_reopened_simulator_opens_the_external_pages_its_workers_had_taken(tmp_path: Path) -> None:
    import boto3

    from flows.sim.service.server import SimServer

    with local_http_server(_SlowSite) as site:
        question = (f'<ExternalQuestion xmlns="{EXTERNAL_NS}"><ExternalURL>{site}/t'
                    "</ExternalURL><FrameHeight>600</FrameHeight></ExternalQuestion>")
        with SimServer(seed=3, state=tmp_path / "sim.db") as first:
            boto = boto3.client("mturk", endpoint_url=first.url, region_name="us-east-1",
                                aws_access_key_id="d", aws_secret_access_key="d")
            hit_id = create(boto, question, n=3)
            first.market.advance(0)  # workers are chosen when the clock moves
            taken = len(first.market.hits[hit_id].assignment_ids)
        _SlowSite.ready.set()  # the page comes up only after the first process is gone
        with SimServer(seed=3, state=tmp_path / "sim.db") as again:
            boto = boto3.client("mturk", endpoint_url=again.url, region_name="us-east-1",
                                aws_access_key_id="d", aws_secret_access_key="d")
            assert taken == 3
            answers = honest_answers(boto, again, hit_id, wait_s=20)
        assert answers and all(30 <= len(a["description"]) <= 250 for a in answers)
