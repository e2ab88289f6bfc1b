"""The control quiz (``[answers] quiz``): spare control items before any work, with a pass mark an honest worker
misses with a chance under 1%. Links and Prolific: on a worker's first page, judged by the task server as it is
submitted (a failure refuses the next page); MTurk: a qualification test whose requests hitflow judges the same
way, required by the campaign's HITs."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from bench.answers_accuracy import project
from flows.answers.control_items import mix_controls
from flows.answers.control_quiz import quiz_line, quiz_record, quiz_size
from flows.core.config.config import load_config
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.custom.custom_task import custom_item_plan
from flows.driver.campaign_run import run_campaign
from flows.platforms.mturk.qualification_forms import build_quiz_form
from flows.sim.people import qual_tests
from flows.sim.people.crowd_model import Worker
from flows.sim.service.server import SimServer
from postprocess.answers.control_items import (
    FALSE_ALARM,
    HONEST_ACCURACY,
    QUIZ_HONEST,
    QUIZ_RISK,
    fails_quiz,
    quiz_failures,
    quiz_mark,
    quiz_to_tell,
    single_choice,
    stopped_by_test,
)
from tests.small_configs import UNREHEARSED


def test_the_pass_mark_is_the_highest_an_honest_worker_fails_under_one_percent() -> None:
    assert [quiz_mark(n) for n in (6, 8, 10, 12, 15)] == [1, 2, 4, 5, 7]
    for n in (6, 8, 10, 12, 15):
        m = quiz_mark(n)
        assert fails_quiz(n, m, QUIZ_HONEST) < QUIZ_RISK <= fails_quiz(n, m + 1, QUIZ_HONEST)
    assert round(fails_quiz(15, 7, 0.8), 5) == 0.00078 and round(fails_quiz(15, 7, 1 / 3), 3) == 0.797


def test_a_quiz_sized_by_its_options_fails_nine_in_ten_random_clickers_and_spares_honest_workers() -> None:
    """The size the dry run advises, checked on drawn workers through the quiz's own verdict: a yes/no quiz of 46
    fails at least 88% of 2,000 random clickers (binomially 90.8%) and at most 6 of 2,000 honest workers right 80% of
    the time (0.08% expected: 1.6), where a quiz of 10 fails 17% of the random clickers."""
    assert [quiz_to_tell(k) for k in (2, 3, 4, 5, 6)] == [46, 20, 15, 12, 10]
    rng = random.Random(7)
    for size, least in ((46, 0.88), (10, 0.14)):
        truths = ["yes", "no"] * (size // 2)
        workers = {f"r{w}": [rng.choice(["yes", "no"]) for _ in truths] for w in range(2000)} | {
            f"h{w}": [t if rng.random() < QUIZ_HONEST else {"yes": "no", "no": "yes"}[t] for t in truths]
            for w in range(2000)}
        given, _ = _answers(workers, truths)
        record = {"key": [[f"c{i}", "spam", t] for i, t in enumerate(truths)], "mark": quiz_mark(size)}
        failed = quiz_failures(given, given, record)
        assert least <= sum(w.startswith("r") for w in failed) / 2000 <= least + 0.06
        assert sum(w.startswith("h") for w in failed) <= 6
    record = {"key": [[f"c{i}", "spam", t] for i, t in enumerate(truths)], "mark": quiz_mark(10), "asked": 15,
              "pool": 10}
    assert "; a quiz of 46 fails 9 in 10 of them ([answers] quiz = 46" in quiz_line(record)
    assert "a quiz of" not in quiz_line({**record, "options": ["a", "b", "c", "d", "e", "f"]})


def _answers(workers: dict[str, list[str]], truths: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    key = pd.DataFrame({"item_id": [f"c{i}" for i in range(len(truths))], "field": "spam", "answer": truths})
    # by columns, not a dict a row: the quiz-size test builds 184,000 rows (~0.1 s less each time)
    given = pd.DataFrame({"worker_id": [w for w, values in workers.items() for _ in values],
                          "item_id": [f"c{i}" for values in workers.values() for i in range(len(values))],
                          "field": "spam", "value": [v for values in workers.values() for v in values]})
    return given, key


def test_the_sequential_test_stops_one_answer_to_everything_and_spares_honest_slips() -> None:
    truths = ["yes", "no"] * 6  # a yes/no quiz of 12, as a user's file of 12 gives, balanced over its answers
    given, key = _answers({"constant": ["yes"] * 12, "two_slips": [*truths[:10], "no", "yes"],
                           "constant_short": ["yes"] * 8}, truths)
    stopped = stopped_by_test(given, key)
    assert set(stopped) == {"constant"} and stopped["constant"].startswith("control_test 6/12 right, odds ")
    # the same control answered again (a reload, a repeat) counts once
    again = pd.concat([given, given[given["worker_id"] == "constant"].assign(value="no")])
    assert stopped_by_test(again, key)["constant"] == stopped["constant"]
    assert stopped_by_test(given.iloc[:0], key) == {}
    # a worker who reads and answers wrong is the controls-alone rule's (control_accuracy), not this test's
    assert "adversary" not in stopped_by_test(*_answers({"adversary": ["no", "yes"] * 5}, truths[:10]))


def test_an_honest_worker_is_stopped_under_the_stated_false_alarm_rate() -> None:
    """Workers right at the honest accuracy, their slips half a habit of their own (as the simulator's): read after
    every 4 answers of 24 on a three-answer field whose controls' answers are uneven, the share ever stopped
    stays under the stated rate (Ville's inequality is a bound; it sits far under it)."""
    rng, truths, rows = random.Random(3), [["yes", "no", "unsure"][i % 5 % 3] for i in range(24)], []
    for w in range(1500):
        for i, t in enumerate(truths):
            other = [o for o in ("yes", "no", "unsure") if o != t]
            slip = other[w % 2] if rng.random() < 0.5 else rng.choice(other)
            rows.append({"worker_id": f"w{w}", "item_id": f"c{i}", "field": "spam",
                         "value": t if rng.random() < HONEST_ACCURACY else slip})
    given = pd.DataFrame(rows)
    key = pd.DataFrame({"item_id": [f"c{i}" for i in range(24)], "field": "spam", "answer": truths})
    ever = set().union(*(stopped_by_test(given[given["item_id"].isin(key["item_id"][:n])], key)
                         for n in range(4, 25, 4)))
    assert len(ever) / 1500 <= FALSE_ALARM
    constant = _answers({f"k{w}": ["yes"] * 24 for w in range(3)}, truths)  # the same 24: one answer to all
    assert len(stopped_by_test(*constant)) == 3


def test_the_quiz_pass_mark_stops_random_clicks_and_drops_an_item_the_crowd_contradicts() -> None:
    truths = ["a", "b", "c"] * 5
    record = {"key": [[f"c{i}", "spam", t] for i, t in enumerate(truths)], "mark": quiz_mark(15)}
    rng = random.Random(1)
    given, _ = _answers({"random": [rng.choice("abc") for _ in truths], "honest": truths}, truths)
    assert set(quiz_failures(given, given, record)) == {"random"}
    wrong_key = {**record, "key": [[f"c{i}", "spam", "c" if i == 0 else t] for i, t in enumerate(truths)]}
    crowd = pd.concat([given] + [given[given["worker_id"] == "honest"].assign(worker_id=f"h{k}") for k in range(3)])
    assert quiz_failures(crowd, crowd, wrong_key)["random"].endswith(f"/15 (pass {quiz_mark(15) - 1})")


def test_the_quiz_and_the_pages_share_a_short_controls_file(tmp_path: Path) -> None:
    cfg = load_config(_quiz(tmp_path))
    assert [quiz_size(cfg, pool, 8) for pool in (6, 10, 12, 15, 40)] == [0, 10, 10, 10, 15]
    regular = [{"item_id": f"i{k}"} for k in range(40)]
    controls = [{"item_id": f"c{k}"} for k in range(2)]  # what a file of 12 leaves after a quiz of 10
    mixed = [r["item_id"] for _, chunk in mix_controls(cfg, regular, controls, after_quiz=True) for r in chunk]
    assert sorted(i for i in mixed if i.startswith("c")) == ["c0", "c1"] and len(mixed) == 42


def test_a_file_of_12_serves_a_quiz_of_10_and_the_pages_the_rest_never_the_same_twice(tmp_path: Path) -> None:
    config = project(tmp_path, 40, 0, 0.2, per_page=5, pooling=False)
    pd.read_csv(tmp_path / "controls.csv", dtype=str).head(12).to_csv(tmp_path / "controls.csv", index=False)
    cfg = load_config(config)
    plan = custom_item_plan(cfg)
    record = quiz_record(cfg, plan)
    assert record is not None and len(record["key"]) == 10
    on_pages = {r["item_id"] for r in plan} & set(pd.read_csv(tmp_path / "controls.csv", dtype=str)["item_id"])
    assert len(on_pages) == 2 and not on_pages & {k[0] for k in record["key"]}
    assert quiz_line(record).startswith("quiz: 10 control items before any work (15 asked: the controls file's 12 "
                                        "items serve it first), never again on a page")


def test_a_checkbox_groups_controls_block_nobody() -> None:
    key = pd.DataFrame({"item_id": ["a", "a", "b", "b"], "field": ["course", "contains", "course", "contains"],
                        "answer": ["main", "meat|dairy", "starter", ""]})
    assert single_choice(key)["field"].tolist() == ["course", "course"]


def _quiz(tmp_path: Path, adversaries: int = 6, quiz: int = 15, items: int = 40, workers: int = 5) -> Path:
    config = project(tmp_path, items, adversaries, 0.2, per_page=5, pooling=False)
    more = pd.read_csv(tmp_path / "controls.csv", dtype=str)  # enough for the batches and the quiz
    pd.concat([more, more.assign(item_id=more["item_id"] + "b")]).to_csv(tmp_path / "controls.csv", index=False)
    text = config.read_text(encoding="utf-8").replace('budget = "100000.00 USD"',
                                                      'budget = "100000.00 USD"\nfx_rates = {GBP = "1.27"}')
    text = text.replace("assignments_per_image = 5\n", f"assignments_per_image = {workers}\n")
    config.write_text(text.replace("[answers]\n", f"[answers]\nquiz = {quiz}\n"), encoding="utf-8")
    return config


def test_the_quiz_is_spare_controls_balanced_over_their_answers(tmp_path: Path) -> None:
    cfg = load_config(_quiz(tmp_path))
    plan = custom_item_plan(cfg)
    record = quiz_record(cfg, plan)
    assert record is not None and record["mark"] == 7 and len(record["key"]) == 15
    ids = [k[0] for k in record["key"]]
    assert not set(ids) & {r["item_id"] for r in plan}  # never an item of the batches
    counts = Counter(k[2] for k in record["key"])
    assert max(counts.values()) - min(counts.values()) <= 1 and max(counts.values()) < record["mark"]
    assert all("answer" not in json.loads(r["payload"]) for r in record["rows"])  # the page never carries it
    assert quiz_record(load_config(_quiz(tmp_path, quiz=0)), plan) is None


def test_the_simulator_answers_a_control_quiz_by_profile_and_hitflow_judges_it(tmp_path: Path) -> None:
    """MTurk's quiz is a Test without an AnswerKey: the simulated worker answers it as on a page (the requester's
    known answers), hitflow reads the request and judges it with the pass mark and the sequential test. A
    contrarian gives one answer to everything and fails; a rushed worker clicks at random and mostly fails; an
    honest worker passes at their accuracy on the pages' known-answer choices."""
    from flows.platforms.mturk.quiz_requests import request_answers
    from flows.sim.mturk.question_form import question_form_answer, question_form_fields
    from flows.sim.people.crowd_model import BankEntry
    from postprocess.answers.control_items import quiz_verdicts

    cfg = load_config(_quiz(tmp_path))
    record = quiz_record(cfg, custom_item_plan(cfg))
    assert record is not None
    form = build_quiz_form(record)
    assert "AnswerKey" not in form
    fields, bank = question_form_fields(form), {k[0]: BankEntry([], 0, answers={k[1]: k[2]}) for k in record["key"]}

    def passed(profile: str, skill: float, runs: int = 100, **params: str) -> float:
        worker = Worker("W1", profile, dict(params), 1000, 99, skill=skill)
        answers = [question_form_answer(qual_tests.known_questions(worker, fields, bank, random.Random(k)), fields)
                   for k in range(runs)]
        mine = request_answers([{"WorkerId": f"w{k}", "Answer": a} for k, a in enumerate(answers)],
                               pd.DataFrame(record["key"], columns=["item_id", "field", "answer"]))
        return 1 - len(quiz_verdicts(mine, mine.iloc[:0], record)) / runs  # each judged alone: no crowd to doubt

    assert passed("contrarian", 0.9) == 0 and passed("diligent", 0.9, choices="wrong") == 0
    assert passed("speeder", 0.9) < 0.4
    assert passed("diligent", 0.55) > 0.97 and passed("typo_prone", 0.4) > 0.95  # the crowd's least accurate


def test_one_answer_to_everything_fails_the_quiz_its_score_alone_would_pass() -> None:
    """A yes/no quiz of 12 half of whose answers are "yes": one answer to everything scores 6 of 12, over MTurk's
    pass mark of 5 (the AnswerKey's score is all MTurk gives), and the sequential test on the answers stops it."""
    from postprocess.answers.control_items import quiz_verdicts

    truths = ["yes", "no"] * 6
    record = {"key": [[f"c{i}", "spam", t] for i, t in enumerate(truths)], "mark": quiz_mark(12)}
    given, _ = _answers({"constant": ["yes"] * 12, "honest": [*truths[:10], "no", "yes"]}, truths)
    assert quiz_failures(given, given, record) == {}  # the score alone passes both
    assert set(quiz_verdicts(given, given, record)) == {"constant"}


def _entry(store: Store, key: str) -> dict[str, Any]:
    entry = store.ledger_entry(key)
    assert entry is not None, f"no ledger entry {key}"
    return entry


# the campaigns run below: 20 items, three batches of two pages (40 made them four), three workers a page (five
# made more takers and pages, not other cases): the same quiz of 15 controls, adversaries and honest workers among
# its takers, passers working every batch
ITEMS, WORKERS = 20, 3


@pytest.mark.slow
def test_on_prolific_the_quiz_is_a_screening_study_whose_passers_alone_get_the_batches(tmp_path: Path) -> None:
    """Prolific: the quiz alone is a short study of its own; every finished taker is paid, the passers join a
    participant group, and every batch's study admits that group alone (the simulator's panel honours it)."""
    from flows.platforms.prolific import adapter as prolific

    config = _quiz(tmp_path, items=ITEMS, workers=WORKERS)
    with SimServer(seed=1, crowd_file=tmp_path / "crowd.toml") as sim:  # the project's crowd, adversaries too
        run_campaign(config, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path / "runs",
                     progress=lambda _: None, platform="prolific")
        store = Store(tmp_path / "h.db")
        group = json.loads(_entry(store, "sentiment:prolific:screened")["result"])["id"]
        members = {m["participant_id"] for m in prolific.every_page(
            prolific.make_client(sim.url, simulator=True), f"participant-groups/{group}/participants/")}
    record = json.loads(store.rows("SELECT config_json FROM campaigns")[0]["config_json"])["quiz"]
    quiz = [k[0] for k in record["key"]]
    sessions = store.rows("SELECT participant_id, batch, item_ids FROM task_sessions WHERE submitted_at IS NOT NULL")
    assert all(json.loads(r["item_ids"]) == quiz for r in sessions if r["batch"] == 0)  # the quiz alone, once
    assert not any(set(quiz) & set(json.loads(r["item_ids"])) for r in sessions if r["batch"] > 0)
    verdicts = {r["worker_id"]: r["passed"] for r in store.rows("SELECT worker_id, passed FROM qualification_scores "
                                                                "WHERE mode = 'control_quiz'")}
    assert verdicts.keys() == {r["participant_id"] for r in sessions if r["batch"] == 0}
    assert 0 < sum(verdicts.values()) < len(verdicts) and members == {w for w, ok in verdicts.items() if ok}
    worked = {r["participant_id"] for r in sessions if r["batch"] > 0}
    assert worked and worked <= members  # a passer admitted, no failer
    failed = {w for w, ok in verdicts.items() if not ok}
    paid = {r["participant_id"] for r in store.rows("SELECT participant_id FROM platform_submissions WHERE batch = 0 "
                                                    "AND status = 'APPROVED'")}
    assert failed <= paid  # they did the screening study's work
    for batch in (1, 2):
        filters = json.loads(_entry(store, f"sentiment:b{batch}:study")["params"])["filters"]
        assert {"filter_id": "participant_group_allowlist", "selected_values": [group]} in filters
    workers = pd.DataFrame(json.loads((tmp_path / "runs" / "sentiment" / "sim_workers.json").read_text()))
    wrong = set(workers.loc[workers.get("choices", pd.Series(dtype=str)).fillna("") == "wrong", "worker_id"])
    assert wrong & set(verdicts) and wrong & set(verdicts) <= failed
    honest = set(workers.loc[workers["profile"].isin(["diligent", "typo_prone", "slow"]), "worker_id"]) - wrong
    assert not honest & failed
    assert not set(quiz) & set(pd.read_csv(tmp_path / "runs" / "sentiment" / "dataset.csv", dtype=str)["item_id"])


@pytest.fixture(scope="module")
def mturk_quiz_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The quiz campaign on MTurk, pooled (the default rule), run once for the two tests below that read it: the
    quiz gate they pin (a qualification test, its requests judged, the HITs requiring it) is the same either way,
    and the pooled rule is what counts the quiz's answers (a run is ~2.7 s of CPU)."""
    folder = tmp_path_factory.mktemp("mturk-quiz")
    config = _quiz(folder, items=ITEMS, workers=WORKERS)
    config.write_text(config.read_text(encoding="utf-8").replace("control_pooling = false", "control_pooling = true"),
                      encoding="utf-8")
    run_campaign(config, db_path=folder / "h.db", out_root=folder / "runs", progress=lambda _: None,
                 platform="mturk")
    return folder


@pytest.mark.slow
def test_mturk_hits_require_the_quiz_hitflow_judges_from_its_requests(mturk_quiz_run: Path) -> None:
    from flows.campaigns.gate_view import control_pace_lines
    from flows.campaigns.task_kinds import load_campaign

    config = mturk_quiz_run / "sentiment.toml"
    # the dry run's gate lines as `hitflow run --dry-run` reads them (it prints them: tests/test_controls_first.py),
    # without its rehearsal of the campaign run below
    said = "\n".join(control_pace_lines(load_campaign(config, "mturk")))
    assert "quiz: 15 control items before any work" in said
    assert "pass mark 7 right, the most an honest worker right 80%" in said
    store, out = Store(mturk_quiz_run / "h.db"), mturk_quiz_run / "runs" / "sentiment"
    quals = {r["purpose"]: r["qualification_type_id"] for r in store.rows("SELECT * FROM qualifications")}
    requirements = json.loads(store.rows("SELECT params_json FROM hit_types")[0]["params_json"])
    assert {"QualificationTypeId": quals["control quiz"], "Comparator": "GreaterThanOrEqualTo",
            "IntegerValues": [1], "ActionsGuarded": "Accept"} in requirements["QualificationRequirements"]
    verdicts = {r["worker_id"]: r["passed"] for r in store.rows("SELECT worker_id, passed FROM qualification_scores "
                                                                "WHERE mode = 'control_quiz'")}
    kept = {r["assignment_id"] for r in store.rows("SELECT DISTINCT assignment_id FROM answers WHERE assignment_id "
                                                   "LIKE 'quiz%'")}
    assert kept == {f"quiz{'' if ok else '-failed'}:{w}" for w, ok in verdicts.items()}
    assert 0 < sum(verdicts.values()) < len(verdicts)
    workers = pd.DataFrame(json.loads((out / "sim_workers.json").read_text()))
    wrong = set(workers.loc[workers.get("choices", pd.Series(dtype=str)).fillna("") == "wrong", "worker_id"])
    worked = {r["worker_id"] for r in store.rows("SELECT worker_id FROM assignments WHERE batch > 0")}
    assert worked and not wrong & worked  # the adversaries failed the test: no HIT of the campaign
    assert worked <= {w for w, ok in verdicts.items() if ok}


@pytest.mark.slow
def test_a_run_killed_while_its_screening_study_closes_resumes_on_the_same_study_and_group(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C after the quiz is judged, before its takers are paid and the passers added: the next run pays
    them, fills the same group (no second group, no second screening study) and only then posts the batches."""
    from flows.platforms.prolific import adapter as prolific
    from flows.platforms.prolific import screening

    config, paid = _quiz(tmp_path, items=ITEMS, workers=WORKERS), screening.pay_takers

    def killed(run: object, study_id: str) -> None:
        monkeypatch.setattr(screening, "pay_takers", paid)  # the next run goes through
        raise KeyboardInterrupt

    monkeypatch.setattr(screening, "pay_takers", killed)
    with SimServer(seed=1, crowd_file=tmp_path / "crowd.toml") as sim:
        def run() -> None:
            run_campaign(config, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path / "runs",
                         progress=lambda _: None, platform="prolific")

        with pytest.raises(KeyboardInterrupt):
            run()
        store = Store(tmp_path / "h.db")
        assert store.table("studies").count_where("batch > 0") == 0  # no batch before its takers are settled
        run()
        client = prolific.make_client(sim.url, simulator=True)
        groups = [g["id"] for g in prolific.every_page(client, "participant-groups/")
                  if g["name"] == "hitflow-sentiment-screened"]
        members = {m["participant_id"] for m in prolific.every_page(
            client, f"participant-groups/{groups[0]}/participants/")}
        screenings = [s for s in prolific.every_page(client, "studies/") if s["internal_name"] == "sentiment batch 0"]
    verdicts = {r["worker_id"]: r["passed"] for r in store.rows("SELECT worker_id, passed FROM qualification_scores")}
    assert len(groups) == 1 and len(screenings) == 1 and members == {w for w, ok in verdicts.items() if ok}
    assert {r["participant_id"] for r in store.rows("SELECT participant_id FROM platform_submissions WHERE batch = 0 "
                                                    "AND status = 'APPROVED'")} == set(verdicts)
    worked = {r["worker_id"] for r in store.rows("SELECT worker_id FROM assignments WHERE batch > 0")}
    assert worked and worked <= members


@pytest.mark.slow
def test_a_prolific_dry_run_lists_the_quizs_screening_study_before_the_batches_admitting_its_passers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli.main import main

    config = _quiz(tmp_path)
    main(["run", str(config), "--dry-run", "--platform", "prolific", "--db", str(tmp_path / "h.db"), "--out",
          str(tmp_path / "o"), *UNREHEARSED])
    said = capsys.readouterr().out
    calls = said[said.index("POST participant-groups/ name=hitflow-sentiment-screened"):]
    screening = re.search(r"total_available_places=(\d+) -> [\d.]+ GBP with fees \(the control quiz's screening", calls)
    studies = re.findall(r"internal_name='sentiment batch [1-9]' places=(\d+)", calls)
    assert screening and studies and int(screening[1]) == min(sum(map(int, studies)), 2 * max(map(int, studies)))
    assert re.search(r"internal_name='sentiment batch 0' places=\d+ reward=[\d.]+ GBP \(the control quiz alone", calls)
    assert calls.index("batch 0") < calls.index("internal_name='sentiment batch 1'")
    assert calls.count("filters=approval_rate>=95,blocklist,allowlist=screened") == len(studies)


def test_prolific_prices_the_quiz_once_a_screened_participant_not_on_every_place(tmp_path: Path) -> None:
    """The estimate over the simulator's cost calculator: the batches' places at the page's own time, with or
    without a quiz, and the quiz once, in a screening study of its own timed for the quiz alone."""
    from flows.campaigns.task_kinds import load_campaign
    from flows.platforms.prolific import adapter as prolific
    from flows.platforms.prolific.estimate import prolific_estimate

    config = project(tmp_path, 60, 0, 0.2, per_page=1)
    with_quiz, on_mturk = load_campaign(config, "prolific"), load_campaign(config, "mturk")
    config.write_text(config.read_text(encoding="utf-8").replace("[answers]\n", "[answers]\nquiz = 0\n"),
                      encoding="utf-8")
    without = load_campaign(config, "prolific")
    assert with_quiz.prolific.estimated_minutes == without.prolific.estimated_minutes  # a place holds no quiz
    assert without.prolific.screening is None and on_mturk.prolific.screening is None
    assert with_quiz.prolific.screening is not None
    reward, minutes, _ = with_quiz.prolific.screening
    assert minutes > with_quiz.prolific.estimated_minutes and reward > with_quiz.prolific.reward
    units = {1: 20, 2: 20, 3: 20}
    with SimServer(seed=2) as sim:
        client = prolific.make_client(sim.url, simulator=True)
        quizzed, plain = prolific_estimate(with_quiz, units, client), prolific_estimate(without, units, client)
        once = Decimal(prolific.study_cost(client, int(reward * 100), 1)) / 100
    screening = [cost for what, cost in quizzed.parts if "screening" in what]
    places = [20 * with_quiz.worst_per_hit_with_top_ups] * 3
    assert [c for w, c in quizzed.parts if "screening" not in w] == [c for _, c in plain.parts]
    assert len(screening) == 1 and screening[0] == pytest.approx(float(once) * 2 * places[0], abs=0.05)
    assert 2 * places[0] < sum(places)  # a participant screened once, not a quiz on every place


def test_the_estimate_prices_a_screening_study_only_where_the_run_posts_a_quiz(tmp_path: Path) -> None:
    """A controls file the pages take whole leaves the run no quiz: the estimate then prices no screening study
    (it used to price the largest quiz the file could give, as if no page took a control)."""
    from flows.campaigns.task_kinds import load_campaign

    config = project(tmp_path, 20, 0, 0.2, per_page=1)
    planned = load_campaign(config, "prolific")
    assert planned.prolific.screening is not None and quiz_record(planned, custom_item_plan(planned)) is not None
    controls = tmp_path / "controls.csv"
    whole = pd.read_csv(controls, dtype=str)
    seen = set()
    for n in range(4, 25, 2):  # from too few for the pages to a quiz of its own
        whole[whole["item_id"].isin(whole["item_id"].drop_duplicates()[:n])].to_csv(controls, index=False)
        cfg = load_campaign(config, "prolific")
        try:
            posted = quiz_record(cfg, custom_item_plan(cfg)) is not None
        except ConfigError:  # too few for the pages: the run refuses it
            continue
        assert (cfg.prolific.screening is not None) == posted, n
        seen.add(posted)
    assert seen == {False, True}


@pytest.mark.slow
def test_the_pooled_rule_weighs_the_answers_of_mturks_quiz(mturk_quiz_run: Path) -> None:
    """MTurk's quiz answers come in qualification requests, apart from any page: the pooled rule (the default)
    counts them as control answers, as it counts the quiz's answers at the head of a first page elsewhere."""
    store = Store(mturk_quiz_run / "h.db")
    passed = {r["worker_id"] for r in store.rows("SELECT worker_id FROM qualification_scores WHERE passed")}
    worked = {r["worker_id"] for r in store.rows("SELECT worker_id FROM assignments WHERE batch > 0")}
    pooled = pd.read_csv(mturk_quiz_run / "runs" / "sentiment" / "workers.csv", dtype={"worker_id": str}).set_index(
        "worker_id")["pooled_controls"]
    assert worked and worked <= passed
    assert all(pooled[w] >= 15 for w in worked)  # the quiz's 15, and any the pages brought
