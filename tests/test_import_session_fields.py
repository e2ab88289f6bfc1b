"""A page whose script fills the platform's session fields, however it finds them, still loads once imported:
the fields hitflow does not post stay on the page for it, and the session hitflow rendered survives its writes."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_page
from flows.sim.pages.browser_check import missing
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.people.crowd_model import new_worker

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600),
              pytest.mark.skipif(bool(missing()), reason=f"browser workers cannot run here: {missing()}")]

# a rating a script writes into a hidden required field, after a loop over the session fields' ids
STUDY = """<html><body><form id="f" action="https://app.prolific.com/submissions/complete?cc=X">
<input type="hidden" name="PROLIFIC_PID" id="PROLIFIC_PID"><input type="hidden" name="STUDY_ID" id="STUDY_ID">
<p>${note}</p><div id="dial"><button type="button" data-v="2">low</button><button type="button" data-v="4">high</button>
</div><input type="hidden" name="rating" id="rating" value="" required>
<button type="submit">Send</button></form>
<script>
  var q = new URLSearchParams(window.location.search);
  ["PROLIFIC_PID", "STUDY_ID"].forEach(function (k) { document.getElementById(k).value = q.get(k) || ""; });
  document.querySelectorAll("#dial button").forEach(function (b) {
    b.addEventListener("click", function () { document.getElementById("rating").value = b.dataset.v; });
  });
</script></body></html>"""
# MTurk's fields set by selector in a loop over their names, a URL without them blanking what it writes
TURK = STUDY.replace('name="PROLIFIC_PID" id="PROLIFIC_PID"', 'name="assignmentId" id="assignmentId"').replace(
    'name="STUDY_ID" id="STUDY_ID"', 'name="workerId" id="workerId"').replace(
    '["PROLIFIC_PID", "STUDY_ID"].forEach(function (k) { document.getElementById(k)',
    '["assignmentId", "workerId"].forEach(function (k) { document.querySelector("#" + k)')


def rendered(tmp_path: Path, page: str) -> str:
    (tmp_path / "page.html").write_text(page, encoding="utf-8")
    assert main(["new", "study", "--from", str(tmp_path / "page.html"), "--dir", str(tmp_path)]) == 0
    (tmp_path / "config" / "study_items.csv").write_text("item_id,note\nn1,Rate this note.\n", encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "study.toml")
    rows = [{"item_id": "n1", "file_name": "", "url": "", "payload": json.dumps({"note": "Rate this note."})}]
    return custom_page(cfg, page_items(rows))


@pytest.mark.parametrize("page", [STUDY, TURK], ids=["prolific", "mturk"])
def test_a_script_filling_session_fields_in_a_loop_loads_and_wires_its_buttons(tmp_path: Path, capsys,
                                                                              page: str) -> None:
    from flows.sim.pages.browser_trial import trial_outcome
    from flows.sim.pages.browser_worker import posted_by_browser

    html = rendered(tmp_path, page)
    assert "script raised" not in capsys.readouterr().err  # was: "Cannot set properties of null" as it loaded
    assert 'name="PROLIFIC_PID"' not in html and 'name="workerId"' not in html  # not posted as answers
    assert trial_outcome(html).problem == ""
    html = html.replace('value="" data-session=""', 'value="RENDERED" data-session="RENDERED"', 1)  # a Prolific
    # session as the task server renders it, opened from an address without MTurk's parameters
    worker = new_worker("diligent", {}, random.Random(2))
    intents = fill_form(worker, form_fields(html), page_rules(html), 0, 300, {}, random.Random(3), html=html)
    failed: list[str] = []
    posted = posted_by_browser(html, intents, "7", worker, {"PROLIFIC_PID": "P1"}, failed)
    assert posted is not None, failed
    assert posted["rating_0"] in ("2", "4") and posted.get("assignmentId", "RENDERED") == "RENDERED"
    assert not {"PROLIFIC_PID", "STUDY_ID", "workerId"} & set(posted)
