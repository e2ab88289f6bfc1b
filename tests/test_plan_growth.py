"""A pilot grows into the full run: ``hitflow run CONFIG --limit 10`` and then the
same command without the limit is one campaign; the new items get new batches, the pilot's items are
posted and paid once.

Found by hand: the full run after a pilot of 20 was refused ("planned on 23 item(s)": 3 control items
the pilot added without a word), and ``--new-attempt`` paid for the pilot's items again."""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from bench.answers_accuracy import project
from flows.core.ledger.store import Store
from tests.small_configs import UNREHEARSED, small_vizwiz
from tests.test_cancel_resume import hitflow


def sentiment(tmp_path: Path, items: int) -> Path:
    """A custom sentiment page with 20% control items, 5 a page, 3 batches of 5 workers an item."""
    config = project(tmp_path, items, 0, 0.2)
    # no quiz: it would take its controls from the file first (tests/test_control_quiz.py), and growth is the test
    text = config.read_text(encoding="utf-8").replace("images_per_hit = 10", "images_per_hit = 5")
    config.write_text(text.replace("[answers]\n", "[answers]\nquiz = 0\n"), encoding="utf-8")
    return config


def work_per_item(store: Store, campaign: str) -> Counter[str]:
    """How many assignments (each paid or rejected once) covered each item, from the HITs' own item lists."""
    hits = {h["hit_id"]: json.loads(h["item_ids"]) for h in store.rows(
        "SELECT hit_id, item_ids FROM hits WHERE campaign = ?", [campaign])}
    count: Counter[str] = Counter()
    for a in store.rows("SELECT hit_id FROM assignments WHERE campaign = ? AND batch > 0", [campaign]):
        count.update(hits[a["hit_id"]])
    return count


def test_a_pilot_of_10_grows_to_20_items_each_paid_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    # 20 items: the growth (10 more, in batches of their own) is what is checked, not its size (35 cost ~1.5 s more)
    config, ledger = sentiment(tmp_path, 20), str(tmp_path / "h.db")
    controls = set(pd.read_csv(tmp_path / "controls.csv", dtype=str)["item_id"])
    assert hitflow("run", str(config), "--no-prefect", "--db", ledger, "--limit", "10") == 0
    pilot = capsys.readouterr().out
    store = Store(ledger)
    pilot_hits = store.rows("SELECT hit_id, batch, item_ids FROM hits WHERE campaign = 'sentiment' ORDER BY hit_id")
    pilot_controls = {r["item_id"] for r in store.rows("SELECT item_id FROM items")} & controls
    assert f"plan: 10 item(s) in 3 batch(es); {len(pilot_controls)} control item(s) with known answers" in pilot
    # the dry run prices a plan from scratch and says so once the ledger holds the pilot's (bench/newcomer.py)
    # (another ledger's run would be refused the pilot's output folder: the dry run says so too, so another one)
    # (read from the plan: neither dry run rehearses the campaign, tests/small_configs.UNREHEARSED)
    assert hitflow("run", str(config), "--dry-run", "--db", str(tmp_path / "none.db"), "--out",
                   str(tmp_path / "elsewhere"), *UNREHEARSED) == 0
    assert "already holds" not in capsys.readouterr().out and not (tmp_path / "none.db").exists()
    assert hitflow("run", str(config), "--dry-run", "--db", ledger, *UNREHEARSED) == 0
    assert f"note: {ledger} already holds sentiment's plan ({10 + len(pilot_controls)} item(s), control items " \
           "included, in batch(es) 1-3)" in capsys.readouterr().out
    assert hitflow("run", str(config), "--no-prefect", "--db", ledger) == 0, capsys.readouterr().err
    grown = capsys.readouterr().out
    items = store.rows("SELECT item_id, batch FROM items WHERE campaign = 'sentiment'")
    new_controls = {r["item_id"] for r in items if r["batch"] > 3} & controls
    assert "plan: sentiment grows by 10 item(s) after its 10 planned ones, in batch(es) 4-6" in grown, grown
    assert f"{len(new_controls)} control item(s) with known answers are mixed in" in grown
    assert new_controls and not new_controls & pilot_controls  # a control is used once
    ordinary = [f"r{k:05d}" for k in range(20)]
    assert sorted(r["item_id"] for r in items if r["item_id"] not in controls) == ordinary
    # the pilot's HITs are the pilot's, untouched; no HIT after it shows a pilot item
    assert store.rows("SELECT hit_id, batch, item_ids FROM hits WHERE campaign = 'sentiment' AND batch <= 3 "
                      "ORDER BY hit_id") == pilot_hits
    assert store.table("hits").count_where("batch > 3 AND item_ids LIKE '%r0000_%'") == 0  # r00000-r00009
    per_item = work_per_item(store, "sentiment")
    assert {per_item[i] for i in ordinary} == {5}  # every item worked (and paid or rejected) 5 times, not 10
    assert {per_item[i] for i in pilot_controls | new_controls} == {5}
    creates = store.rows("SELECT idem_key FROM ledger WHERE campaign = 'sentiment' "
                         "AND operation = 'CreateHITWithHITType'")
    assert len(creates) == store.table("hits").count_where("campaign = 'sentiment'")  # one call a HIT
    paid = Counter(json.loads(e["params"])["AssignmentId"] for e in store.rows(
        "SELECT params FROM ledger WHERE campaign = 'sentiment' AND operation IN ('ApproveAssignment', "
        "'RejectAssignment')"))
    assert set(paid.values()) == {1} and len(paid) == store.table("assignments").count_where("batch > 0")
    answers = pd.read_csv(tmp_path / "runs" / "sentiment" / "answers.csv", dtype=str)
    assert sorted(answers["item_id"]) == ordinary
    # run again: nothing more; a smaller run is refused in one line, nothing posted
    calls = store.table("ledger").count_where("campaign = 'sentiment'")
    assert hitflow("run", str(config), "--no-prefect", "--db", ledger) == 0
    assert not [line for line in capsys.readouterr().out.splitlines() if line.startswith("plan: ")]  # none again
    assert hitflow("run", str(config), "--no-prefect", "--db", ledger, "--limit", "15") == 2
    said = capsys.readouterr().err
    assert f"planned on 20 item(s) and {len(pilot_controls | new_controls)} control item(s); this run asks " \
           "for 15 item(s)" in said, said
    assert store.table("ledger").count_where("campaign = 'sentiment'") == calls


