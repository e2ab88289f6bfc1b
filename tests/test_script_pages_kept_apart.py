"""A requester's page written for one item, whose own script finds its fields by id or name, never shows two items
on one page on Prolific: copied once an item onto one page, each copy's script would read the first item's box,
and a person whose first item is "no" and a later one "yes" would be refused. A page whose script reads no field
stacks as before."""

from __future__ import annotations

import json
import re
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from flows.answers.control_quiz import quiz_record
from flows.campaigns.task_kinds import load_campaign
from flows.cli.main import main
from flows.core.ledger.store import Store
from flows.custom.custom_task import custom_item_plan
from flows.custom.item_ids import fields_scripts_find
from flows.driver.campaign_status import campaign_status
from flows.sim.pages.browser_check import missing
from flows.sim.people.crowd_model import HONEST_PROFILES
from flows.sim.service.server import SimServer
from tests.small_configs import UNREHEARSED

CHECKED = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Can this driver park here?</title></head><body>
<p>Sign: ${sign}</p>
<form id="f" method="post" action="https://www.mturk.com/mturk/externalSubmit" onsubmit="return checkAnswers();">
<p>Is the driver allowed to park here?</p>
<label><input type="radio" name="allowed" value="yes" required> Yes</label>
<label><input type="radio" name="allowed" value="no"> No</label>
<p>If yes: until what time? Leave this empty if you answered No.</p>
<input type="text" name="leave_by" id="leave_by" maxlength="12">
<p id="err"></p>
<p><input type="submit" value="Submit"></p>
</form>
<script>
function checkAnswers() {
  var chosen = document.querySelector('input[name="allowed"]:checked');
  var t = document.getElementById('leave_by').value.trim();
  if (chosen && chosen.value == 'yes' && t == '') {
    document.getElementById('err').innerHTML = 'You answered Yes: please write the time.';
    return false;
  }
  return true;
}
</script>
</body></html>
"""
# the same page with a script that reads none of its fields
UNCHECKED = CHECKED.replace("document.getElementById('leave_by').value.trim()", "''").replace(
    "document.querySelector('input[name=\"allowed\"]:checked')", "null")
ITEMS = 12
RUN_ITEMS = 3  # the runs in Chromium, one item a place, 3 pages an item in a browser (2 items gave one answer)


def imported(tmp_path: Path, page: str, capsys, items: int = ITEMS) -> Path:
    (tmp_path / "park.html").write_text(page, encoding="utf-8")
    (tmp_path / "park_items.csv").write_text("item_id,sign\n" + "".join(
        f"s{i},NO PARKING {i} AM TO {i + 1} PM\n" for i in range(items)), encoding="utf-8")
    assert main(["new", "park", "--from", str(tmp_path / "park.html"), "--dir", str(tmp_path),
                 "--items", str(tmp_path / "park_items.csv")]) == 0
    capsys.readouterr()
    return tmp_path / "config" / "park.toml"


@pytest.mark.parametrize(("script", "found"), [
    ("document.getElementById('box').value", ("note",)),  # by the field's id
    ("document.querySelector('#box').value", ("note",)),
    ('$("input[name=note_{{ i }}]").val()', ()),  # by the item's own name: each copy finds its own
    ("block.querySelector('[name^=\"note\"]')", ()),  # by the start every item's name shares
    ("document.forms[0].elements['note'].value", ("note",)),
    ('document.querySelectorAll("[name=note]")', ("note",)),
    ("var notes = 'note taking';", ()),  # a word in a string, not a field's id or name
])
def test_the_fields_a_script_finds_by_a_shared_id_or_name(script: str, found: tuple[str, ...]) -> None:
    page = f'<textarea name="note_{{{{ i }}}}" id="box"></textarea><script>{script}</script>'
    assert fields_scripts_find(page, frozenset({"note"})) == found


def test_a_page_whose_script_reads_its_fields_is_one_item_a_page_and_says_why(tmp_path: Path, capsys) -> None:
    config = imported(tmp_path, CHECKED, capsys)  # a Prolific place's items one a page: test_kept_apart_places.py
    assert load_campaign(config, "mturk").images_per_hit == 1
    assert main(["run", str(config), "--dry-run", "--platform", "prolific", "--db", str(tmp_path / "h.db"),
                 "--out", str(tmp_path / "o"), *UNREHEARSED]) == 0
    notes = [ln for ln in capsys.readouterr().out.splitlines() if "a place holds" in ln]
    assert len(notes) == 1 and "leave_by" in notes[0] and "allowed" not in notes[0], notes  # by name, per item


def test_a_page_whose_script_reads_no_field_stacks_as_before(tmp_path: Path, capsys) -> None:
    config = imported(tmp_path, UNCHECKED, capsys)
    cfg = load_campaign(config, "prolific")
    assert cfg.images_per_hit > 1 and load_campaign(config, "mturk").images_per_hit == 1


@pytest.mark.browser
@pytest.mark.skipif(bool(missing()), reason=f"browser workers: {missing()}")
@pytest.mark.timeout(900, method="signal")
def test_no_honest_participant_is_refused_by_the_page_s_own_check(tmp_path: Path, capsys, monkeypatch) -> None:
    from flows.driver.campaign_run import run_campaign

    monkeypatch.chdir(tmp_path)
    config = imported(tmp_path, CHECKED, capsys, RUN_ITEMS)
    config.write_text(config.read_text(encoding="utf-8") + '\n[target]\nsim_workers = "browser"\n', "utf-8")
    with SimServer(seed=3) as sim:
        run_campaign(config, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path / "runs",
                     progress=lambda _: None, platform="prolific")
        subs = list(sim.prolific.submissions.values())
    profile = {w["worker_id"]: w["profile"] for w in json.loads((tmp_path / "runs" / "park" / "sim_workers.json")
                                                                 .read_text(encoding="utf-8"))}
    honest = [s for s in subs if profile.get(s["participant_id"]) in HONEST_PROFILES]
    with sqlite3.connect(tmp_path / "h.db") as db:
        said = {v for (v,) in db.execute("SELECT value FROM answers WHERE field = 'allowed'")}
    assert honest and said == {"yes", "no"}  # answers that differ between items: what a shared box breaks
    assert [s for s in honest if s.get("_gave_up")] == []  # none refused by the page and handing the place back
    assert "honest browser workers give" not in capsys.readouterr().err


def controlled(tmp_path: Path, capsys, items: int = ITEMS) -> Path:
    """The checked page with a controls file of 15 on its choice field, at a share of 0.1 (a quiz of 15)."""
    config = imported(tmp_path, CHECKED, capsys, items)
    (tmp_path / "config" / "park_controls.csv").write_text("item_id,field,answer,sign\n" + "".join(
        f"c{i},allowed,{'yes' if i % 2 else 'no'},PARKING {i} AM TO {i + 2} PM\n" for i in range(15)), "utf-8")
    text = config.read_text(encoding="utf-8")
    text = re.sub(r'^budget = "[^"]*"', 'budget = "1000.00 USD"', text, flags=re.M)  # the quiz's study is dear
    config.write_text(text.replace('# controls = "park_controls.csv"', 'controls = "park_controls.csv"')
                      .replace("# control_share = 0.1", "control_share = 0.1"), encoding="utf-8")
    return config


def test_such_a_page_takes_its_control_quiz_on_prolific_one_control_a_page_timed_as_such(tmp_path: Path,
                                                                                         capsys) -> None:
    config = controlled(tmp_path, capsys)
    prolific, mturk = load_campaign(config, "prolific"), load_campaign(config, "mturk")
    assert mturk.answers.quiz > 0  # MTurk's quiz is a qualification test: one control a page, never stacked
    assert prolific.answers.quiz == mturk.answers.quiz and prolific.prolific.screening is not None
    assert any("one a page" in note and "leave_by" in note for note in prolific.notes), prolific.notes
    assert not any("no control quiz" in note for note in prolific.notes)
    # the 13 controls the pages leave (of 15), a page each, read (30 s) and its choice (6 s) and time box (40 s)
    # answered: 16 min, not one page's 12, nor the 19 of all 15
    assert len(quiz_record(prolific, custom_item_plan(prolific))["key"]) == 13
    assert prolific.prolific.screening[1] == 16
    assert main(["run", str(config), "--dry-run", "--platform", "prolific", "--db", str(tmp_path / "h.db"),
                 "--out", str(tmp_path / "o"), *UNREHEARSED]) == 0
    said = capsys.readouterr().out
    assert "(the control quiz alone, 16 min" in said and "allowlist=screened" in said


@pytest.mark.slow
def test_its_screening_study_serves_the_quiz_one_control_a_page_and_judges_every_taker(tmp_path: Path, capsys,
                                                                                        monkeypatch) -> None:
    from flows.driver.campaign_run import run_campaign

    monkeypatch.chdir(tmp_path)
    config = controlled(tmp_path, capsys, RUN_ITEMS)
    # two workers an item, not three: the quiz's study has 4 places, not 6, each taker still served every control
    # a page and judged, and passers still work the batch (a quiz served whole still fails the test)
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("assignments_per_image = 3 ", "assignments_per_image = 2 "), encoding="utf-8")
    with SimServer(seed=3) as sim:
        run_campaign(config, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path / "runs",
                     progress=lambda _: None, platform="prolific")
    with sqlite3.connect(tmp_path / "h.db") as db:
        info = json.loads(db.execute("SELECT config_json FROM campaigns").fetchone()[0])
        takers = db.execute("SELECT t.session_id, a.answer_xml FROM task_sessions t JOIN assignments a ON "
                            "a.assignment_id = t.session_id WHERE t.batch = 0").fetchall()
        answered = {s: {i for (i,) in db.execute("SELECT DISTINCT item_id FROM answers WHERE assignment_id = ? AND "
                                                  "item_id != ''", [s])} for s, _ in takers}
        judged = db.execute("SELECT count(*) FROM qualification_scores WHERE mode = 'control_quiz'").fetchone()[0]
        worked = db.execute("SELECT count(*) FROM task_sessions WHERE batch > 0 AND submitted_at IS NOT NULL"
                            ).fetchone()[0]
        places = db.execute("SELECT places FROM studies WHERE batch = 0").fetchone()[0]
        paid = db.execute("SELECT count(*) FROM platform_submissions WHERE batch = 0 AND status = 'APPROVED'"
                          ).fetchone()[0]
    quiz = [k[0] for k in info["quiz"]["key"]]
    assert len(quiz) >= 10 and takers and judged == len(takers) and worked > 0  # 13: the pages took 2
    assert all(answered[s] == set(quiz) for s, _ in takers)  # every control answered ...
    assert all("image_id_0" in xml and "image_id_1" not in xml for _, xml in takers)  # ... its page holding one
    status, place = campaign_status(Store(tmp_path / "h.db"))[0], Decimal(info["screening_place_cost"])
    assert status["qualification"] == {"committed": f"{place * places:.2f}", "spent": f"{place * paid:.2f}",
                                       "what": "control quiz's screening study"} and place * paid > 0
    assert Decimal(status["spent"]) == place * paid + sum(Decimal(b["spent"]) for b in status["batches"])
