"""The answers step at COCO's size (1.4 million "is there text?" labels) holds integer codes, not
copies of the text ids: its results must stay those of crowd-kit on the text ids, and gathering
the labels a batch at a time must give what the whole frame gave."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from flows.answers.answers_step import BatchJudgements, campaign_answers
from flows.core.config.answers_config import AnswersSettings
from postprocess.answers.aggregation import aggregate
from postprocess.answers.crowdkit_models import model_class
from postprocess.answers.judgements import judgements


def _labels(seed: int, items: int = 120, workers: int = 9) -> pd.DataFrame:
    """Noisy yes/no labels whose ids sort differently by text than by first appearance ("w10" < "w2",
    items numbered downwards) and with a second field, so codes in the wrong order would show."""
    rng = np.random.default_rng(seed)
    truth = rng.random(items) < 0.4
    skill = rng.uniform(0.55, 0.95, workers)
    rows = []
    for i in range(items):
        for w in rng.choice(workers, 4, replace=False):
            right = rng.random() < skill[w]
            rows.append((f"img{items - i}", f"w{w + 1}", "yes" if truth[i] == right else "no", "text_present"))
            if i % 3 == 0:
                rows.append((f"img{items - i}", f"w{w + 1}", rng.choice(["indoor", "outdoor", "both"]), "setting"))
    return pd.DataFrame(rows, columns=["item_id", "worker_id", "label", "field"])


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")  # crowd-kit's own pandas calls
@pytest.mark.parametrize("seed", [1, 2])
def test_answers_are_crowdkit_on_the_text_ids(seed: int) -> None:
    """Each answer's posterior is bit for bit crowd-kit's Dawid-Skene probability of it, fitted on the
    text ids; each worker's skill is the mean of those probabilities over the worker's labels."""
    frame = _labels(seed)
    result = aggregate(frame, "ds")
    skill: dict[str, list[float]] = {}
    for field, part in frame.groupby("field"):
        model = model_class("ds")(n_iter=100).fit(part.rename(columns={"item_id": "task", "worker_id": "worker"}))
        probas = model.probas_
        mine = result.answers[result.answers["field"] == field]
        assert list(mine["item_id"]) == sorted(part["item_id"].unique())
        assert [probas.at[i, lab] for i, lab in zip(mine["item_id"], mine["label"], strict=True)] \
            == list(mine["posterior"])
        for w, i, lab in zip(part["worker_id"], part["item_id"], part["label"], strict=True):
            skill.setdefault(w, []).append(probas.at[i, lab])
    workers = result.workers.set_index("worker_id")
    assert list(workers.index) == sorted(skill)
    for w, values in skill.items():
        assert workers.at[w, "skill"] == pytest.approx(float(np.mean(values)), abs=1e-12)


def test_a_drop_mask_is_the_frame_without_those_rows() -> None:
    frame = _labels(3)
    drop = frame["worker_id"].isin({"w2", "w7"})
    by_mask, by_copy = aggregate(frame, drop=drop), aggregate(frame[~drop])
    pd.testing.assert_frame_equal(by_mask.answers, by_copy.answers)
    pd.testing.assert_frame_equal(by_mask.workers, by_copy.workers)
    assert judgements(frame, drop).equals(judgements(frame[~drop]))


@pytest.mark.parametrize("blocked_mode", ["drop", "keep"])
def test_batch_by_batch_is_the_whole_campaign(tmp_path: Path, blocked_mode: str) -> None:
    """BatchJudgements (a batch's captions at a time, blocked workers' labels left out as they come)
    writes the same files and report section as campaign_answers over every batch's labels at once."""
    frame = _labels(4)
    frame = frame[frame["field"] == "text_present"].reset_index(drop=True)
    captions = pd.DataFrame({"image_id": frame["item_id"], "worker_id": frame["worker_id"],
                             "text_present": frame["label"], "is_rejected": False})
    settings, blocked = AnswersSettings(blocked=blocked_mode), ["w3", "w5"]
    whole = campaign_answers(frame, blocked, settings, tmp_path / "whole")
    gathered = BatchJudgements(blocked, settings)
    for rows in np.array_split(np.arange(len(captions)), 5):
        gathered.add(captions.iloc[rows])
    assert gathered.answers(tmp_path / "batches") == whole
    assert whole["dropped"] == (int(frame["worker_id"].isin(blocked).sum()) if blocked_mode == "drop" else 0)
    for name in ("answers.csv", "workers.csv"):
        assert (tmp_path / "batches" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()
