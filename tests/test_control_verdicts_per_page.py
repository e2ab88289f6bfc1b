"""The control verdicts the task server asks after every page (flows/campaigns/block_evidence.py,
``failed_controls`` for one worker) read that worker's answers and the crowd's counts of the controls they met,
not the whole campaign: at every page of a simulated campaign they equal the verdicts computed with the
DataFrame rules (postprocess/answers/control_items.py) from every answer of the campaign, read whole and cut down
in pandas; and the block step's whole-campaign look equals the same rules over everything."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from bench.answers_accuracy import OPTIONS, project
from flows.answers.control_items import stored_controls
from flows.campaigns import block_evidence
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.platforms.quiz_record import KEPT, stored_quiz
from flows.taskserver import task_server
from postprocess.answers.control_items import (
    ControlPolicy,
    blank_rows,
    blanks_as_wrong,
    control_blocks,
    control_scores,
    control_verdicts,
    crowd_tallies,
    quiz_failures,
    quiz_mark,
    single_choice,
    stopped_by_test,
    trusted_controls,
)

COLUMNS = ["worker_id", "item_id", "field", "value"]


def _by_rules(key: pd.DataFrame, mine: pd.DataFrame, crowd: pd.DataFrame, policy: ControlPolicy,
              quiz: dict[str, Any] | None) -> dict[str, str]:
    """The verdicts as the DataFrame rules give them: the controls-alone rule and the quiz's pass mark (with
    ``quiz``), then the sequential test, each over the controls the crowd's answers leave trusted."""
    trusted = trusted_controls(crowd, key)
    due = control_blocks(control_scores(mine, trusted), policy) if quiz is not None else pd.DataFrame(
        columns=["worker_id", "rules"])
    return {**dict(zip(due["worker_id"], due["rules"], strict=True)),
            **(quiz_failures(mine, crowd, quiz) if quiz is not None else {}), **stopped_by_test(mine, trusted)}


def test_the_row_path_equals_the_dataframe_rules_on_counted_answers() -> None:
    """control_verdicts on a GROUP BY's counts equals the DataFrame rules on the answers one by one: blanks to a
    required field (wrong), blanks to an optional one (no answer), padded values, a control of two rows, controls
    and a quiz item the crowd contradicts; 40 draws, seed fixed."""
    draw = random.Random(7)
    fields = {"mood": OPTIONS, "kind": ("a", "b"), "note": ("x", "y", "z")}  # note: optional, the others required
    policy = ControlPolicy(required=frozenset({"mood", "kind"}))
    stops = suspects = 0
    for _ in range(40):
        key = pd.DataFrame([(f"c{i}", f, draw.choice(fields[f])) for i, f in enumerate(draw.choices(list(fields),
                           k=12))], columns=["item_id", "field", "answer"])
        key = pd.concat([key, key.iloc[:1].assign(answer=fields[key.iloc[0]["field"]][1])], ignore_index=True)
        quiz = {"key": key.iloc[:6].values.tolist(), "mark": 4}
        rows = []
        for w in range(draw.randint(3, 12)):
            style = draw.choice(["right", "wrong", "one", "random"])
            for item, field, answer in draw.sample(key.values.tolist(), k=draw.randint(2, len(key))):
                value = {"right": answer, "one": fields[field][0], "random": draw.choice(fields[field]),
                         "wrong": next(o for o in fields[field] if o != answer)}[style]
                value = draw.choice([value, value, value, f" {value} ", "", " "]) if w % 3 == 0 else value
                rows.append((f"w{w}", item, field, value))
        given = blanks_as_wrong(pd.DataFrame(rows, columns=COLUMNS), policy.required)
        counted = Counter((i, f, v) for _, i, f, v in rows)
        tallies = crowd_tallies([(*k, n) for k, n in counted.items()], policy.required)
        controls = list(key.itertuples(index=False, name=None))
        for with_quiz in (quiz, None):
            expected = _by_rules(key, given, given, policy, with_quiz)
            assert control_verdicts(blank_rows(rows, policy.required), controls, tallies, policy,
                                    with_quiz) == expected
            stops += len(expected)
        suspects += len(trusted_controls(given, key)) < len(key)
    assert stops > 20 and suspects > 5  # the draws reach both the stops and the contradicted controls


