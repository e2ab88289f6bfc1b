"""Browser workers type: a page's own key logger records every character a
simulated worker types, a paste arrives as a paste event only where the worker's profile pastes, the
keys' timing on the page's clock is a person's; a page that refuses an honest browser worker is a
PROBLEM at the dry run and the run posts nothing; without Chromium the dry run and the run say so in
one line each (never "in a headless browser" while form-reading workers do the page)."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from flows.cli.main import main
from flows.core.config.config import load_config
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_page
from flows.custom.scaffold import scaffold
from flows.sim.pages import browser_check
from flows.sim.pages.browser_thread import SETTLE_S, BrowserThread
from flows.sim.people.crowd_model import PROFILE_DEFAULTS, Worker
from flows.sim.people.typing_model import caption_origin, typing_cps
from tests.small_configs import UNREHEARSED

T = TypeVar("T")
NEEDS_CHROMIUM = pytest.mark.skipif(bool(browser_check.missing()), reason=f"no browser: {browser_check.missing()}")
TEXT = "The Danube flows through ten countries before it reaches the Black Sea."
# the page's own record: a key count, each key's time on the page's clock, and the pastes it saw
LOGGER = """{% extends "_custom_page.html.j2" %}
{% block item %}
<p>{{ item.paragraph }}</p>
<textarea name="summary_{{ i }}" id="summary" required></textarea>
<input type="hidden" name="keylog_{{ i }}" id="keylog" value="">
<script>
  var times = [], pastes = [];
  var box = document.getElementById("summary");
  box.addEventListener("keydown", function () { times.push(performance.now()); });
  box.addEventListener("paste", function (e) { pastes.push(e.clipboardData.getData("text/plain").length); });
  document.getElementById("hit-form").addEventListener("submit", function (event) {
    if (REFUSE_UNTYPED && times.length < box.value.length / 2) { event.preventDefault(); return; }
    document.getElementById("keylog").value = JSON.stringify({times: times, pastes: pastes});
  });
</script>
{% endblock %}"""
REFUSING = """{% extends "_custom_page.html.j2" %}
{% block item %}
<p>{{ item.paragraph }}</p>
<input type="radio" name="fine_{{ i }}" value="yes" required> yes <input type="radio" name="fine_{{ i }}" value="no"> no
<input type="hidden" name="token_{{ i }}" id="token" value="">
<script>
  document.getElementById("hit-form").addEventListener("submit", function (event) {
    if (!window.verifyToken) { event.preventDefault(); return; }  // set by a script that never loads
    document.getElementById("token").value = window.verifyToken();
  });
