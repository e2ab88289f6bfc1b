"""Attention checks ([attention]): fair instructed-response items on any page, scored apart from control
items, the failures that may reject following the study's length (Prolific's rule)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pandas as pd
import pytest

from flows.campaigns.task_pages import task_page
from flows.core.config.config import load_config
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.page_attention import with_attention
from flows.core.pages.templates import render, sample_context, task_templates
from flows.driver.campaign_run import run_campaign
from flows.sim.people.crowd_model import HONEST_PROFILES
from flows.sim.service.server import SimServer
from qc.attention_checks import (
    BUILT_IN,
    AttentionCheck,
    attention_failed,
    failures_to_reject,
    field_name,
    unfair_reason,
)
from qc.instructed_items import instructed_option
from tests.small_configs import small_vizwiz

ATTENTION = "\n[attention]\ncount = 2\nstudy_minutes = 4\n"


def test_the_partial_renders_its_sample_as_an_instructed_item() -> None:
    html = render("_attention.html.j2", sample_context("_attention"))
    assert "choose \u201cStrongly disagree\u201d" in html and 'name="hitflow_attention_a"' in html
    assert html.count('type="radio"') == 4 and "required" in html


def test_every_built_in_check_is_fair_and_an_unfair_one_is_refused(tmp_path: Path) -> None:
    assert all(unfair_reason(c) is None for c in BUILT_IN)
    memory = AttentionCheck("Choose the colour you were asked to remember.", ("Red", "Blue"), "Blue")
    assert "does not name the answer" in str(unfair_reason(memory))
    path = small_vizwiz(tmp_path)
    path.write_text(path.read_text() + '\n[attention]\nchecks = [{instruction = "What colour did we mention?", '
                    'options = ["Red", "Blue"], answer = "Blue"}]\n')
    with pytest.raises(ConfigError, match="not a fair instructed-response item"):
        load_config(path)


def test_checks_go_inside_the_form_of_the_page(tmp_path: Path) -> None:
    path = small_vizwiz(tmp_path)
    path.write_text(path.read_text() + ATTENTION)
    cfg = load_config(path)
    assert "attention_failed" in cfg.policy.reject_rules and "attention_missed" in cfg.policy.review_rules
    rows = [{"item_id": "i1", "file_name": "a.jpg", "url": "https://example.org/a.jpg"}]
    page = task_page(cfg, rows)
    names = {f.name for f in form_fields(page)}
    assert {"hitflow_attention_a", "hitflow_attention_b", "caption_0"} <= names
    assert page.index("hitflow_attention_b") < page.index('id="submit-btn"') < page.rindex("</form>")


def test_the_failures_that_may_reject_follow_the_study_length() -> None:
    assert (failures_to_reject(4), failures_to_reject(5), failures_to_reject(30)) == (1, 2, 2)
    frame = pd.DataFrame({"assignment_id": ["a", "b", "c"], "worker_id": ["w1", "w2", "w3"],
                          "hitflow_attention_a": ["Strongly disagree", "Agree", "Agree"],
                          "hitflow_attention_b": ["Blue", "Blue", ""]})
    params = {"attention_checks": list(BUILT_IN[:2])}
    long_study = attention_failed(frame, {**params, "attention_reject_at": 2}).set_index("assignment_id")
    assert long_study["rule"].to_dict() == {"b": "attention_missed", "c": "attention_failed"}
    assert "left unanswered" in long_study.loc["c", "detail"]
    short_study = attention_failed(frame, {**params, "attention_reject_at": 1})
    assert set(short_study["rule"]) == {"attention_failed"}


def test_one_failure_rejects_only_where_the_study_is_short_by_its_estimate_and_by_the_workers_own_time() -> None:
    """Prolific's "a study of 5 minutes or longer" needs two failures; a short study's worker who took 5 minutes or
    more gets the benefit of the doubt: their one failure goes to a person."""
    frame = pd.DataFrame({"assignment_id": ["quick", "slow"], "worker_id": ["w1", "w2"], "minutes": [2.5, 6.0],
                          "hitflow_attention_a": ["Agree", "Agree"]})
    flags = attention_failed(frame, {"attention_checks": [BUILT_IN[0]], "attention_reject_at": 1})
    assert flags.set_index("assignment_id")["rule"].to_dict() == {"quick": "attention_failed",
                                                                   "slow": "attention_missed"}
    assert flags.set_index("assignment_id")["threshold"].to_dict() == {"quick": 1, "slow": 2}


def test_simulated_workers_answer_as_their_profile_would_and_failures_reject_on_prolific(tmp_path: Path) -> None:
    path = small_vizwiz(tmp_path, items=30)
    path.write_text(path.read_text() + ATTENTION)
    with SimServer(seed=2) as sim:
        run_campaign(path, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path, limit=30,
                     progress=lambda _: None, platform="prolific")
        rejected = [s for s in sim.prolific.submissions.values() if s["status"] == "REJECTED"]
    store = Store(tmp_path / "h.db")
    truth = dict(pd.read_json(tmp_path / "vizwiz_captions" / "sim_workers.json")[["worker_id", "profile"]].values)
    flagged = store.rows("SELECT worker_id, rule FROM qc_flags WHERE rule LIKE 'attention_%'")
    assert flagged, "careless profiles click at random: some fail"
    assert not [f for f in flagged if truth[f["worker_id"]] in HONEST_PROFILES]
    reasons = {r["assignment_id"]: r["reasons"] for r in store.rows("SELECT assignment_id, reasons FROM decisions")}
    failed_check = [s for s in rejected if s["rejection"]["category"] == "FAILED_CHECK"]
    assert failed_check and all("attention_failed" in reasons[s["id"]] for s in failed_check)
    assert all("attention checks failed" in s["rejection"]["message"] for s in failed_check)
    dataset = pd.read_csv(tmp_path / "vizwiz_captions" / "dataset.csv")
    assert not [c for c in dataset.columns if "attention" in c]


@pytest.mark.parametrize("task", [t for t in task_templates() if t != "qualification"])
def test_every_task_page_takes_the_checks_inside_its_form(task: str) -> None:
    page = with_attention(render(f"{task}.html.j2", sample_context(task)), BUILT_IN[:2])
    names = [f.name for f in form_fields(page)]
    assert {"hitflow_attention_a", "hitflow_attention_b"} <= set(names), task
    # among the questions: before the page's Submit button, which a worker meets last
    assert page.rindex("hitflow_attention_b") < page.rindex('id="submit-btn"') < page.rindex("</form>"), task


# Seven ways a check is not fair: a knowledge question, negation traps, two options named, an answer written
# otherwise than its option, an answer the instruction only mentions, a test of memory
UNFAIR = [
    AttentionCheck("What colour is the sky? (a)", ("a", "Blue", "Red"), "a"),
    AttentionCheck("Do NOT choose 'Blue'.", ("Red", "Blue"), "Blue"),
    AttentionCheck("Choose 'Blue' unless the sky is green.", ("Red", "Blue"), "Blue"),
    AttentionCheck("Choose 'Red' or 'Blue'.", ("Red", "Blue"), "Blue"),
    AttentionCheck("For this question, choose 'blue'.", ("Red", "Blue"), "Blue"),
    AttentionCheck("The sky is 'Blue'. Pick its colour.", ("Red", "Blue"), "Blue"),
    AttentionCheck("Choose the colour we showed you before: Blue.", ("Red", "Blue"), "Blue"),
]


@pytest.mark.parametrize("check", UNFAIR, ids=[c.instruction for c in UNFAIR])
def test_an_unfair_check_is_refused_whatever_words_it_shares_with_its_answer(check: AttentionCheck) -> None:
    assert unfair_reason(check) is not None


def test_the_right_answer_is_in_no_attribute_of_the_page_and_a_reader_finds_it_in_the_question() -> None:
    from flows.sim.people.attention_answers import attention_answer, check_question
    from flows.sim.people.crowd_model import Worker

    page = with_attention(render("caption.html.j2", sample_context("caption")), BUILT_IN)
    assert "data-instructed" not in page
    for i, check in enumerate(BUILT_IN):  # the answer shows as its option's value and in the question's words only
        held = re.findall(rf'([\w-]+)="{re.escape(check.answer)}"', page)
        assert set(held) == {"value"}, held
        question = check_question(page, field_name(i))
        assert question == check.instruction
        reader = Worker("w1", "diligent", {}, 1000, 99)
        told = instructed_option(question, check.options)
        assert attention_answer(reader, list(check.options), told, random.Random(i)) == check.answer


# A page whose own script, after its form, writes a form of its own: its "</form>" and "<button>" are a
# script's text, never where the checks go (they went into the script: every honest response failed)
SCRIPTED_FORM = """{% extends "_custom_page.html.j2" %}
{% block item %}
<p>{{ item.note }}</p>
<label>Is the photo clear? <input type="radio" name="clear_{{ i }}" value="yes" required> yes
  <input type="radio" name="clear_{{ i }}" value="no"> no</label>