def _whole_read(store: Store, campaign: str, batch: int) -> pd.DataFrame:
    """Every answer to a control of the campaign, read whole and cut down in pandas: the pages' of batches 1 to
    ``batch``, then the quiz's kept apart, blanks to a required field as wrong."""
    stored = stored_controls(store, campaign)
    assert stored is not None
    pages = pd.DataFrame(store.rows("SELECT a.worker_id, a.batch, x.item_id, x.field, x.value FROM answers x JOIN "
                                    "assignments a ON a.campaign = x.campaign AND a.assignment_id = x.assignment_id "
                                    "WHERE x.campaign = ?", [campaign]), columns=["batch", *COLUMNS])
    pages = pages[(pages["batch"] > 0) & (pages["batch"] <= batch)].drop(columns="batch")
    kept = pd.DataFrame(store.rows("SELECT assignment_id, item_id, field, value FROM answers WHERE campaign = ?",
                                   [campaign]), columns=["assignment_id", "item_id", "field", "value"])
    kept = kept[kept["assignment_id"].str.startswith(KEPT)]
    kept = kept.assign(worker_id=kept["assignment_id"].str.removeprefix(KEPT))[COLUMNS]
    given = pd.concat([pages, kept], ignore_index=True)
    given = given[(given["worker_id"] != "") & given["item_id"].isin(set(single_choice(stored[0])["item_id"]))]
    return blanks_as_wrong(given.reset_index(drop=True), stored[1].required)


def _expected(store: Store, campaign: str, batch: int, worker: str | None) -> dict[str, str]:
    """:func:`block_evidence.failed_controls`' verdicts (accuracy on) from :func:`_whole_read`: for one worker, over
    the controls they met and the crowd's answers to those; for None, over everything."""
    stored = stored_controls(store, campaign)
    assert stored is not None
    key, given = single_choice(stored[0]), _whole_read(store, campaign, batch)
    mine = given if worker is None else given[given["worker_id"] == worker]
    met = key if worker is None else key[key["item_id"].isin(set(mine["item_id"]))]
    crowd = given[given["item_id"].isin(set(met["item_id"]))]
    verdicts = _by_rules(met, mine, crowd, stored[1], stored_quiz(store, campaign))
    return {w: r for w, r in verdicts.items() if w not in block_evidence.settled_workers(store, campaign)}