</script>
{% endblock %}"""


def project(tmp_path: Path, page: str) -> Path:
    scaffold("typing", tmp_path)
    (tmp_path / "config" / "typing.html.j2").write_text(page, encoding="utf-8")
    (tmp_path / "config" / "typing_items.csv").write_text(f'item_id,paragraph\np1,"{TEXT}"\n', encoding="utf-8")
    return tmp_path / "config" / "typing.toml"


def rendered(tmp_path: Path, refuse_untyped: bool) -> str:
    cfg = load_config(project(tmp_path, LOGGER.replace("REFUSE_UNTYPED", str(refuse_untyped).lower())))
    rows = [{"item_id": "p1", "file_name": "", "url": "", "payload": json.dumps({"paragraph": TEXT})}]
    return custom_page(cfg, page_items(rows))


def worker(profile: str, n: int = 0) -> Worker:
    return Worker(f"AT{profile.upper()}{n}", profile, dict(PROFILE_DEFAULTS[profile]), 1000, 99)


def on_shared_chromium(work: Callable[[Any], T]) -> T:
    """``work(browser)`` on the browser workers' thread (flows/sim/pages/browser_thread.py), whose Chromium the
    module's runs and dry runs use too, rather than the ``browser`` fixture's (a module using that one keeps
    Playwright's loop marked running in its main thread: tests/conftest.py). Its answer, or what it raised (an
    assertion too), raised here."""
    done, out, raised = threading.Event(), [], []

    def job(browser: Any) -> None:
        try:
            if browser is None:
                raise RuntimeError("the browser workers' thread ended before this page")
            out.append(work(browser))
        except BaseException as exc:
            raised.append(exc)
        finally:
            done.set()
    BrowserThread.submit(job)
    assert done.wait(SETTLE_S), f"the shared Chromium did not finish within {SETTLE_S:.0f} s"
    if raised:
        raise raised[0]
    return out[0]


def worked(html: str, who: Worker) -> dict:
    from flows.sim.pages.browser_worker import work_page

    posted = on_shared_chromium(lambda browser: work_page(
        browser, html, {"assignmentId": "A1", "hitId": "H1", "workerId": who.worker_id}, {"summary_0": TEXT},
        random.Random(who.worker_id), who))
    assert posted is not None, f"{who.profile} never submitted"
    assert posted["summary_0"] == TEXT
    return json.loads(posted["keylog_0"])


@pytest.mark.browser
@NEEDS_CHROMIUM
def test_the_pages_key_logger_sees_every_typed_character_at_a_persons_pace(tmp_path: Path) -> None:
    html = rendered(tmp_path, refuse_untyped=False)
    for who in (worker("diligent"), worker("slow_typist"), worker("fast_typist")):
        log = worked(html, who)
        assert len(log["times"]) == len(TEXT) and log["pastes"] == []
        seconds = (log["times"][-1] - log["times"][0]) / 1000
        # the page's own clock: the text over the worker's typing speed (its bursts end a burst early)
        expected = len(TEXT) / typing_cps(who)
        assert 0.6 * expected <= seconds <= 1.1 * expected, (who.profile, seconds, expected)


@pytest.mark.browser
@NEEDS_CHROMIUM
def test_a_paste_event_only_where_the_profile_pastes(tmp_path: Path) -> None:
    html = rendered(tmp_path, refuse_untyped=False)
    paster = worker("copy_paster")
    assert caption_origin(paster, "x", TEXT, False) == "clipboard"  # a profile that pastes every text
    log = worked(html, paster)
    assert log["pastes"] == [len(TEXT)] and log["times"] == []
    partial = worker("partial_paster")
    log = worked(html, partial)
    assert len(log["pastes"]) == 1 and 0 < len(log["times"]) < len(TEXT)
    assert len(log["times"]) + log["pastes"][0] == len(TEXT)  # typed the start, pasted the rest


@pytest.mark.browser
@NEEDS_CHROMIUM
def test_a_worker_whose_paste_the_page_refuses_types_it_and_gets_through(tmp_path: Path) -> None:
    log = worked(rendered(tmp_path, refuse_untyped=True), worker("copy_paster"))
    assert log["pastes"] == [len(TEXT)] and len(log["times"]) >= len(TEXT)  # cleared and typed again


@pytest.mark.browser
def test_a_page_that_refuses_an_honest_worker_is_a_problem_and_is_never_posted(tmp_path: Path, monkeypatch,
                                                                              capsys) -> None:
    project(tmp_path, REFUSING)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/typing.toml", "--dry-run"]) == 1
    said = capsys.readouterr().out
    assert "simulated workers: in a headless browser" in said
    problem = [line for line in said.splitlines() if line.startswith("PROBLEM")]
    assert len(problem) == 1 and "refused every time" in problem[0]
    assert main(["run", "config/typing.toml", "--no-prefect", "--db", "h.db"]) == 2  # not exit 8, "is anyone eligible?"
    assert "refused every time" in capsys.readouterr().out
    posted = sqlite3.connect(tmp_path / "h.db").execute("SELECT count(*) FROM hits").fetchone()[0] \
        if (tmp_path / "h.db").exists() else 0
    assert posted == 0


def test_without_chromium_the_dry_run_and_the_run_say_form_reading_workers(tmp_path: Path, monkeypatch,
                                                                          capsys) -> None:
    project(tmp_path, LOGGER.replace("REFUSE_UNTYPED", "false"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HITFLOW_CHROMIUM", str(tmp_path / "no-chromium-here"))
    monkeypatch.setattr(browser_check, "_said", set())  # said once a process: this test's run is the one
    assert main(["run", "config/typing.toml", "--dry-run", *UNREHEARSED]) == 0  # the line is the plan's
    said = capsys.readouterr().out
    assert "in a headless browser" not in said
    line = [x for x in said.splitlines() if x.startswith("simulated workers:")]
    assert len(line) == 1 and "NOT in a browser" in line[0] and "make browser-deps" in line[0]
    monkeypatch.setattr(browser_check, "_said", set())  # the run is a command of its own (its rehearsal said it)
    assert main(["run", "config/typing.toml", "--no-prefect", "--db", "h.db"]) == 0
    err = capsys.readouterr().err
    assert err.count("form-reading workers do the pages that ask for browser workers") == 1
    assert "make browser-deps" in err


@pytest.mark.browser
def test_an_imported_page_that_wants_typing_gets_every_assignment(tmp_path: Path, monkeypatch) -> None:
    """The own-page rehearsal work's page: its script logs key presses into a hidden field and refuses a submit without
    them. Browser workers that set text without key events were refused three times each and the run
    exited 8 blaming eligibility; now every assignment arrives with the page's key log."""
    page = Path(__file__).parent / "pages_wild" / "keylog_summary.html"
    assert main(["new", "keylog", "--from", str(page), "--dir", str(tmp_path)]) == 0
    (tmp_path / "config" / "keylog_items.csv").write_text(
        f'item_id,paragraph\np1,"{TEXT}"\np2,"Whisk the eggs with sugar until the mixture turns pale and thick."\n',
        encoding="utf-8")
    # people who type and people who paste (whose paste the page refuses: they type it then); a worker who
    # leaves the box empty is refused by the page's own rule, as a person would be, so none is in this crowd
    crowd = "seed = 5\n" + "".join(f'[[profile]]\nname = "{p}"\ncount = 2\n' for p in (
        "diligent", "fast_typist", "note_paster", "copy_paster", "assistant_paster", "partial_paster"))
    (tmp_path / "crowd.toml").write_text(crowd, encoding="utf-8")
    toml = tmp_path / "config" / "keylog.toml"  # two workers an item: each is a page typed in Chromium
    toml.write_text(toml.read_text().replace("assignments_per_image = 3", "assignments_per_image = 2"))
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/keylog.toml", "--no-prefect", "--db", "h.db", "--crowd", "crowd.toml"]) == 0
    con = sqlite3.connect(tmp_path / "h.db")
    rows = dict(con.execute("SELECT assignment_id, value FROM answers WHERE field = 'keylog'").fetchall())
    texts = dict(con.execute("SELECT assignment_id, value FROM answers WHERE field = 'summary'").fetchall())
    assert len(rows) == 4 and rows.keys() == texts.keys()
    keys = {a: len(log.split(",")) for a, log in rows.items()}
    assert min(keys.values()) >= 5  # the page's own rule, met by everyone (a partial paster types the start)
    assert sum(keys[a] >= len(texts[a]) for a in rows) >= 3  # those who type it all: a key a character
