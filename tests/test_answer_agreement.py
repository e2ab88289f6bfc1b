"""Blocking on agreement with the other workers' answer: a worker judged only against a
strict majority of the *others* on an item, blocked on a Wilson bound after enough items; on the
simulator it catches a consistently-wrong worker before the last batch that 5% control items alone
miss, and blocks no one in an honest crowd."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from bench.answers_accuracy import project
from flows.campaigns.batch_hold import overreaching
from flows.campaigns.block_evidence import agreement_scores_so_far
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from postprocess.answers.answer_agreement import AgreementPolicy, agreement_blocks, agreement_scores
from qc.decisions import DecisionPolicy
from qc.flags import FLAG_COLUMNS
from qc.review_queue import build_queue
from qc.worker_history import BLOCK_COLUMNS


def _labels(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["worker_id", "item_id", "value"]).assign(field="f")


def test_scores_by_hand() -> None:
    given = _labels([(w, "i1", v) for w, v in (("a", "x"), ("b", "x"), ("c", "x"), ("d", "y"))]
                    + [(w, "i2", v) for w, v in (("a", "x"), ("b", "y"), ("c", "y"), ("d", "z"))]
                    + [(w, "i3", v) for w, v in (("a", "x"), ("b", "x"), ("c", " "))])
    scores = agreement_scores(given, min_others=3).set_index("worker_id")
    # i1: each of a, b, c has two of three others on x (agree); d's others are x, x, x (disagree).
    # i2: a's others y, y, z (2 of 3: disagree); b's and c's others split one y to two others: no
    # answer; d's others x, y, y (disagree). i3: two labels (c's is blank): too few others
    assert scores.to_dict("index") == {"a": {"judged": 2, "agreed": 1, "agreement": 0.5},
                                       "b": {"judged": 1, "agreed": 1, "agreement": 1.0},
                                       "c": {"judged": 1, "agreed": 1, "agreement": 1.0},
                                       "d": {"judged": 2, "agreed": 0, "agreement": 0.0}}
    assert agreement_scores(given, min_others=4).empty  # no item has five labels


def test_a_worker_is_never_their_own_majority() -> None:
    # two workers on three items: the other one is a single label, never a majority of 3
    given = _labels([(w, i, "x") for w in ("a", "b") for i in ("i1", "i2", "i3")])
    assert agreement_scores(given, min_others=3).empty
    # with their own label counted, "a" and "b" would agree with a 2-of-3 majority for x; each one's
    # others are split (x, y), so neither is judged; "c"'s others agree on x
    split = _labels([("a", "i", "x"), ("b", "i", "x"), ("c", "i", "y")])
    assert agreement_scores(split, min_others=2).to_dict("records") == [
        {"worker_id": "c", "judged": 1, "agreed": 0, "agreement": 0.0}]


def test_blocks_need_enough_items_and_a_clear_rate() -> None:
    rows = [(w, f"i{k}", "x") for w in ("h1", "h2", "h3") for k in range(12)]
    rows += [("bad", f"i{k}", "y") for k in range(12)] + [("new", f"i{k}", "y") for k in range(5)]
    rows += [("slip", f"i{k}", "y" if k % 3 == 0 else "x") for k in range(12)]
    scores = agreement_scores(_labels(rows), min_others=3)
    blocks = agreement_blocks(scores, AgreementPolicy(block_below=0.5, min_items=10))
    assert blocks.to_dict("records") == [{"worker_id": "bad", "rules": "answer_agreement 0% (0/12)", "flags": 12,
                                          "captions": 12}]  # "new": 5 judged; "slip": 8 of 12 agree
    assert agreement_blocks(scores, AgreementPolicy(block_below=0.5, min_items=5))["worker_id"].tolist() == [
        "bad", "new"]
    assert agreement_blocks(scores, AgreementPolicy(block_below=0, min_items=1)).empty


def test_a_rule_on_most_of_the_batch_holds_it() -> None:
    """Our defect never falls on the crowd: agreement blocks on most of a batch's workers are the
    hold's business like any rule's (a page whose choices read two ways)."""
    decisions = pd.DataFrame({"worker_id": list("abcde"), "action": "approve", "reasons": ""})
    blocks = pd.DataFrame({"worker_id": list("abcd"), "rules": ["answer_agreement 10% (1/10)" for _ in "abcd"]})
    assert overreaching(decisions, blocks, 0.5) == [("answer_agreement", 4, 5)]


def test_a_batch_without_flags_lists_its_blocks_for_review() -> None:
    """A block on control items or agreement alone, in a batch where no QC rule flagged anything,
    is a queue item like a flag-based block (the queue used to skip a flag-free batch)."""
    flags = pd.DataFrame([["W1", "min_words", "2", "3", "A1", "i1", "short", 1]], columns=[*FLAG_COLUMNS, "batch"])
    work = pd.DataFrame([["A1", "W1", 1, 1000.0], ["A2", "W2", 2, 1000.0]],
                        columns=["assignment_id", "worker_id", "batch", "auto_approval_time"])
    due = {1: pd.DataFrame(columns=BLOCK_COLUMNS),
           2: pd.DataFrame([["W2", "answer_agreement 0% (0/8)", 8, 8]], columns=BLOCK_COLUMNS)}
    actions = pd.DataFrame(columns=["batch", "worker_id", "assignment_id", "action", "reviewer"])
    queue = build_queue(flags, work, actions, DecisionPolicy(), "flagged", now=0.0, would_block=due)
    listed = queue[queue["kind"] == "worker"]
    assert listed[["batch", "worker_id", "rules"]].values.tolist() == [[2, "W2", "answer_agreement 0% (0/8)"]]


def test_other_tasks_refuse_the_rule(tmp_path: Path) -> None:
    from flows.campaigns.campaign_plan import planned_items
    from flows.core.config.config import load_config
    from flows.core.errors import ConfigError
    from tests.small_configs import small_vizwiz

    captions = small_vizwiz(tmp_path, items=5)
    captions.write_text(captions.read_text().replace("[answers]\n", "[answers]\nagreement_block_below = 0.35\n", 1),
                        encoding="utf-8")  # the demo's own [answers] table (caption top-ups) takes the key
    with pytest.raises(ConfigError, match=r'agreement_block_below judges the choices of a page of your own'):
        planned_items(load_config(captions))


HONEST_CROWD = """seed = 3
[[profile]]
name = "diligent"
count = 10
[[profile]]
name = "typo_prone"
count = 2
[[profile]]
name = "slow"
count = 2
"""
ITEMS = 75  # in three batches (150 and 100 blocked the same workers; at 60 controls alone left no wrong worker in)
WRONG = '[[profile]]\nname = "diligent"\ncount = 2\nchoices = "wrong"\n'


def _campaign(folder: Path, agreement: float, crowd: str, pooling: bool = False) -> tuple[pd.DataFrame, set[str], Path]:
    """An ITEMS-item, 3-batch sentiment campaign with 5% controls: its blocks, its wrong workers. Controls
    alone (``pooling`` False) or pooled with agreement (postprocess/answers/worker_skill.py)."""
    folder.mkdir()
    config = project(folder, ITEMS, 0, 0.05, seed=3, agreement=agreement, pooling=pooling)
    text = config.read_text(encoding="utf-8").replace("images_per_hit = 10", "images_per_hit = 5")
    # no quiz: the wrong workers would fail it and never work; these tests read the rules that block between batches
    config.write_text(text.replace("[answers]\n", "[answers]\nquiz = 0\n"), encoding="utf-8")
    (folder / "crowd.toml").write_text(crowd, encoding="utf-8")
    run_campaign(config, db_path=folder / "h.db", out_root=folder / "runs", progress=lambda _: None)
    out = folder / "runs" / "sentiment"
    workers = pd.DataFrame(json.loads((out / "sim_workers.json").read_text()))
    wrong = set(workers.loc[workers.get("choices", pd.Series("", index=workers.index)).fillna("") == "wrong",
                            "worker_id"])
    return pd.read_csv(out / "blocked_workers.csv", dtype=str, keep_default_na=False), wrong, folder / "h.db"


@pytest.mark.slow
def test_agreement_blocks_the_consistently_wrong_before_the_last_batch(tmp_path: Path) -> None:
    """At 5% controls a wrong worker meets too few controls in two batches; their agreement with the
    others blocks them after the first or second batch. The same campaign without the rule does not."""
    without, wrong, _ = _campaign(tmp_path / "off", 0.0, HONEST_CROWD + WRONG)
    missed = wrong - set(without.loc[without["batch"].astype(int) < 3, "worker_id"])
    assert len(wrong) == 2 and missed  # controls alone leave one (at least) working in the last batch
    blocks, wrong_again, db = _campaign(tmp_path / "on", 0.35, HONEST_CROWD + WRONG)
    assert wrong_again == wrong
    early = blocks[blocks["batch"].astype(int) < 3]
    assert set(early["worker_id"]) == wrong  # both, and no one else
    assert early.set_index("worker_id").loc[sorted(missed), "rules"].str.contains("answer_agreement").all()
    scores = agreement_scores_so_far(Store(db), "sentiment", 2)
    assert scores is not None and (scores.loc[scores["worker_id"].isin(wrong), "agreement"] < 0.2).all()


@pytest.mark.slow
def test_an_honest_crowd_is_not_blocked_on_agreement_nor_on_pooled_controls(tmp_path: Path) -> None:
    """Both rules on one campaign: a block changes what follows, so none at all is none by either rule alone."""
    blocks, wrong, db = _campaign(tmp_path / "honest", 0.35, HONEST_CROWD, pooling=True)
    assert not wrong and blocks.empty
    scores = agreement_scores_so_far(Store(db), "sentiment", 3)
    assert scores is not None and (scores["judged"] >= 6).sum() >= 10  # the rule judged them, and kept them


@pytest.mark.slow
def test_pooled_controls_block_the_consistently_wrong_before_the_last_batch(tmp_path: Path) -> None:
    """The campaign where controls alone leave a wrong worker in the last batch: controls pooled with
    agreement (the default) block both before it, and no one else (on the honest crowd, nobody: above)."""
    blocks, wrong, _ = _campaign(tmp_path / "pooled", 0.0, HONEST_CROWD + WRONG, pooling=True)
    early = blocks[blocks["batch"].astype(int) < 3]
    assert len(wrong) == 2 and set(early["worker_id"]) == wrong
    assert early["rules"].str.startswith("worker_skill P=").all()
