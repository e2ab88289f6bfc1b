"""A checkbox group whose options come from the item (``value="{{ item.cand1 }}"``: "which of these words are
person names"), on the simulator: each item's known answer read against its own options in the dry run,
answers.csv with one row per item's own option and its accuracy against each item's own truth, control items
on the group scoring workers; and the same page with fixed option values (c1..c4). Pages and items in
tests/pages/checkbox/."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from flows.core.config.config import load_config
from flows.custom.custom_task import dry_run_lines
from flows.custom.scaffold import scaffold
from postprocess.answers.control_items import control_scores

PAGES = Path(__file__).resolve().parent / "pages" / "checkbox"


def checkbox_config(root: Path, page: str = "names", truth: str = "gold_names", controls: bool = False) -> Path:
    scaffold(page, root)
    folder = root / "config"
    shutil.copy(PAGES / f"{page}.html.j2", folder / f"{page}.html.j2")
    shutil.copy(PAGES / "names_items.csv", folder / f"{page}_items.csv")
    shutil.copy(PAGES / "names_controls.csv", folder / "names_controls.csv")
    config = folder / f"{page}.toml"
    text = config.read_text(encoding="utf-8")
    for key, value in (("images_per_hit", "4"), ("assignments_per_image", "5"), ("batches", "2")):
        text = re.sub(rf"(?m)^{key} = \d+", f"{key} = {value}", text)
    text = re.sub(r'(?m)^budget = ".*?"', 'budget = "500.00 USD"', text)
    text = re.sub(r"(?m)^(items = .*)$", lambda m: m.group(1) + f'\ntruth = {{names = "{truth}"}}', text)
    if controls:
        text = text.replace('# controls = "names_controls.csv"', 'controls = "names_controls.csv"')
        text = re.sub(r"(?m)^# control_share = [\d.]+", "control_share = 0.25", text)
    config.write_text(text, encoding="utf-8")
    return config


def run(config: Path, root: Path) -> Path:
    from flows.driver.campaign_run import run_campaign

    run_campaign(config, db_path=root / "ledger.db", out_root=root / "runs", seed=3, platform="mturk",
                 progress=lambda _line: None)
    return root / "runs" / config.stem


def test_each_items_known_answer_is_read_against_its_own_options(tmp_path: Path) -> None:
    config = checkbox_config(tmp_path, controls=True)
    lines = dry_run_lines(load_config(config))
    assert not [line for line in lines if "fix the answer" in line]
    assert "simulated answers for names follow the known answers (column gold_names, control items)" in lines
    items = config.parent / "names_items.csv"
    frame = pd.read_csv(items, dtype=str)
    frame.loc[5, "gold_names"] = "Zelda"  # on no item's page
    frame.to_csv(items, index=False)
    wrong = [line for line in dry_run_lines(load_config(config)) if "fix the answer" in line]
    own = ", ".join(frame.loc[5, ["cand1", "cand2", "cand3", "cand4"]])
    assert wrong == [f"known answer for names on item s05 (column gold_names): 'Zelda' is not one of its options "
                     f"({own}); the simulator cannot follow it there, fix the answer"]


def test_answers_hold_each_items_own_options_and_controls_score_workers(tmp_path: Path) -> None:
    out = run(checkbox_config(tmp_path, controls=True), tmp_path)
    answers = pd.read_csv(out / "answers.csv", dtype=str, keep_default_na=False)
    items = pd.read_csv(PAGES / "names_items.csv", dtype=str).set_index("item_id")
    assert len(answers) == 4 * len(items)
    assert all(o in items.loc[i, ["cand1", "cand2", "cand3", "cand4"]].tolist()
               for i, o in zip(answers["item_id"], answers["option"], strict=True))
    truth = {i: set(g.split("|")) for i, g in items["gold_names"].items()}
    right = [(lab == "yes") == (o in truth[i]) for i, o, lab in zip(answers["item_id"], answers["option"],
                                                                   answers["label"], strict=True)]
    assert sum(right) / len(right) > 0.8
    summary = (out / "summary.txt").read_text()
    said = float(re.search(r"latent answers: accuracy ([\d.]+)", summary)[1])  # type: ignore[index]
    assert said > 0.8
    # one model per place on the page (the second box of every item), not one per word seen on an item or two
    places = sorted(re.findall(r"names\[([^\]]+)\]: \w+, chosen by auto", summary))
    assert places == [f"option {k}" for k in range(1, 5)]
    workers = pd.read_csv(out / "workers.csv")
    assert (workers["controls"] > 0).sum() >= 5  # each control asks four options of whoever answered it


def test_a_control_on_a_checkbox_group_is_right_whatever_order_its_ticks_are_written_in() -> None:
    given = pd.DataFrame({"worker_id": ["w", "w", "v"], "item_id": ["k1", "k2", "k1"], "field": "names",
                          "value": ["Tom|Maria", "Lena", "Tom"]})
    key = pd.DataFrame({"item_id": ["k1", "k2"], "field": "names", "answer": ["Maria|Tom", "Lena"]})
    scores = control_scores(given, key).set_index("worker_id")
    assert scores.loc["w", "correct"] == 2 and scores.loc["v", "correct"] == 0


@pytest.mark.parametrize("page, truth", [("codes", "gold_codes")])
def test_fixed_option_values_are_scored_against_each_items_truth(tmp_path: Path, page: str, truth: str) -> None:
    out = run(checkbox_config(tmp_path, page, truth), tmp_path)
    answers = pd.read_csv(out / "answers.csv", dtype=str, keep_default_na=False)
    assert sorted(set(answers["option"])) == ["c1", "c2", "c3", "c4"] and len(answers) == 4 * 24
    said = float(re.search(r"latent answers: accuracy ([\d.]+)", (out / "summary.txt").read_text())[1])  # type: ignore[index]
    assert said > 0.8


def test_a_worker_who_ticks_the_first_box_every_time_is_seen(tmp_path: Path) -> None:
    """Each item's first box names another word: read by value the contrarian's ticks never repeat; read by the
    box's place on the page they are one answer on every item."""
    crowd = (Path(__file__).resolve().parents[1] / "config" / "crowds" / "straight_liners.toml").read_text()
    crowd = crowd.replace('name = "diligent"\nshare = 0.481', 'name = "diligent"\nshare = 0.281').replace(
        'name = "contrarian"\nshare = 0.1', 'name = "contrarian"\nshare = 0.3')
    (tmp_path / "crowd.toml").write_text(re.sub(r"(?m)^caption_bank = .*$", "", crowd))  # the page has no text
    from flows.driver.campaign_run import run_campaign

    config = checkbox_config(tmp_path)
    run_campaign(config, db_path=tmp_path / "ledger.db", out_root=tmp_path / "runs", seed=3, platform="mturk",
                 progress=lambda _line: None, crowd=tmp_path / "crowd.toml")
    out = tmp_path / "runs" / "names"
    profiles = {w["worker_id"]: w["profile"] for w in json.loads((out / "sim_workers.json").read_text())}
    flags = pd.read_csv(out / "flags.csv", dtype=str)
    habit = set(flags.loc[flags["rule"].isin(["choice_straight_lining", "item_blind"]), "worker_id"])
    worked = set(pd.read_csv(out / "responses.csv", dtype=str)["worker_id"])
    contrarians = {w for w in worked if profiles[w] == "contrarian"}
    assert len(contrarians) >= 3 and contrarians <= habit
    assert all(profiles[w] == "contrarian" for w in habit)
