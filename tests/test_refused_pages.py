"""A page a simulated browser worker cannot submit never stalls the run: the worker gives the HIT or the Prolific
place back, as a person who gives up does, after the time they spent on it and within its time limit, and the
run's lines name the page's defect once. Before, a Submit that stayed disabled held the clock 30 s a press (90 s a
worker), a refused Prolific place was offered again at once to newcomer after newcomer within one API call (the
run's next call timed out after 6 minutes), and each worker said the same line."""

from __future__ import annotations

import time
from pathlib import Path

import boto3
import pytest

from flows.core.pages.mturk_forms import html_question
from flows.sim.pages.browser_check import missing
from flows.sim.service.server import SimServer
from tests.conftest import advance
from tests.mturk_walk import TYPE
from tests.test_handed_back import crowd_file

pytestmark = [pytest.mark.browser, pytest.mark.skipif(bool(missing()), reason=f"browser workers: {missing()}")]

FORM = ('<form id="hit-form" method="post" action="https://www.mturk.com/mturk/externalSubmit" '
        'data-sim-workers="browser"><input type="hidden" name="assignmentId">'
        "<textarea name='caption_0' data-item='1'></textarea>")
REFUSES = (FORM + '<button type="submit" id="submit-btn">Submit</button></form><script>'
           "document.getElementById('hit-form').addEventListener('submit', e => e.preventDefault());</script>")
NEVER_ENABLED = FORM + '<button type="submit" id="submit-btn" disabled>Submit</button></form>'

# A page written for MTurk: its script wants MTurk's hitId in the address and refuses the submit without it, so
# it passes the run's trial (opened as MTurk opens it) and refuses every Prolific participant.
MTURK_ONLY = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Is the sentence polite?</title></head><body>
<form id="answers" method="post" action="/submit">
<p>${sentence}</p>
<p>Is this sentence polite?</p>
<label><input type="radio" name="polite" value="yes" required> Yes</label>
<label><input type="radio" name="polite" value="no"> No</label>
<p><button type="submit">Submit</button></p>
</form>
<script>
  document.getElementById('answers').addEventListener('submit', function (e) {
    if (!new URLSearchParams(window.location.search).get('hitId')) { e.preventDefault(); }
  });
</script>
</body></html>
"""


def defect_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("hitflow sim: honest browser workers give")]


@pytest.mark.timeout(600, method="signal")
def test_an_mturk_page_that_refuses_or_never_enables_its_submit_gets_its_hits_back(tmp_path: Path, capsys) -> None:
    with SimServer(seed=7, crowd_file=crowd_file(tmp_path, 0.0)) as sim:
        client = boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1",
                              aws_access_key_id="dummy", aws_secret_access_key="dummy")
        hits = {}
        for n, page in enumerate((REFUSES, NEVER_ENABLED)):
            type_id = client.create_hit_type(**{**TYPE, "Title": f"Describe {n}"})["HITTypeId"]
            hits[type_id] = client.create_hit_with_hit_type(
                HITTypeId=type_id, MaxAssignments=2, LifetimeInSeconds=6 * 3600,
                Question=html_question(page))["HIT"]["HITId"]
        started = time.monotonic()
        advance(sim, 3600)  # a simulated hour: two workers a HIT try it and give it back (two hours: 8 pages, ~1.3 s)
        took = time.monotonic() - started
        returned = {h: list(sim.market.hits[h].returned) for h in hits.values()}
        done = {h: client.list_assignments_for_hit(HITId=h)["Assignments"] for h in hits.values()}
        back_at = [at for h in hits.values() for at in sim.market.hits[h].reopened]
    assert all(len(r) >= 2 for r in returned.values()) and not any(done.values()), (returned, done)
    # four workers each pressing three times: at 30 s a press on the disabled Submit, that was 6 minutes
    assert took < 120, took
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = defect_lines(err)
    assert len(lines) == 2 and {t for t in hits if any(t in line for line in lines)} == set(hits), lines
    assert all(at < float(sim.market.hits[h].fields["Expiration"]) for h in hits.values() for at in back_at)


@pytest.mark.timeout(600, method="signal")
def test_a_prolific_page_nobody_can_submit_gets_its_places_back_and_the_run_ends(tmp_path: Path, capsys,
                                                                                 monkeypatch) -> None:
    from flows.cli.main import main
    from flows.driver.campaign_run import run_campaign

    (tmp_path / "polite.html").write_text(MTURK_ONLY, encoding="utf-8")
    (tmp_path / "polite_items.csv").write_text("item_id,sentence\n" + "".join(
        f"s{i},Could you pass the salt number {i}?\n" for i in range(4)), encoding="utf-8")  # one unit
    monkeypatch.chdir(tmp_path)
    assert main(["new", "polite", "--from", "polite.html", "--items", "polite_items.csv"]) == 0
    toml = tmp_path / "config" / "polite.toml"
    text = toml.read_text(encoding="utf-8")  # one place: the newcomers' cap (3 a place + 10) met in 14 visits, not 20
    assert "assignments_per_image = 3 " in text
    toml.write_text(text.replace("assignments_per_image = 3 ", "assignments_per_image = 1 ", 1)
                    + '\n[target]\nsim_workers = "browser"\n', encoding="utf-8")
    capsys.readouterr()
    started = time.monotonic()
    with SimServer(seed=3) as sim:
        run_campaign(toml, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path / "runs",
                     progress=lambda _: None, platform="prolific")  # it ends, short of every place
        studies = list(sim.prolific.studies.values())
        subs = list(sim.prolific.submissions.values())
    assert time.monotonic() - started < 300
    assert len(studies) == 1 and studies[0]["total_available_places"] == 1
    assert subs and all(s["status"] == "RETURNED" for s in subs)
    limit_s = 60 * studies[0]["maximum_allowed_time"]
    tried = [s for s in subs if s.get("_gave_up")]  # the rest read the description and changed their mind
    assert tried and all(0 < s["_finish_at"] - s["_started"] <= limit_s for s in tried)  # held while trying
    assert len(subs) <= 3 * studies[0]["total_available_places"] + 11  # newcomers do not come forever
    lines = defect_lines(capsys.readouterr().err)
    assert len(lines) == 1 and studies[0]["id"] in lines[0], lines
