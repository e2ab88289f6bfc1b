"""Checkbox groups (postprocess/answers/option_answers.py): each option a yes/no label, a tick left off a "no";
answered per option by the choice models, majority vote checked against crowd-kit's on the same labels."""

from __future__ import annotations

import numpy as np
import pandas as pd

from postprocess.answers.aggregation import aggregate
from postprocess.answers.option_answers import option_key, option_labels, split_options


def test_every_option_is_a_yes_or_no_of_every_response() -> None:
    ticks = pd.DataFrame({"item_id": ["a", "a", "b"], "worker_id": ["w1", "w2", "w1"], "field": "problems",
                          "value": ["blurry|dark", "", "odd"]})
    labels, keys = option_labels(ticks, {"problems": ["blurry", "dark", "cropped"]})
    # the page's options in its order, then a tick it does not list
    assert list(keys) == [option_key("problems", o) for o in ("blurry", "dark", "cropped", "odd")]
    got = labels.pivot(index=["item_id", "worker_id"], columns="field", values="label")
    assert got.loc[("a", "w1")].tolist() == ["yes", "no", "yes", "no"]  # columns sorted: blurry, cropped, dark, odd
    assert (got.loc[("a", "w2")] == "no").all()  # nothing ticked: a "no" to each
    assert got.loc[("b", "w1"), "problems[odd]"] == "yes"


def test_options_answered_as_crowd_kits_majority_vote() -> None:
    from crowdkit.aggregation import MajorityVote  # here: the whole package (~2 s of CPU) at every worker's collection

    rng = np.random.default_rng(11)
    options = ["blurry", "dark", "cropped"]
    applies = {(i, o): rng.random() < 0.4 for i in range(60) for o in options}
    rows = []
    for i in range(60):
        for w in rng.choice(12, 5, replace=False):
            ticked = [o for o in options if applies[(i, o)] != (rng.random() < 0.2)]
            rows.append((f"i{i}", f"w{w}", "problems", "|".join(ticked)))
    labels, keys = option_labels(pd.DataFrame(rows, columns=["item_id", "worker_id", "field", "value"]),
                                 {"problems": options})
    ours = split_options(aggregate(labels, "mv").answers, keys)
    assert set(ours["field"]) == {"problems"} and sorted(set(ours["option"])) == sorted(options)
    for option in options:
        mine = ours[ours["option"] == option].set_index("item_id")
        part = labels[labels["field"] == option_key("problems", option)]
        theirs = MajorityVote().fit_predict(part.rename(columns={"item_id": "task", "worker_id": "worker"})[
            ["task", "worker", "label"]])
        assert (mine["label"] == theirs.reindex(mine.index)).all(), option  # 5 votes of 2 labels: no ties
    truth = pd.Series({f"i{i}": "yes" if applies[(i, o)] else "no" for i in range(60) for o in options[:1]})
    blurry = ours[ours["option"] == "blurry"].set_index("item_id")["label"]
    assert (blurry == truth.reindex(blurry.index)).mean() > 0.9