@pytest.fixture(scope="module")
def grown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A caption campaign of 3 items under a tight budget, then its items file grown to 5: the growth refused by
    the budget, then, the budget raised, through. One campaign for the two tests below (a pilot and a growth of
    their own cost ~0.9 s more): the refused growth leaves the plan as it was (the second test), so the growth
    that goes through is the one rows appended to the items file get (the first)."""
    folder = tmp_path_factory.mktemp("grown")
    tight = {'budget = "1400.00 USD"': 'budget = "12.00 USD"'}
    seen: dict[str, Any] = {"folder": folder}

    def run(step: str) -> None:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = hitflow("run", str(config), "--no-prefect", "--db", str(folder / "h.db"))
        seen[step] = (code, out.getvalue(), err.getvalue())

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        config = small_vizwiz(folder, items=3, edits=tight)
        run("pilot")
        store = Store(folder / "h.db")
        seen["planned"] = store.rows("SELECT item_id, batch FROM items ORDER BY rowid")
        seen["info"] = store.rows("SELECT config_json FROM campaigns")[0]["config_json"]
        small_vizwiz(folder, items=5, edits=tight)  # two rows more than the budget pays for
        run("refused")
        seen["refused_plan"] = store.rows("SELECT item_id, batch FROM items ORDER BY rowid")
        seen["refused_info"] = store.rows("SELECT config_json FROM campaigns")[0]["config_json"]
        small_vizwiz(folder, items=5)  # the budget raised: the same growth goes through
        run("grown")
    return seen


def test_rows_appended_to_a_caption_campaign_s_items_get_batches_of_their_own(grown: dict[str, Any]) -> None:
    assert grown["pilot"][0] == 0, grown["pilot"][2]
    code, out, err = grown["grown"]
    assert code == 0, err
    assert "grows by 2 item(s) after its 3 planned ones, in batch(es) 4-5" in out
    store = Store(grown["folder"] / "h.db")
    assert {r["batch"]: r["n"] for r in store.rows("SELECT batch, count(*) AS n FROM hits GROUP BY batch")} == \
        {1: 1, 2: 1, 3: 1, 4: 1, 5: 1}
    assert set(work_per_item(store, "vizwiz_captions").values()) == {5}
    dataset = pd.read_csv(grown["folder"] / "runs" / "vizwiz_captions" / "dataset.raw.csv")
    assert dataset.groupby("image_id").size().tolist() == [5] * 5


def test_a_growth_the_budget_refuses_leaves_the_pilot_s_plan_as_it_was(grown: dict[str, Any]) -> None:
    assert grown["pilot"][0] == 0, grown["pilot"][2]
    code, _, err = grown["refused"]
    assert code == 6 and "nothing was posted" in err
    assert len(grown["planned"]) == 3 and grown["refused_plan"] == grown["planned"]
    assert grown["refused_info"] == grown["info"]
    code, out, err = grown["grown"]
    assert code == 0, err
    assert "grows by 2 item(s) after its 3 planned ones" in out