def test_one_workers_look_equals_the_whole_campaigns_on_either_ledger(ledger_location: str) -> None:
    """On SQLite and PostgreSQL, a ledger written by hand: MTurk's quiz answers kept apart from the pages, a quiz
    item the crowd contradicts, blanks to a required field, a later batch left out
    of an earlier batch's look (its worker's quiz came on a page of theirs). Each worker's look, and the whole
    campaign's, give the verdicts of the whole read."""
    key = [[f"c{i}", "spam", t] for i, t in enumerate(["yes", "no"] * 6)]  # c0-c9 the quiz, c10-c11 on pages
    controls = {"min_seen": 3, "block_below": 0.5, "confidence": 1.645, "alpha": 0.05, "key": key,
                "required": ["spam"]}
    store = Store(ledger_location)
    store.insert_raw("campaigns", [{"name": "c", "config_path": "", "target": "", "config_json": json.dumps(
        {"controls": controls, "quiz": {"key": key[:10], "mark": quiz_mark(10), "rows": []}})}])
    right = [k[2] for k in key]
    given = {"honest": right, "constant": ["yes"] * 12, "blank": [" "] * 12, "late": [{"yes": "no"}.get(
        r, "yes") for r in right], **{f"crowd{n}": ["no", *right[1:]] for n in range(4)}}  # the crowd: c0 is "no"
    for worker, values in given.items():
        batch = 2 if worker == "late" else 1
        store.insert_raw("assignments", [{"assignment_id": f"a-{worker}", "hit_id": "h", "campaign": "c",
                                          "batch": batch, "worker_id": worker, "status": "Submitted"}])
        store.insert_raw("answers", [{"campaign": "c", "assignment_id": KEPT + worker if k < 10 and batch == 1
                                      else f"a-{worker}",
                                      "item_id": f"c{k}", "field": "spam", "value": v} for k, v in enumerate(values)])
    for batch in (1, 2):
        for who in [*given, None]:
            got = block_evidence.failed_controls(store, "c", batch, None if who is None else [who], accuracy=True)
            assert got == _expected(store, "c", batch, who), (batch, who)
    assert set(block_evidence.failed_controls(store, "c", 2, accuracy=True)) == {"constant", "blank", "late"}
    assert block_evidence.failed_controls(store, "c", 1, ["late"], accuracy=True) == {}
    stored = stored_controls(store, "c")
    assert stored is not None and "c0" not in set(trusted_controls(_whole_read(store, "c", 2), stored[0])["item_id"])


@pytest.mark.slow
def test_every_pages_verdicts_equal_the_whole_campaigns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A campaign on invitation links with the quiz, six adversaries, and every fourth control's answer in the file
    wrong (the crowd contradicts it); seed fixed. At every page the task server stores, its verdict for that worker
    and the block step's for everyone equal those from the whole campaign read whole."""
    # 30 items (60 before): still more than 40 looks, a page that stops its worker and a control the crowd drops
    config = project(tmp_path, 30, 6, 0.2, per_page=5, pooling=False)
    controls = pd.read_csv(tmp_path / "controls.csv", dtype=str)
    # the crowd follows the true answers (the items file's truth column, as a rehearsal's), the file another
    items = pd.read_csv(tmp_path / "sentiment_items.csv", dtype=str).assign(gold="")
    pd.concat([items, controls[["item_id", "text"]].assign(gold=controls["answer"])]).to_csv(
        tmp_path / "sentiment_items.csv", index=False)
    controls["answer"] = [OPTIONS[(OPTIONS.index(a) + 1) % 3] if k % 4 == 0 else a
                          for k, a in enumerate(controls["answer"])]
    controls.to_csv(tmp_path / "controls.csv", index=False)
    config.write_text(re.sub(r"(?m)^(items = .*)$", r'\1\ntruth = {sentiment = "gold"}',
                             config.read_text(encoding="utf-8")), encoding="utf-8")
    looks: list[tuple[str, dict[str, str], dict[str, str]]] = []
    stop_failing = task_server.stop_failing

    def checked(store: Store, campaign: str, batch: int, participant: str) -> None:
        for worker in (participant, None):
            looks.append((str(worker), block_evidence.failed_controls(
                store, campaign, batch, None if worker is None else [worker], accuracy=True),
                _expected(store, campaign, batch, worker)))
        stop_failing(store, campaign, batch, participant)

    monkeypatch.setattr(task_server, "stop_failing", checked)
    run_campaign(config, db_path=tmp_path / "h.db", out_root=tmp_path / "runs", progress=lambda _: None,
                 platform="links")
    assert len(looks) > 40, len(looks)
    assert [look for look in looks if look[1] != look[2]] == []
    assert sum(bool(got) for worker, got, _ in looks if worker != "None") >= 1  # some page stopped its worker
    store = Store(tmp_path / "h.db")
    stored = stored_controls(store, "sentiment")
    assert stored is not None
    given = _whole_read(store, "sentiment", 3)
    assert len(trusted_controls(given, stored[0])) < len(stored[0])  # the crowd's counts dropped a control
