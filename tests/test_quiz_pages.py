"""The Prolific screening study of a page that keeps its items apart shows its control quiz one control a page
(flows/taskserver/quiz_pages.py): each submit opens the next, the last completes the study; a page sent again
reads as the page it was and its first answers stand; a choice left unpicked is kept blank and the quiz goes on.
Against hitflow's own task server over HTTP, on a planned ledger."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from flows.campaigns.campaign_plan import Run, plan_items
from flows.campaigns.task_kinds import load_campaign
from flows.core.http_clients import http_client
from flows.core.ledger.store import Store
from flows.core.pages.mturk_forms import form_fields
from flows.core.site_secrets import completion_code
from flows.platforms.mturk import adapter as mturk
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import TaskServer
from tests.test_script_pages_kept_apart import controlled

STUDY, PID, SESSION = "q" * 24, "p" * 24, "s" * 24


def hidden(page: str) -> dict[str, str]:
    return {f.name: f.value for f in form_fields(page) if f.kind == "hidden"}


def test_the_screening_study_serves_one_control_a_page_and_completes_on_the_last(tmp_path: Path, capsys) -> None:
    cfg = load_campaign(controlled(tmp_path, capsys), "prolific")
    store = Store(tmp_path / "h.db")
    plan_items(Run(cfg, store, None, mturk.Target("sim", "http://unused"), platform="prolific"))
    quiz = [k[0] for k in json.loads(store.rows("SELECT config_json FROM campaigns")[0]["config_json"])["quiz"]["key"]]
    store.table("studies").insert({"study_id": STUDY, "campaign": cfg.name, "batch": 0, "status": "ACTIVE",
                                   "places": 10, "created_at": 0.0}, pk=("campaign", "study_id"))
    site = TaskSite(tmp_path / "h.db", {cfg.name: cfg}, secret=b"k" * 32)
    link = {"PROLIFIC_PID": PID, "STUDY_ID": STUDY, "SESSION_ID": SESSION}
    shown, said = [], {}
    with TaskServer(site) as server, http_client(base_url=server.url, follow_redirects=False, timeout=60) as http:
        page = http.get(f"/task/{cfg.name}", params=link)
        for n in range(len(quiz)):
            ids = [v for k, v in hidden(page.text).items() if k.startswith("image_id_")]
            shown.append(ids)
            answer = {} if n == 2 else {"allowed_0": "no" if n % 2 else "yes", "leave_by_0": "" if n % 2 else "5 pm"}
            done = http.post(f"/task/{cfg.name}/submit", data={**hidden(page.text), **answer})
            said[ids[0]] = answer.get("allowed_0", "")
            if n == 0:  # the same page sent again, otherwise: it moves on, the first answer kept
                first = page
                again = http.post(f"/task/{cfg.name}/submit", data={**hidden(first.text), "allowed_0": "no"})
                assert again.status_code == 303 and again.headers["location"] == done.headers["location"]
            if n < len(quiz) - 1:
                assert done.status_code == 303 and parse_qs(urlparse(done.headers["location"]).query) == {
                    k: [v] for k, v in link.items()}  # the study's next page, for the same session
                page = http.get(done.headers["location"])
        assert done.status_code == 303 and done.headers["location"].endswith(
            "?cc=" + completion_code(site.secret, cfg.name, 0))
        # after the last, the page sent again completes again; an earlier page's too
        assert http.post(f"/task/{cfg.name}/submit", data=hidden(first.text)).headers["location"] == \
            done.headers["location"]
    assert shown == [[i] for i in quiz]  # one control a page, each once, in the quiz's order
    kept = {r["item_id"]: r["value"] for r in store.rows("SELECT item_id, value FROM answers WHERE assignment_id = ? "
                                                          "AND field = 'allowed'", [SESSION])}
    assert kept == said  # the first page's "yes" stands; the third's unpicked choice kept blank
    assert store.rows("SELECT batch, worker_id FROM assignments WHERE assignment_id = ?", [SESSION]) == [
        {"batch": 0, "worker_id": PID}]
