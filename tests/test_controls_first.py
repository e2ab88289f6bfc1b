"""Controls where they count: with control items every page of two items or more carries one, so a worker's
first page does whichever they take; a worker whose control answers fail the control rule is stopped before
their next page (the task server refuses it; MTurk's collection blocks them between its polls) and their answers
stay out of dataset.csv, dataset.json and answers.csv."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from bench.answers_accuracy import project
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.custom.custom_task import custom_item_plan
from flows.driver.campaign_run import run_campaign
from postprocess.answers.control_items import ControlPolicy, control_blocks, control_scores
from tests.small_configs import UNREHEARSED


@pytest.mark.parametrize(("share", "page"), [(0.1, 5), (0.05, 10), (0.2, 4)])
def test_every_page_of_two_items_or_more_carries_a_control(tmp_path: Path, share: float, page: int) -> None:
    config = project(tmp_path, 120, 0, share, per_page=page)
    more = pd.read_csv(tmp_path / "controls.csv", dtype=str)
    extra = more.assign(item_id=more["item_id"] + "b")  # one a page needs more than the share's count
    pd.concat([more, extra]).to_csv(tmp_path / "controls.csv", index=False)
    plan = custom_item_plan(load_config(config))
    controls = set(pd.read_csv(tmp_path / "controls.csv", dtype=str)["item_id"])
    pages: dict[tuple[int, int], int] = {}
    for row in plan:
        key = (row["batch"], row["hit_index"])
        pages[key] = pages.get(key, 0) + (row["item_id"] in controls)
    assert min(pages.values()) == 1 and max(pages.values()) <= 2  # share x page < 1: one a page, never fewer


def _links_campaign(tmp_path: Path, platform: str, items: int = 60) -> tuple[Path, list[str]]:
    """Six adversaries (always wrong on a choice), controls alone (0 right of the first 3 stops a worker),
    one control a page of 5 (share 0.2), no quiz (tests/test_control_quiz.py)."""
    config = project(tmp_path, items, 6, 0.2, per_page=5, pooling=False)
    text = config.read_text(encoding="utf-8").replace('budget = "100000.00 USD"',
                                                      'budget = "100000.00 USD"\nfx_rates = {GBP = "1.27"}')
    config.write_text(text.replace("[answers]\n", "[answers]\ncontrol_min_seen = 3\nquiz = 0\n"), encoding="utf-8")
    said: list[str] = []
    run_campaign(config, db_path=tmp_path / "h.db", out_root=tmp_path / "runs", progress=said.append,
                 platform=platform)
    return tmp_path / "runs" / "sentiment", said


@pytest.mark.slow
def test_the_task_server_refuses_the_next_page_of_a_worker_failing_their_controls(tmp_path: Path) -> None:
    out, _ = _links_campaign(tmp_path, "links")
    store = Store(tmp_path / "h.db")
    stopped = {r["worker_id"]: r for r in store.rows("SELECT * FROM blocks WHERE mode = 'next page refused'")}
    assert stopped
    key = pd.read_csv(tmp_path / "controls.csv", dtype=str)
    for worker in stopped:
        pages = store.rows("SELECT assignment_id FROM assignments WHERE worker_id = ? ORDER BY submit_time, rowid",
                           [worker])
        given = pd.DataFrame(store.rows("SELECT x.assignment_id, x.item_id, x.field, x.value FROM answers x JOIN "
                                        "assignments a ON a.assignment_id = x.assignment_id WHERE a.worker_id = ?",
                                        [worker])).assign(worker_id=worker)
        # the rule fires on the last page they were given, never earlier: no page after the one that failed them
        failed = [control_blocks(control_scores(given[given["assignment_id"].isin(
            [p["assignment_id"] for p in pages[:n]])], key), ControlPolicy()).shape[0] > 0
            for n in range(1, len(pages) + 1)]
        assert failed[-1] and not any(failed[:-1]), worker
    # their answers are in responses.csv, out of the dataset and the answers
    responses = pd.read_csv(out / "responses.csv", dtype=str, keep_default_na=False)
    assert set(stopped) <= set(responses["worker_id"])
    assert not set(stopped) & set(pd.read_csv(out / "dataset.csv", dtype=str)["worker_id"])
    dataset = json.loads((out / "dataset.json").read_text(encoding="utf-8"))
    assert not set(stopped) & {r["worker_id"] for i in dataset["items"] for r in i["responses"]}
    workers = pd.read_csv(out / "workers.csv", dtype=str, keep_default_na=False)
    counted = workers[pd.to_numeric(workers.get("items", pd.Series(dtype=str)), errors="coerce").fillna(0) > 0]
    assert not set(stopped) & set(counted["worker_id"])


@pytest.mark.slow
def test_mturk_collection_stops_workers_between_its_polls(tmp_path: Path) -> None:
    _, said = _links_campaign(tmp_path, "mturk", items=120)  # at 60, MTurk-sim's adversaries take 3 pages at most
    during = [line for line in said if "stopped on their control items" in line]
    assert during
    store = Store(tmp_path / "h.db")
    blocked = store.rows("SELECT worker_id, batch, rules FROM blocks WHERE rules LIKE 'control_accuracy%'")
    assert blocked and all(r["rules"].startswith("control_accuracy 0%") for r in blocked)


def test_the_dry_run_says_after_how_many_pages_each_control_rule_can_judge(tmp_path: Path, capsys) -> None:
    from flows.campaigns.gate_view import control_pace_lines
    from flows.cli.main import main

    config = project(tmp_path, 60, 0, 0.2, per_page=5)
    assert main(["run", str(config), "--dry-run", "--db", str(tmp_path / "h.db"), "--out", str(tmp_path / "o"),
                 *UNREHEARSED]) == 0
    said = capsys.readouterr().out
    assert "control items: every page carries one, so a worker's first page does; control_accuracy can stop a " \
           "worker after 3 of their pages (0 right of the first 3)" in said
    # a control 1 source, a page's four other labels 4/5 of one: two pages reach the 2 sources a block needs
    assert "worker_skill (controls pooled with agreement) can judge a worker after 2 of their pages" in said
    assert re.search(r"gate: quiz: \d+ control items before any work", said)  # judged before their first page's work
    # too few controls for one a page: the share alone, and the dry run's pace lines (printed as above) say a
    # first page may carry none; read from them and the plan, without rehearsing a second campaign
    (tmp_path / "short").mkdir()
    config = project(tmp_path / "short", 60, 0, 0.05, per_page=10)
    pd.read_csv(tmp_path / "short" / "controls.csv", dtype=str).head(6).to_csv(tmp_path / "short" / "controls.csv",
                                                                               index=False)
    cfg = load_config(config)
    assert custom_item_plan(cfg)  # six controls are enough for the plan: no refusal
    assert re.search(r"control items: \d+ of \d+ pages carry none, so a worker who starts on one meets a control "
                     "later", "\n".join(control_pace_lines(cfg)))


def test_new_proposes_a_controls_file_from_a_column_of_known_answers(tmp_path: Path, capsys) -> None:
    from flows.cli.main import main

    page = Path(__file__).resolve().parents[1] / "bench" / "controls_pages" / "animal_kind.html"
    items = tmp_path / "animals.csv"
    items.write_text("item_id,description,group_answer\na1,Fur and milk.,mammal\na2,Feathers.,bird\n"
                     "a3,Gills and fins.,\n", encoding="utf-8")
    assert main(["new", "animal", "--from", str(page), "--items", str(items), "--dir", str(tmp_path)]) == 0
    said = capsys.readouterr().err
    assert "proposed control items: 2 of the 2 row(s) of animals.csv that give group's answer in column " \
           "'group_answer'" in said
    proposal = pd.read_csv(tmp_path / "config" / "animal_controls.csv", dtype=str)
    assert proposal.to_dict("records") == [{"item_id": "a1", "field": "group", "answer": "mammal"},
                                           {"item_id": "a2", "field": "group", "answer": "bird"}]
    # a truth column on every item (gold_<field>) proposes a fifth of them, at least ten, spread over the file
    rows = "".join(f"b{k:02d},Fur.,{'mammal' if k % 2 else 'bird'}\n" for k in range(30))
    items.write_text("item_id,description,gold_group\n" + rows, encoding="utf-8")
    assert main(["new", "all", "--from", str(page), "--items", str(items), "--dir", str(tmp_path)]) == 0
    assert "proposed control items: 10 of the 30 row(s)" in capsys.readouterr().err
    spread = pd.read_csv(tmp_path / "config" / "all_controls.csv", dtype=str)["item_id"].tolist()
    assert spread == [f"b{k:02d}" for k in range(0, 30, 3)]
    # a lopsided column whose even spread falls on one answer (every third row a bird): half each, each spread, so
    # that one answer to everything gets half the quiz right, not all of it
    rows = "".join(f"b{k:02d},Fur.,{'bird' if k % 3 == 0 else 'mammal'}\n" for k in range(30))
    items.write_text("item_id,description,gold_group\n" + rows, encoding="utf-8")
    assert main(["new", "lopsided", "--from", str(page), "--items", str(items), "--dir", str(tmp_path)]) == 0
    assert "proposed control items: 10 of the 30 row(s)" in capsys.readouterr().err
    proposal = pd.read_csv(tmp_path / "config" / "lopsided_controls.csv", dtype=str)
    assert proposal["answer"].value_counts().to_dict() == {"bird": 5, "mammal": 5}
    assert proposal["item_id"].tolist() == ["b00", "b01", "b06", "b07", "b12", "b13", "b18", "b19", "b24", "b25"]
    # a column whose values are not the field's options is no known answer: nothing proposed
    items.write_text("item_id,description,answer\na1,Fur.,cat\n", encoding="utf-8")
    assert main(["new", "other", "--from", str(page), "--items", str(items), "--dir", str(tmp_path)]) == 0
    assert "proposed control items" not in capsys.readouterr().err
    assert not (tmp_path / "config" / "other_controls.csv").exists()


def test_new_leaves_a_controls_file_of_ones_own_and_says_its_proposal_is_optional(tmp_path: Path, capsys) -> None:
    """A controls file at the path the docs give one (config/NAME_controls.csv) is the user's: the proposal goes
    beside it, and its note says nothing reads it unless named, and that a truth column for the rehearsal's figures
    alone needs none. Before, the import refused: "config/NAME_controls.csv already exist(s); nothing was written"."""
    from flows.cli.main import main

    page = Path(__file__).resolve().parents[1] / "bench" / "controls_pages" / "animal_kind.html"
    items = tmp_path / "animals.csv"
    items.write_text("item_id,description,gold_group\na1,Fur and milk.,mammal\na2,Feathers.,bird\na3,Gills.,\n",
                     encoding="utf-8")
    (tmp_path / "config").mkdir()
    own = tmp_path / "config" / "animal_controls.csv"
    own.write_text("item_id,field,answer,description\nc1,group,bird,Wings.\n", encoding="utf-8")
    assert main(["new", "animal", "--from", str(page), "--items", str(items), "--dir", str(tmp_path)]) == 0
    said = capsys.readouterr().err
    assert own.read_text(encoding="utf-8") == "item_id,field,answer,description\nc1,group,bird,Wings.\n"
    proposal = pd.read_csv(tmp_path / "config" / "animal_controls_proposed.csv", dtype=str)
    assert proposal["item_id"].tolist() == ["a1", "a2"]
    note = next(line for line in said.splitlines() if "proposed control items" in line)
    assert "written to config/animal_controls_proposed.csv (config/animal_controls.csv is yours" in note
    assert "(of its 3)" in note and "optional" in note and '[campaign] truth = {group = "gold_group"}' in note
