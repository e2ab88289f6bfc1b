"""A page whose later questions sit behind "Next" links, worked by browser workers (headless Chromium) on the
MTurk simulator: they walk the steps as people do, so no approved response leaves a required slider
where the page put it; a page whose required question no "Next" ever shows is named by the dry run."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.core.config.config import load_config
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_page
from flows.custom.scaffold import scaffold
from flows.sim.pages.browser_check import missing
from flows.sim.pages.browser_trial import trial_outcome
from tests.test_required_answers import approved_blank, run_page

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(bool(missing()), reason=f"browser workers cannot run here: {missing()}")]

STEPS = """{% extends "_custom_page.html.j2" %}
{% block item %}
<p>{{ item.note }}</p>
<div class="step" id="step1_{{ i }}">
  <p>Is the photo clear?</p>
  <label><input type="radio" name="clear_{{ i }}" value="yes" required> yes</label>
  <label><input type="radio" name="clear_{{ i }}" value="no"> no</label>
  <a href="#" class="go" data-to="step2_{{ i }}">Next</a>
</div>
<div class="step" id="step2_{{ i }}" hidden>
  <label>How good is the alt text (0-100)? <input type="range" name="quality_{{ i }}" min="-1" max="100" value="-1"
    required></label>
  <a href="#" class="go" data-to="step3_{{ i }}">Next &raquo;</a>
</div>
<div class="step" id="step3_{{ i }}" hidden>
  <label>How sure are you (0-10)? <input type="range" name="sure_{{ i }}" min="0" max="10" value="0" required></label>
</div>
<script>
document.querySelectorAll("a.go").forEach(function (a) { a.addEventListener("click", function (ev) {
  ev.preventDefault();
  a.parentElement.hidden = true;
  document.getElementById(a.getAttribute("data-to")).hidden = false;
}); });
</script>
{% endblock %}
"""


def test_browser_workers_walk_next_links_and_no_required_slider_is_approved_at_its_start(tmp_path: Path) -> None:
    # one route: the steps are walked in Chromium and judged by the page's rules, the same on either platform
    # (a Prolific run cost another ~20 s of CPU); test_required_answers.py runs this rule on both routes
    # one item, its three places (two items: 12 pages in Chromium with the give-backs, ~5 s more of its CPU)
    con = run_page(tmp_path, STEPS, "mturk", workers="browser", n=1)  # each assignment: a page in Chromium
    blank_approved, approved, _ = approved_blank(con, {"quality": {"", "-1"}, "sure": {"", "0"}})
    assert approved >= 3 and blank_approved == 0


def test_the_trial_names_required_questions_no_next_shows(tmp_path: Path) -> None:
    # the link to the last step is gone: its required slider is never shown to anyone
    page = STEPS.replace('<a href="#" class="go" data-to="step3_{{ i }}">Next &raquo;</a>', "")
    said = trial_outcome(_rendered(page, tmp_path / "cut")).problem
    assert "sure_0" in said and "stayed hidden" in said and "quality_0" not in said
    assert trial_outcome(_rendered(STEPS, tmp_path / "whole")).problem == ""


def _rendered(page: str, root: Path) -> str:
    """The page as a campaign renders it for one item."""
    scaffold("steps", root)
    (root / "config" / "steps.html.j2").write_text(page, encoding="utf-8")
    cfg = load_config(root / "config" / "steps.toml")
    rows = [{"item_id": "a1", "file_name": "", "url": "", "payload": '{"note": "A red bicycle by a fence."}'}]
    return custom_page(cfg, page_items(rows))
