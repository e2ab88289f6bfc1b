"""Blocking on rates over a worker's whole campaign, not on raw counts per batch."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from flows.core.config.config import load_config
from flows.core.errors import ConfigError
from qc.decisions import DecisionPolicy, caption_policy, workers_to_block
from qc.flags import FLAG_COLUMNS
from qc.worker_history import blocks_on_rates, history_table, wilson_lower, worker_history

ROOT = Path(__file__).resolve().parents[1]


def assignments(worker: str, batches: dict[int, int], per_hit: int = 5) -> list[dict[str, object]]:
    """``batches``: batch -> HITs the worker did, five captions each."""
    return [{"assignment_id": f"{worker}-b{b}-{i}", "worker_id": worker, "batch": b, "captions": per_hit}
            for b, n in batches.items() for i in range(n)]


def caption_flag(worker: str, batch: int, i: int, rule: str = "quality_words") -> dict[str, object]:
    return {"worker_id": worker, "rule": rule, "value": 1, "threshold": "", "assignment_id": f"{worker}-b{batch}-{i}",
            "image_id": f"img{batch}-{i}", "detail": "", "batch": batch}


def frames(rows: list[dict[str, object]], flags: list[dict[str, object]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    return pd.DataFrame(rows), pd.DataFrame(flags, columns=[*FLAG_COLUMNS, "batch"])


def test_a_busy_honest_worker_with_a_few_flags_stays() -> None:
    """200 captions in one batch, 4 with a quality word and one duplicated pair: the old
    per-batch counts blocked this worker; 2% and 1% of their work is far under the rates."""
    work, flags = frames(assignments("BUSY", {1: 40}), [caption_flag("BUSY", 1, i) for i in range(4)] + [
        {"worker_id": "BUSY", "rule": "duplicate_text", "value": 2, "threshold": 2, "assignment_id": "",
         "image_id": "", "detail": "same caption on 2 images", "batch": 1}])
    policy = caption_policy()
    assert blocks_on_rates(worker_history(work, flags), policy).empty
    old = DecisionPolicy()  # the count policy: duplicate_text x1 or quality_words x2 in a batch blocked
    assert list(workers_to_block(flags.drop(columns="batch"), old)["worker_id"]) == ["BUSY"]


def test_a_drip_of_bad_captions_over_batches_is_caught() -> None:
    """Two canned-lone captions a batch never reach a per-batch count of 3, but over three
    batches they are 6 of this worker's 15 captions."""
    work, flags = frames(assignments("DRIP", {1: 1, 2: 1, 3: 1}),
                         [caption_flag("DRIP", b, i, "canned_lone_use") for b in (1, 2, 3) for i in (0, 1)])
    policy = caption_policy()
    history = worker_history(work, flags)
    after_one = history[history["batch"] == 1]
    assert blocks_on_rates(after_one, DecisionPolicy(block_min_rate={"canned_lone_use": 0.3},
                                                     block_min_evidence=10)).empty  # not enough evidence yet
    blocked = blocks_on_rates(history, policy)
    assert list(blocked["worker_id"]) == ["DRIP"]
    assert blocked.loc[0, "rules"] == "canned_lone_use 40% (6/15)" and blocked.loc[0, "captions"] == 15
    per_batch = DecisionPolicy(block_min_flags={"canned_lone_use": 3})
    assert all(workers_to_block(flags[flags["batch"] == b].drop(columns="batch"), per_batch).empty for b in (1, 2, 3))


def test_worker_level_flags_cover_that_batch_only() -> None:
    """A speeder flagged in every batch is blocked; an honest worker flagged once in five is not."""
    rows = assignments("FAST", {1: 2, 2: 2}) + assignments("ONCE", {b: 4 for b in range(1, 6)})
    flags = [{"worker_id": w, "rule": "time_outlier", "value": 9.0, "threshold": "[100, 900]", "assignment_id": "",
              "image_id": "", "detail": "", "batch": b} for w, b in (("FAST", 1), ("FAST", 2), ("ONCE", 3))]
    history = worker_history(*frames(rows, flags))
    blocked = blocks_on_rates(history, caption_policy())
    assert list(blocked["worker_id"]) == ["FAST"] and "time_outlier 100% (20/20)" in blocked.loc[0, "rules"]
    once = history[(history["worker_id"] == "ONCE") & (history["rule"] == "time_outlier")]
    assert once[["batch", "covered"]].values.tolist() == [[3, 20]]  # 20 of ONCE's 100 captions: 20%


