"""Crowd pages a person can really submit, in Debian's Chromium: a hidden required
crowd-input that the page's own script fills (with setAttribute, after load) is read when the form
is submitted, as MTurk's elements read it, and crowd pages get browser-driven simulated workers, so
what stops a person stops the rehearsal too."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from flows.cli.main import main
from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import html_question
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_page
from flows.custom.scaffold import scaffold
from tests.small_configs import UNREHEARSED
from tests.test_browser_flickr import mine
from tests.test_browser_typing import NEEDS_CHROMIUM, on_shared_chromium

pytestmark = pytest.mark.browser
T = TypeVar("T")

# A star rating whose buttons write a hidden, required crowd-input by attribute, after the page loaded.
STARS = """{% extends "_crowd_page.html.j2" %}
{% block item %}
<p>{{ item.note }}</p>
<crowd-input name="rating_{{ i }}" required hidden></crowd-input>
<span class="stars" data-i="{{ i }}">
  <button type="button" data-stars="2">2 stars</button><button type="button" data-stars="4">4 stars</button>
</span>
<crowd-text-area name="why_{{ i }}" label="Why?" rows="2"></crowd-text-area>
<script>
document.querySelectorAll(".stars button").forEach(function (b) { b.addEventListener("click", function () {
  var i = b.parentNode.getAttribute("data-i");
  document.querySelector("crowd-input[name=rating_" + i + "]").setAttribute("value", b.getAttribute("data-stars"));
}); });
</script>
{% endblock %}
"""


def one_worker_each(toml: Path, images_per_hit: int = 3) -> None:
    """One assignment an item (the starter asks three): every browser worker is a real page in Chromium
    (~1.5 s of its CPU), and each test's point is what one worker's page posts or is refused."""
    text = toml.read_text(encoding="utf-8").replace("assignments_per_image = 3", "assignments_per_image = 1")
    toml.write_text(text.replace("images_per_hit = 3", f"images_per_hit = {images_per_hit}"), encoding="utf-8")


@pytest.fixture
def stars_project(tmp_path: Path) -> Path:
    scaffold("stars", tmp_path)
    (tmp_path / "config" / "stars.html.j2").write_text(STARS, encoding="utf-8")
    return tmp_path


def on_a_page(work: Callable[[Any], T]) -> T:
    """``work(page)`` on a page of its own in the browser workers' Chromium (the module's runs use it too): one
    Chromium, not the ``page`` fixture's (see ``on_shared_chromium``)."""
    def in_a_context(browser: Any) -> T:
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        try:
            return work(context.new_page())
        finally:
            context.close()
    return on_shared_chromium(in_a_context)


@NEEDS_CHROMIUM
def test_a_value_the_pages_script_sets_is_read_when_submitted(stars_project: Path, sim, client) -> None:
    cfg = load_config(stars_project / "config" / "stars.toml")
    rows = [{"item_id": "p1", "file_name": "", "url": "", "payload": json.dumps({"note": "A red bus."})}]
    hit_id = client.create_hit(Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=3600,
                               LifetimeInSeconds=86400, MaxAssignments=1, AutoApprovalDelayInSeconds=3600,
                               Question=html_question(custom_page(cfg, page_items(rows))))["HIT"]["HITId"]

    def rate(page: Any) -> None:
        page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=ASTARS01")
        page.click("button[data-stars='4']")
        page.click("#submit-btn")
        page.wait_for_load_state()
    on_a_page(rate)
    answer = mine(client, hit_id, "ASTARS01")
    assert answer["rating_0"] == "4"


def test_a_crowd_page_gets_browser_workers_and_its_script_built_answers_arrive(stars_project: Path,
                                                                              monkeypatch, capsys) -> None:
    # an item a page: a worker who clicks some of a page's star buttons leaves another item unrated, is
    # refused and hands the HIT on, worker after worker (each a page in Chromium) until it expires
    one_worker_each(stars_project / "config" / "stars.toml", images_per_hit=1)
    monkeypatch.chdir(stars_project)
    assert main(["run", "config/stars.toml", "--dry-run", *UNREHEARSED]) == 0
    assert "simulated workers: in a headless browser" in capsys.readouterr().out
    # whether the browser worker finishes before the HIT's virtual time runs out varies with
    # the machine's speed (a real browser against a virtual clock): what arrives is what is checked
    assert main(["run", "config/stars.toml", "--no-prefect", "--db", "h.db"]) in (0, 8, 10)
    con = sqlite3.connect(stars_project / "h.db")
    ratings = [v for (v,) in con.execute("SELECT value FROM answers WHERE field = 'rating'")]
    assert ratings and set(ratings) <= {"2", "4"}  # each set by the page's own buttons, as a person sets it


