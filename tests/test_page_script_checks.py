"""A page's own submit checks met as a person meets them: a summary page whose script
refuses fewer than 100 words gets texts of 100 words about the item (not 13 words and a refusal);
the browser's clock is the simulator's date, not the year 57983."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_page
from flows.custom.scaffold import scaffold
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.pages.script_checks import word_minimum
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker

ABSTRACT = ("Small rivers in farming regions carry more nitrogen after heavy rain than after dry spells. We measured "
            "nitrate in twelve streams across three seasons and compared the readings with rainfall, fertiliser "
            "schedules and the width of the grass strips along each bank. Streams with strips wider than ten metres "
            "carried about a third less nitrate during storms, while narrow strips made little difference. The "
            "effect was strongest in spring, when fields had just been fertilised and the soil was wet. Farmers "
            "who left wider strips lost some crop area but reported fewer washed-out field edges. We suggest that "
            "subsidies for bank strips should depend on their width, and that monitoring should focus on the weeks "
            "after spring fertilising, when most of the nitrogen reaches the water. Longer records from more "
            "regions are needed to tell whether the pattern holds on clay soils and in drier climates.")
PAGE = """{% extends "_custom_page.html.j2" %}
{% block instructions %}<p>Summarise the abstract for a general reader. Your summary must be at least 100 words.</p>
{% endblock %}
{% block item %}<p class="abstract">{{ item.abstract }}</p>
<label>Your summary <textarea name="summary_{{ i }}" id="summary_{{ i }}" required></textarea></label>
<input type="hidden" name="opened_{{ i }}" id="opened_{{ i }}" value="">
<script>
  document.getElementById("hit-form").addEventListener("submit", function (event) {
    var words = document.getElementById("summary_{{ i }}").value.trim().split(/\\s+/).length;
    if (words < 100) { event.preventDefault(); alert("Please write at least 100 words."); return; }
    document.getElementById("opened_{{ i }}").value = new Date().toISOString();
  });
</script>{% endblock %}
"""


def test_a_word_minimum_is_read_from_the_page_and_its_script() -> None:
    assert word_minimum("<p>Write at least 100 words.</p>") == 100
    assert word_minimum("<script>if (t.split(/\\s+/).length < 60) stop();</script>") == 60
    assert word_minimum("<script>if (v.trim().split(' ').filter(Boolean).length <= 49) no();</script>") == 50
    assert word_minimum("<p>Answer in 5 words or more.</p>") == 5
    assert word_minimum("<p>Describe the photo in a few words.</p><p>Five words max.</p>") == 0


def rendered(tmp_path: Path) -> str:
    scaffold("abstracts", tmp_path)
    (tmp_path / "config" / "abstracts.html.j2").write_text(PAGE, encoding="utf-8")
    (tmp_path / "config" / "abstracts_items.csv").write_text(f'item_id,abstract\na1,"{ABSTRACT}"\n', encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "abstracts.toml")
    rows = [{"item_id": "a1", "file_name": "", "url": "", "payload": json.dumps({"abstract": ABSTRACT})}]
    return custom_page(cfg, page_items(rows))


def test_honest_workers_write_the_words_the_pages_script_counts(tmp_path: Path) -> None:
    html = rendered(tmp_path)
    source = set(re.findall(r"[a-z']+", ABSTRACT.lower()))
    rng = random.Random(5)
    for n, profile in enumerate(HONEST_PROFILES):
        worker = new_worker(profile, {}, rng)
        text = fill_form(worker, form_fields(html), page_rules(html), 0, 300, {}, random.Random(n), html=html)[
            "summary_0"]
        said = re.findall(r"[a-z']+", text.lower())
        assert len(text.split()) >= 100, (profile, text)  # the script's count: whitespace-separated words
        assert len(said) < len(re.findall(r"[a-z']+", ABSTRACT.lower()))  # still shorter than the abstract
        assert len(source & {w for w in said if len(w) > 4}) >= 5, text  # about the item: its words
        runs = [tuple(said[k:k + 5]) for k in range(len(said) - 4)]
        assert len(runs) == len(set(runs)), text  # nothing said twice to make up the count


@pytest.mark.browser
def test_in_chromium_the_check_is_met_and_the_clock_is_the_simulators(tmp_path: Path, monkeypatch) -> None:
    """The page in the simulator's own Chromium (the trial's, not a second one for this module); what the trial's
    worker posted is read for the clock (a second worker typing 100 words cost ~2.5 s of Chromium's CPU)."""
    from flows.sim.pages import browser_trial
    from flows.sim.pages.browser_worker import CLOCK_START, posted_by_browser

    posts: list[dict[str, str] | None] = []

    def posted(*args: Any) -> dict[str, str] | None:
        posts.append(posted_by_browser(*args))
        return posts[-1]
    monkeypatch.setattr(browser_trial, "posted_by_browser", posted)
    html = rendered(tmp_path)
    browser_trial.trial_outcome.cache_clear()
    assert browser_trial.trial_outcome(html).problem == ""  # was: refused three times, "a check no person can pass"
    assert len(posts) == 1 and posts[0] is not None and len(posts[0]["summary_0"].split()) >= 100
    opened = datetime.fromisoformat(posts[0]["opened_0"].replace("Z", "+00:00"))
    assert opened.year == 2026 and opened - CLOCK_START < (datetime(2026, 1, 6, tzinfo=UTC) - CLOCK_START)


def test_the_browser_clock_is_handed_the_simulators_date() -> None:
    """Playwright's Python clock reads a number as seconds: the start is handed over as a date, so the page's
    Date is 2026-01-05 (the milliseconds handed over before made it the year 57983)."""
    from playwright._impl.clock import parse_time

    from flows.sim.pages.browser_worker import CLOCK_START

    handed = parse_time(CLOCK_START)["timeNumber"]
    assert datetime.fromtimestamp(handed / 1000, UTC) == datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


PROLIFIC_LINK_PAGE = """<form id="hit-form" method="post" action="/done" data-sim-workers="browser">
<p>What did you have for breakfast today?</p><textarea name="breakfast" required></textarea>
<input type="hidden" name="participant" id="participant" value="">
<button type="submit" id="submit-btn">Submit</button></form>
<script>
  document.getElementById("hit-form").addEventListener("submit", function (event) {
    var pid = new URLSearchParams(window.location.search).get("PROLIFIC_PID");
    if (!pid) { event.preventDefault(); alert("Please open this study from Prolific."); return; }
    document.getElementById("participant").value = pid;
  });
</script>"""


@pytest.mark.browser
def test_a_page_opened_from_a_study_link_reads_the_links_participant() -> None:
    """A Prolific page's script reads PROLIFIC_PID from its address: the simulated participant's browser has it."""
    from flows.sim.pages.volunteers import fill_page

    worker = new_worker("diligent", {}, random.Random(2))
    url = "http://127.0.0.1:9/task/meals?PROLIFIC_PID=5f0c2a91d4e3b7a6c8e1f234&STUDY_ID=s1&SESSION_ID=x1"
    filled = fill_page((PROLIFIC_LINK_PAGE, "/done"), url, worker, {}, random.Random(3), 0, 120)
    assert filled is not None
    assert filled[1]["participant"] == "5f0c2a91d4e3b7a6c8e1f234"
