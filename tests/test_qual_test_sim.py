"""MTurk-native qualification tests on the simulator: a QuestionForm Test with an AnswerKey,
scored by the simulator, gating a HIT by the score."""

from __future__ import annotations

from collections import defaultdict

import pytest

from flows.core.inputs.answer_key import load_key
from flows.core.pages.mturk_forms import html_question, parse_question
from flows.platforms.mturk.qualification_forms import build_answer_key, build_test_form
from tests.conftest import advance
from tests.test_sim_contract import PAGE

KEY = load_key()


def make_test_qual(client, retry: int | None = None) -> str:
    extra = {"RetryDelayInSeconds": retry} if retry is not None else {}
    return client.create_qualification_type(
        Name="flickr8k-test", Description="spelling, grammar, judging", QualificationTypeStatus="Active",
        Test=build_test_form(KEY), AnswerKey=build_answer_key(KEY), TestDurationInSeconds=1800, **extra,
    )["QualificationType"]["QualificationTypeId"]


def test_test_and_key_are_valid_mturk_documents() -> None:
    form = build_test_form(KEY)
    assert parse_question(form).form_ids == KEY["item_id"].tolist()
    assert len(form.encode()) < 65535
    assert build_answer_key(KEY).count("<AnswerScore>1</AnswerScore>") == 40


def test_scored_test_gates_the_hit_by_score(sim, client) -> None:
    qual = make_test_qual(client)
    type_id = client.create_hit_type(
        Title="t", Description="d", Reward="0.30", AssignmentDurationInSeconds=3600, AutoApprovalDelayInSeconds=86400,
        QualificationRequirements=[{"QualificationTypeId": qual, "Comparator": "GreaterThanOrEqualTo",
                                    "IntegerValues": [80]}])["HITTypeId"]
    hits = [client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=20, LifetimeInSeconds=86400,
                                            Question=html_question(PAGE.replace("{item}", str(i))))["HIT"]["HITId"]
            for i in range(3)]
    advance(sim, 2 * 86400)
    scores = {q["WorkerId"]: q["IntegerValue"] for q in
              client.list_workers_with_qualification_type(QualificationTypeId=qual, MaxResults=100)["Qualifications"]}
    workers = {a["WorkerId"] for h in hits
               for a in client.list_assignments_for_hit(HITId=h, MaxResults=100)["Assignments"]}
    assert workers and all(scores[w] >= 80 for w in workers)
    assert any(s < 80 for s in scores.values()) and len(set(scores.values())) > 5  # scores spread out
    low = [w.worker_id for w in sim.market.workers.values() if w.profile == "low_approval"]
    assert all(w in scores for w in low)  # they may take the test; the HIT needs no approval history here
    by_profile = defaultdict(list)
    for worker in sim.market.workers.values():
        by_profile[worker.profile].append(scores[worker.worker_id] >= 80)
    assert sum(by_profile["speeder"]) == 0 and sum(by_profile["diligent"]) > len(by_profile["diligent"]) / 2


def test_retake_only_after_retry_delay(sim, client) -> None:
    qual = make_test_qual(client, retry=3600)
    type_id = client.create_hit_type(
        Title="t", Description="d", Reward="0.30", AssignmentDurationInSeconds=3600, AutoApprovalDelayInSeconds=86400,
        QualificationRequirements=[{"QualificationTypeId": qual, "Comparator": "GreaterThanOrEqualTo",
                                    "IntegerValues": [101]}])["HITTypeId"]  # nobody can pass: everyone retries
    client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=1, LifetimeInSeconds=86400,
                                    Question=html_question(PAGE.replace("{item}", "1")))
    first = dict(sim.market.test_attempts)
    client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=1, LifetimeInSeconds=86400,
                                    Question=html_question(PAGE.replace("{item}", "2")))
    assert sim.market.test_attempts == first  # within the retry delay: no retake
    advance(sim, 3601)
    client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=1, LifetimeInSeconds=86400,
                                    Question=html_question(PAGE.replace("{item}", "3")))
    assert all(sim.market.test_attempts[k]["time"] > first[k]["time"] for k in first)


@pytest.mark.parametrize("bad_key", ["<AnswerKey>", '<Other xmlns="urn:x"/>'])
def test_bad_answer_key_is_refused(client, bad_key: str) -> None:
    with pytest.raises(client.exceptions.RequestError, match="AnswerKey"):
        client.create_qualification_type(Name="x", Description="d", QualificationTypeStatus="Active",
                                         Test=build_test_form(KEY), AnswerKey=bad_key)


def test_campaign_gated_by_the_test_only_lets_passers_work(sim, tmp_path) -> None:
    import dataclasses

    from flows.core.config.config import load_config
    from flows.driver.campaign import run_batches
    from tests.test_campaign import CONFIG, make_run

    run = make_run(sim, tmp_path / "h.db")
    gating = dataclasses.replace(run.cfg.gating, qualification_key=CONFIG.parent / "qualification" /
                                 "flickr8k_qualification_key.csv", qualification_min_score=80)
    run.cfg = dataclasses.replace(run.cfg, gating=gating)
    run_batches(run, limit=25)  # a HIT a batch: who works is the test, not how much
    qual = run.store.rows("SELECT qualification_type_id FROM qualifications WHERE purpose = 'scored test'")[0]
    scores = {w: v["IntegerValue"] for (t, w), v in sim.market.worker_quals.items()
              if t == qual["qualification_type_id"]}
    workers = {r["worker_id"] for r in run.store.rows("SELECT DISTINCT worker_id FROM assignments")}
    assert workers and all(scores[w] >= 80 for w in workers)
    careless = {w.worker_id for w in sim.market.workers.values() if w.profile in ("speeder", "copy_paster")}
    assert not workers & careless
    assert load_config(CONFIG).gating.qualification_key is None  # the shipped VizWiz config does not gate on it