def test_history_table_shows_each_batch() -> None:
    rows = assignments("W", {1: 1, 2: 2})
    history = worker_history(*frames(rows, [caption_flag("W", 2, 0), caption_flag("W", 2, 1, "min_words")]))
    table = history_table(history, ["W"])
    assert table.to_dict("records") == [
        {"worker_id": "W", "batch": 1, "captions": 5, "flags_by_rule": ""},
        {"worker_id": "W", "batch": 2, "captions": 10, "flags_by_rule": "min_words:1;quality_words:1"}]


def test_configs_choose_rates_or_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HITFLOW_ALLOW_OUTSIDE_PATHS", "1")  # the copies name the repo's items by absolute path
    shipped = load_config(ROOT / "config" / "vizwiz_captions.toml").policy
    assert shipped.block_min_rate["duplicate_text"] == 0.2 and shipped.block_min_evidence == 5
    text = (ROOT / "config" / "vizwiz_captions.toml").read_text()
    start, end = text.index("block_min_evidence"), text.index("[postprocess]")
    old = text[:start] + "[policy.block_min_flags]\ncaps_lock = 2\n\n" + text[end:]
    (tmp_path / "c.toml").write_text(old.replace('items = "items/', f'items = "{ROOT}/config/items/'))
    policy = load_config(tmp_path / "c.toml").policy
    assert policy.block_min_rate == {} and policy.block_min_flags == {"caps_lock": 2}  # counts, as written
    bad = text.replace("duplicate_text = 0.2 ", "duplicate_text = 20 ").replace(
        'items = "items/', f'items = "{ROOT}/config/items/')
    (tmp_path / "bad.toml").write_text(bad)
    with pytest.raises(ConfigError, match=r"\[policy\].block_min_rate.duplicate_text must be a number between 0 and 1"):
        load_config(tmp_path / "bad.toml")


def test_share_rules_cover_their_share_of_the_batch() -> None:
    """An honest worker whose one HIT fell on hard images (3 of 5 canned) is not a canned-abuser."""
    rows = assignments("ONEHIT", {1: 1}) + assignments("ABUSER", {1: 2})
    flags = [{"worker_id": w, "rule": "canned_overuse", "value": v, "threshold": 0.5, "assignment_id": "",
              "image_id": "", "detail": "", "batch": 1} for w, v in (("ONEHIT", 0.6), ("ABUSER", 0.9))]
    blocked = blocks_on_rates(worker_history(*frames(rows, flags)), caption_policy())
    assert blocked.to_dict("records") == [{"worker_id": "ABUSER", "rules": "canned_overuse 90% (9/10)",
                                           "flags": 1, "captions": 10}]


def test_a_confidence_bound_weighs_a_newcomers_few_flags_less() -> None:
    """At the same 40% share, 2 flagged captions of a newcomer's first 5 are weak evidence
    (Wilson lower bound at z = 1: 22%), 40 of a busy worker's 100 are strong (35%)."""
    rows = assignments("NEW", {1: 1}) + assignments("BUSY", {1: 20})
    flags = [caption_flag("NEW", 1, 0, "canned_lone_use")] + [
        {**caption_flag("NEW", 1, 0, "canned_lone_use"), "image_id": "other"}] + [
        {**caption_flag("BUSY", 1, i, "canned_lone_use"), "image_id": f"img{k}"} for i in range(20) for k in (0, 1)]
    history = worker_history(*frames(rows, flags))
    plain = DecisionPolicy(block_min_rate={"canned_lone_use": 0.3})
    assert list(blocks_on_rates(history, plain)["worker_id"]) == ["BUSY", "NEW"]
    bounded = DecisionPolicy(block_min_rate={"canned_lone_use": 0.3}, block_rate_confidence=1.0)
    assert list(blocks_on_rates(history, bounded)["worker_id"]) == ["BUSY"]
    assert wilson_lower(2, 5, 1.0) == pytest.approx(0.216, abs=1e-3) and wilson_lower(2, 5, 0) == 0.4
    assert wilson_lower(5, 5, 1.0) == pytest.approx(5 / 6)  # a whole first HIT flagged still blocks
    assert wilson_lower(0, 0, 1.0) == 0.0
    full = load_config(ROOT / "config" / "vizwiz_full_scale.toml").policy
    assert full.block_rate_confidence == 1.0 and caption_policy().block_rate_confidence == 0.0