<div class="help"></div>
{% endblock %}
{% block scripts %}{{ super() }}
<script>
document.querySelectorAll(".help").forEach(function (d) { d.innerHTML = '<form><button>Ask</button></form>'; });
</script>
{% endblock %}
"""


def test_checks_go_in_the_form_before_submit_whatever_the_pages_scripts_hold(tmp_path: Path) -> None:
    from flows.cli.main import main
    from flows.custom.scaffold import scaffold
    from tests.test_required_answers import items

    scaffold("req", tmp_path)
    (tmp_path / "config" / "req.html.j2").write_text(SCRIPTED_FORM, encoding="utf-8")
    (tmp_path / "config" / "req_items.csv").write_text(items(12), encoding="utf-8")
    config = tmp_path / "config" / "req.toml"
    config.write_text(config.read_text().replace('budget = "20.00 USD"', 'budget = "200.00 USD"') + ATTENTION,
                      encoding="utf-8")
    cfg = load_config(config)
    page = task_page(cfg, [{"item_id": "a00", "file_name": "", "url": "", "payload": '{"note": "A red bicycle."}'}])
    script = page.rindex("<script>")
    assert page.index("hitflow_attention_b") < page.index('id="submit-btn"') < page.index("</form>") < script
    db = tmp_path / "h.db"
    assert main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "runs")]) == 0
    store = Store(db)
    truth = dict(pd.read_json(tmp_path / "runs" / "req" / "sim_workers.json")[["worker_id", "profile"]].values)
    failed = store.rows("SELECT worker_id FROM qc_flags WHERE rule LIKE 'attention_%'")
    assert not [f for f in failed if truth[f["worker_id"]] in HONEST_PROFILES]
    assert len(store.rows("SELECT 1 FROM decisions WHERE action = 'approve'")) >= 6
