"""`hitflow aggregate`: the long format in, answers.csv and workers.csv out, one line for a bad file."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.aggregate_command import METHODS
from flows.cli.main import main
from postprocess.answers.aggregation import CHOICES, aggregate

ROWS = ("item_id,worker_id,label\n"
        "a,w1,x\na,w2,x\na,w3,y\nb,w1,y\nb,w2,y\nb,w3,y\nc,w1,x\nc,w2,y\n")


def test_methods_spelled_alike() -> None:
    assert METHODS == CHOICES


def test_writes_answers_and_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(ROWS, encoding="utf-8")
    assert main(["aggregate", str(labels), "--out", str(tmp_path / "out" / "answers.csv")]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["items"] == 3 and shown["judgements"] == 8 and shown["methods"] == {"label": "mv"}
    answers = pd.read_csv(tmp_path / "out" / "answers.csv", dtype={"label": str})
    expected = aggregate(pd.read_csv(labels, dtype=str), "mv").answers
    assert answers["label"].tolist() == expected["label"].tolist() == ["x", "y", "y"]
    workers = pd.read_csv(tmp_path / "out" / "workers.csv")
    assert workers["worker_id"].tolist() == ["w1", "w2", "w3"] and workers["agreement"].iloc[0] == pytest.approx(0.6667)


def test_own_column_names_tab_separated_and_gold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "labels.tsv"
    labels.write_text("unit\tannotator\tresponse\tgold\n" + "".join(
        f"{i}\t{w}\t{lab}\t{g}\n" for i, w, lab, g in [("1", "p", "A", "A"), ("1", "q", "A", "A"), ("1", "r", "B", "A"),
                                                       ("2", "p", "B", "A"), ("2", "q", "B", "A")]), encoding="utf-8")
    assert main(["aggregate", str(labels), "--out", str(tmp_path / "answers.csv"),
                 "--columns", "unit,annotator,response", "--gold", "gold", "--method", "mv"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["gold_items"] == 2 and shown["accuracy"] == 0.5  # item 2's answer B against gold A


@pytest.mark.parametrize(("content", "says"), [
    (b"item_id,worker\na,w1\n", "missing column(s) worker_id, label"),
    (b"", "is empty"),
    (b"item_id,worker_id,label\n", "every label is blank"),
    (b"item_id,worker_id,label\n\xff\xfe\xfaa,w1,x\n", "UTF-8"),
    (b"item_id,worker_id,label\na,w1,\n", "every label is blank"),
])
def test_bad_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, says: str) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_bytes(content)
    assert main(["aggregate", str(labels), "--out", str(tmp_path / "answers.csv")]) == 3
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "answers.csv").exists()


def test_bad_columns_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(ROWS, encoding="utf-8")
    assert main(["aggregate", str(labels), "--out", str(tmp_path / "a.csv"), "--columns", "item_id,worker_id"]) == 2
    assert "three names" in capsys.readouterr().err
    assert main(["aggregate", str(labels), "--out", str(tmp_path / "a.csv"), "--columns", "unit,worker_id,label"]) == 3
    assert "no column(s) unit" in capsys.readouterr().err


def test_controls_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(ROWS + "g,w1,x\ng,w2,y\n", encoding="utf-8")
    (tmp_path / "controls.csv").write_text("item_id,answer\ng,x\n", encoding="utf-8")
    assert main(["aggregate", str(labels), "--out", str(tmp_path / "answers.csv"),
                 "--controls", str(tmp_path / "controls.csv")]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == 3
    workers = pd.read_csv(tmp_path / "workers.csv").set_index("worker_id")
    assert workers.loc["w1", "control_accuracy"] == 1.0 and workers.loc["w2", "control_accuracy"] == 0.0
    (tmp_path / "bad.csv").write_text("item_id,gold\ng,x\n", encoding="utf-8")
    assert main(["aggregate", str(labels), "--out", str(tmp_path / "answers.csv"),
                 "--controls", str(tmp_path / "bad.csv")]) == 3
    assert "missing column(s) answer" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["auto", "ds"])
def test_real_labels_with_expert_gold_as_accurate_as_crowd_kit(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               shared_data: Path, method: str) -> None:
    """Done-when of `hitflow aggregate` on Snow et al. 2008's word-sense labels (10 an item,
    expert gold) is at least as accurate as crowd-kit's Dawid-Skene run directly on the same file."""
    from tests.crowd_kit_parity import crowd_kit_fit

    wsd = shared_data / "snow2008-wsd" / "wsd.standardized.tsv"
    assert main(["aggregate", str(wsd), "--out", str(tmp_path / "answers.csv"), "--method", method,
                 "--columns", "orig_id,!amt_worker_ids,response", "--gold", "gold"]) == 0
    shown = json.loads(capsys.readouterr().out)
    raw = pd.read_csv(wsd, sep="\t", dtype=str)
    by_task = pd.DataFrame({"task": raw["orig_id"], "worker": raw["!amt_worker_ids"], "label": raw["response"]})
    # its fit_predict: the most probable label of its recorded fit (tests/crowd_kit_parity.py)
    direct = crowd_kit_fit("dawid_skene", "DawidSkene", by_task, n_iter=100).idxmax(axis=1)
    gold = raw.drop_duplicates("orig_id").set_index("orig_id")["gold"]
    direct_accuracy = float((direct.astype(str) == gold.reindex(direct.index)).mean())
    ours = pd.read_csv(tmp_path / "answers.csv", dtype=str).set_index("item_id")["label"]
    assert shown["gold_items"] == len(gold) == len(ours)
    assert shown["accuracy"] == pytest.approx(float((ours == gold.reindex(ours.index)).mean()), abs=1e-3)
    assert shown["accuracy"] >= direct_accuracy - 1e-3 and direct_accuracy > 0.9


def test_method_skill_takes_the_skill_prior_from_the_command_line(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """--method skill answers with the stopping posterior under --skill-prior/--skill-prior-weight; a prior out of
    range is one line and no file."""
    from postprocess.answers.skill_posterior import SkillPrior, label_posterior

    labels = tmp_path / "labels.csv"
    labels.write_text(ROWS, encoding="utf-8")
    out = tmp_path / "answers.csv"
    assert main(["aggregate", str(labels), "--method", "skill", "--skill-prior", "0.8", "--skill-prior-weight", "6",
                 "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["methods"] == {"label": "skill"}
    answers = pd.read_csv(out, dtype={"label": str}).set_index("item_id")
    expected = label_posterior(pd.read_csv(labels, dtype=str), SkillPrior(0.8, 6.0)).set_index("item_id")
    assert answers["label"].to_dict() == expected["label"].to_dict()
    # the posterior the method answers with is the stopping posterior; the confidence is it, bounded by the judgements
    assert answers["posterior"].to_numpy() == pytest.approx(expected.loc[answers.index, "confidence"].to_numpy(),
                                                            abs=1e-4)
    assert (answers["confidence"] <= answers["posterior"] + 1e-4).all()
    bad = tmp_path / "bad.csv"
    assert main(["aggregate", str(labels), "--method", "skill", "--skill-prior", "1.5", "--out", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "skill prior 1.5" in err and "Traceback" not in err and not bad.exists()