# MTurk's documented custom validation on a crowd-form: its onsubmit calls preventDefault() to keep the page.
OWN_CHECK = """{% extends "_crowd_page.html.j2" %}
{% block item %}
<p>{{ item.note }}</p>
<crowd-text-area name="why_{{ i }}" label="Why?" rows="2"></crowd-text-area>
<p id="own-error"></p>
<script>
document.querySelector("crowd-form").onsubmit = function (event) {
  if ((document.querySelector("crowd-text-area[name=why_0]").value || "").split(" ").length < 3) {
    event.preventDefault();
    document.getElementById("own-error").textContent = "Write three words or more.";
  }
};
</script>
{% endblock %}
"""


# The same check attached once MTurk says its elements are ready, as the crowd-elements samples attach theirs.
ON_READY = OWN_CHECK.replace('document.querySelector("crowd-form").onsubmit = function (event) {',
                             'document.addEventListener("all-crowd-elements-ready", function () {\n'
                             'document.querySelector("crowd-form").onsubmit = function (event) {'
                             ).replace("};\n</script>", "}; });\n</script>")


@NEEDS_CHROMIUM
@pytest.mark.parametrize("template", [OWN_CHECK, ON_READY], ids=["at-once", "on-ready"])
def test_the_pages_own_crowd_form_check_stops_the_submit(tmp_path: Path, sim, client, template: str) -> None:
    """The stand-in posted taskAnswers without running the page's own crowd-form submit check, so the
    rehearsal (and a person) could submit what the page refuses on MTurk."""
    scaffold("own", tmp_path)
    (tmp_path / "config" / "own.html.j2").write_text(template, encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "own.toml")
    rows = [{"item_id": "p1", "file_name": "", "url": "", "payload": json.dumps({"note": "A red bus."})}]
    hit_id = client.create_hit(Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=3600,
                               LifetimeInSeconds=86400, MaxAssignments=1, AutoApprovalDelayInSeconds=3600,
                               Question=html_question(custom_page(cfg, page_items(rows))))["HIT"]["HITId"]

    def answer_twice(page: Any) -> tuple[str, list]:
        page.goto(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=AOWNCHK01")
        page.fill("crowd-text-area[name=why_0] textarea", "Red")
        page.click("#submit-btn")
        page.wait_for_timeout(500)
        said, posted = page.inner_text("#own-error"), client.list_assignments_for_hit(HITId=hit_id)["Assignments"]
        page.fill("crowd-text-area[name=why_0] textarea", "A red bus")
        page.click("#submit-btn")
        page.wait_for_load_state()
        return said, posted
    said, posted = on_a_page(answer_twice)
    assert said == "Write three words or more."
    assert not posted  # the page kept it
    assert mine(client, hit_id, "AOWNCHK01")["why_0"] == "A red bus"


def test_a_page_nobody_can_submit_is_a_problem_and_never_posted(tmp_path: Path, monkeypatch, capsys) -> None:
    """A page that refuses every submit was posted, every browser worker gave its HIT back and the run ended
    blaming eligibility (exit 8): an honest simulated worker tries the page at the dry run, and
    the run posts nothing."""
    scaffold("never", tmp_path)
    refusing = STARS.replace("</script>", 'document.querySelector("crowd-form").onsubmit = function (event) {'
                             ' event.preventDefault(); };\n</script>', 1)
    (tmp_path / "config" / "never.html.j2").write_text(refusing, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/never.toml", "--dry-run"]) == 1
    assert "refused every time" in capsys.readouterr().out
    assert main(["run", "config/never.toml", "--no-prefect", "--db", "h.db"]) == 2
    tables = sqlite3.connect(tmp_path / "h.db").execute("SELECT name FROM sqlite_master").fetchall()
    assert ("hits",) not in tables or not sqlite3.connect(tmp_path / "h.db").execute(
        "SELECT count(*) FROM hits").fetchone()[0]  # nothing posted


@pytest.mark.slow
def test_a_page_that_refuses_some_items_is_said_once_and_a_rerun_adopts_its_hit(
        tmp_path: Path, monkeypatch, capsys) -> None:
    """Browser workers the page refuses give the HIT back, the page's defect said in one line (they left without
    a word, and the run's hint blamed eligibility); the HIT posted stays in the ledger, so a re-run adopts it.
    The page passes the dry run's trial (its first item) and refuses the train platform's item."""
    scaffold("never", tmp_path)
    refusing = STARS.replace("</script>", 'document.querySelector("crowd-form").onsubmit = function (event) {'
                             ' if (document.body.innerText.indexOf("train platform") >= 0) '
                             'event.preventDefault(); };\n</script>', 1)
    (tmp_path / "config" / "never.html.j2").write_text(refusing, encoding="utf-8")
    one_worker_each(tmp_path / "config" / "never.toml", images_per_hit=1)  # the trial's page is the bicycle's
    # a crowd of two: the refused HIT goes back to the crowd until its time runs out, and each worker who
    # takes it is a page in Chromium refused three times (the default crowd's two dozen cost ~30 s of CPU;
    # three workers one page more): two give it back, for the line said once
    (tmp_path / "crowd.toml").write_text('seed = 1\n[[profile]]\nname = "diligent"\ncount = 2\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    argv = ["run", "config/never.toml", "--no-prefect", "--db", "h.db", "--crowd", "crowd.toml"]
    code = main(argv)
    err = capsys.readouterr().err
    refused = [line for line in err.splitlines() if "the page refused the submit 3 times" in line]
    assert code in (8, 10) and "Traceback" not in err, err
    assert len(refused) == 1 and refused[0].startswith("hitflow sim: honest browser workers give HITs of type ")
    con = sqlite3.connect(tmp_path / "h.db")
    posted = con.execute("SELECT hit_id FROM hits").fetchall()
    answered = con.execute("SELECT DISTINCT hit_id FROM assignments").fetchall()
    assert len(posted) == 3 and len(answered) == 2  # the train platform's HIT given back by each who took it
    main(argv)
    assert sqlite3.connect(tmp_path / "h.db").execute("SELECT hit_id FROM hits").fetchall() == posted  # adopted


# Toggle buttons a person clicks (MTurk's <crowd-button>, not a form control) whose script writes the
# picked labels into a hidden field on submit: browser workers clicked only <button>s, posted "[]" on
# every assignment, and empty_answer held the whole batch.
TOGGLES = """{% extends "_crowd_page.html.j2" %}
{% block item %}
<p>{{ item.note }}</p>
<input id="tags" name="tags_{{ i }}" value="[]" type="hidden">
<div class="toggles"><crowd-button>Indoor</crowd-button> <crowd-button>Outdoor</crowd-button></div>
<script>
document.querySelectorAll(".toggles crowd-button").forEach(function (b) {
  b.onmouseup = function () { b.disabled = !b.disabled; };
});
document.querySelector("crowd-form").onsubmit = function () {
  tags.value = JSON.stringify(Array.from(document.querySelectorAll(".toggles crowd-button"))
    .filter(function (b) { return b.disabled; }).map(function (b) { return b.textContent.trim(); }));
};
</script>
{% endblock %}
"""


def test_browser_workers_click_a_pages_own_crowd_buttons(tmp_path: Path, monkeypatch) -> None:
    scaffold("toggles", tmp_path)
    (tmp_path / "config" / "toggles.html.j2").write_text(TOGGLES, encoding="utf-8")
    one_worker_each(tmp_path / "config" / "toggles.toml", images_per_hit=1)  # the script reads its field by id
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/toggles.toml", "--no-prefect", "--db", "h.db"]) in (0, 8)  # 10 (held) before
    con = sqlite3.connect(tmp_path / "h.db")
    tags = [json.loads(v) for (v,) in con.execute("SELECT value FROM answers WHERE field = 'tags'")]
    assert tags and all(t and set(t) <= {"Indoor", "Outdoor"} for t in tags), tags
