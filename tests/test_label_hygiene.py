"""Label hygiene: repeats, spelling variants, blanks, free text and blocked workers, each policy
through `hitflow aggregate` in-process (postprocess/answers/label_hygiene.py, flows/answers/answers_files.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.aggregate_command import REPEATS
from flows.cli.main import main
from postprocess.answers import label_hygiene
from postprocess.answers.label_hygiene import HygienePolicy, tidy

# worker p labels item a three times (x, y, y); q spells "X" for "x"; r leaves b blank
ROWS = ("item_id,worker_id,label\n"
        "a,p,x\na,p,y\na,q,X\na,p,y\na,r, x \nb,p,y\nb,q,y\nb,r,\n")


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *options: str, rows: str = ROWS,
         name: str = "labels.csv") -> tuple[int, dict, pd.DataFrame | None, str]:
    labels = tmp_path / name
    labels.write_text(rows, encoding="utf-8")
    out = tmp_path / "out" / "answers.csv"
    code = main(["aggregate", str(labels), "--out", str(out), "--method", "mv", *options])
    captured = capsys.readouterr()
    shown = json.loads(captured.out) if code == 0 else {}
    return code, shown, pd.read_csv(out, dtype=str) if code == 0 else None, captured.err


def test_choices_spelled_alike() -> None:
    assert REPEATS == label_hygiene.REPEATS


@pytest.mark.parametrize(("repeats", "p_says"), [("last", "y"), ("first", "x"), ("majority", "y")])
def test_repeats_policy_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str], repeats: str, p_says: str) -> None:
    code, shown, answers, _ = _run(tmp_path, capsys, "--repeats", repeats)
    assert code == 0
    hygiene = shown["hygiene"]
    assert hygiene["labels_read"] == 8 and hygiene["blank_labels"] == 1 and hygiene["repeats"] == repeats
    assert hygiene["repeated_pairs"] == 1 and hygiene["repeats_dropped"] == 2 and hygiene["repeats_conflicting"] == 1
    # item a: q and r say x; p's one kept label decides nothing but is counted once
    assert shown["judgements"] == 5 and answers is not None and answers["label"].tolist() == ["x", "y"]
    workers = pd.read_csv(tmp_path / "out" / "workers.csv").set_index("worker_id")
    assert workers.loc["p", "agreement"] == (1.0 if p_says == "x" else 0.5)  # a (x wins) and b (y)


def test_majority_of_a_workers_repeats_ties_to_the_last_given() -> None:
    frame = pd.DataFrame({"item_id": ["a"] * 4, "worker_id": ["p"] * 4, "label": ["x", "y", "y", "x"]})
    assert tidy(frame, HygienePolicy("majority")).frame["label"].tolist() == ["x"]
    frame = frame.assign(label=["y", "x", "y", "x"])
    assert tidy(frame, HygienePolicy("majority")).frame["label"].tolist() == ["x"]
    assert tidy(frame.iloc[:3], HygienePolicy("majority")).frame["label"].tolist() == ["y"]


def test_repeats_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _, err = _run(tmp_path, capsys, "--repeats", "refuse")
    assert code == 3 and "1 worker-item pair(s) labelled more than once (e.g. worker 'p' on item 'a')" in err
    assert err.count("\n") == 1 and "Traceback" not in err and not (tmp_path / "out" / "answers.csv").exists()


def test_case_and_blank_variants_fold_to_the_common_spelling(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    rows = "item_id,worker_id,label\na,p,Good\na,q,good\na,r,Bad\nb,p, Good \nb,q,very  good\nb,r,Very good\n"
    code, shown, answers, _ = _run(tmp_path, capsys, rows=rows)
    assert code == 0 and answers is not None
    assert shown["hygiene"]["spelling_variants"] == {"good": ["Good", "good"], "very good": ["Very good", "very  good"]}
    assert shown["hygiene"]["respelled"] == 2 and answers["label"].tolist()[0] == "Good"
    code, shown, answers, _ = _run(tmp_path, capsys, "--no-fold-case", rows=rows)
    assert code == 0 and shown["hygiene"]["respelled"] == 0 and shown["hygiene"]["fold_case"] is False
    assert answers is not None and answers.loc[0, "label"] in {"Good", "good", "Bad"}  # three labels of one each


def test_free_text_refused_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = "item_id,worker_id,label\n" + "".join(
        f"i{i},w{w},comment {i} by {w}: the picture shows a {w} thing\n" for i in range(30) for w in range(2))
    code, _, _, err = _run(tmp_path, capsys, rows=rows)
    assert code == 2 and "field 'label' looks like free text (60 distinct labels over 30 items" in err
    assert "--force-free-text" in err and err.count("\n") == 1
    code, shown, _, _ = _run(tmp_path, capsys, "--force-free-text", rows=rows)
    assert code == 0 and shown["items"] == 30


def test_a_ten_class_field_is_not_free_text() -> None:
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(20)], "worker_id": "p",
                          "label": [f"class {i % 10}" for i in range(20)]})
    assert len(tidy(frame).frame) == 20  # 10 distinct labels: a choice, however few the items


def test_campaign_outputs_leave_blocked_workers_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a custom campaign's dataset.csv beside its blocked_workers.csv (docs/reference/outputs.md)
    rows = ("batch,hit_id,assignment_id,worker_id,item_id,field,value,decision,reasons\n"
            "1,h,a1,good1,i1,choice,cat,approved,\n1,h,a2,good2,i1,choice,cat,approved,\n"
            "1,h,a3,bad,i1,choice,dog,approved,\n1,h,a4,bad,i2,choice,dog,approved,\n"
            "1,h,a5,good1,i2,choice,cat,approved,\n")
    (tmp_path / "blocked_workers.csv").write_text("worker_id,batch,rules\nbad,1,answer_agreement 0% (0/2)\n")
    columns = ["--columns", "item_id,worker_id,value"]
    code, shown, answers, _ = _run(tmp_path, capsys, *columns, rows=rows, name="dataset.csv")
    assert code == 0 and shown["hygiene"]["blocked_workers_left_out"] == 1
    assert shown["hygiene"]["blocked_labels_left_out"] == 2 and shown["judgements"] == 3
    assert answers is not None and answers["label"].tolist() == ["cat", "cat"]
    code, shown, answers, _ = _run(tmp_path, capsys, *columns, "--keep-blocked", rows=rows, name="dataset.csv")
    assert code == 0 and shown["judgements"] == 5 and shown["hygiene"]["blocked_workers_kept"] == 1
    assert answers is not None and answers.set_index("item_id").loc["i2", "label"] in {"cat", "dog"}  # 1 vs 1


def test_only_blocked_workers_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "blocked_workers.csv").write_text("worker_id,batch,rules\np,1,x\n")
    code, _, _, err = _run(tmp_path, capsys, rows="item_id,worker_id,label\na,p,x\n")
    assert code == 3 and "no labels left once the 1 blocked worker(s)" in err and "--keep-blocked" in err
    assert err.count("\n") == 1


def test_gold_and_control_answers_follow_the_folded_spelling(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    rows = ("item_id,worker_id,label,gold\na,p,Good,good\na,q,Good,good\na,r,good,good\n"
            "b,p,Bad,bad\nb,q,Bad,bad\nc,p,Good,\nc,q,bad,\n")
    (tmp_path / "controls.csv").write_text("item_id,answer\nc,GOOD\n", encoding="utf-8")
    code, shown, answers, _ = _run(tmp_path, capsys, "--gold", "gold", "--controls", str(tmp_path / "controls.csv"),
                                   rows=rows)
    assert code == 0 and shown["accuracy"] == 1.0 and answers is not None
    assert answers["label"].tolist() == ["Good", "Bad"]  # c is a control item: out of the answers
    workers = pd.read_csv(tmp_path / "out" / "workers.csv").set_index("worker_id")
    assert workers.loc["p", "control_accuracy"] == 1.0 and workers.loc["q", "control_accuracy"] == 0.0


def test_labels_differing_only_by_unicode_normal_form_are_one_label(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    composed, decomposed = "caf\u00e9", "cafe\u0301"  # the same word: one character, or e and a combining accent
    rows = ("item_id,worker_id,label,gold\n"
            f"a,p,{composed},{decomposed}\na,q,{decomposed},{decomposed}\na,r,tea,{decomposed}\n"
            f"b,p,tea,tea\nb,q,tea,tea\nb,r,{decomposed},tea\n")
    for fold in ("--fold-case", "--no-fold-case"):
        code, shown, answers, _ = _run(tmp_path, capsys, fold, "--gold", "gold", rows=rows)
        assert code == 0 and answers is not None
        assert answers.set_index("item_id")["label"].to_dict() == {"a": composed, "b": "tea"}
        assert shown["hygiene"]["respelled"] == 2  # the two decomposed labels, now in NFC
        assert list(shown["hygiene"]["spelling_variants"].values()) == [["caf\\xe9", "cafe\\u0301"]]
        assert shown["accuracy"] == 1.0  # the gold, decomposed too, matches


def test_a_file_in_nfc_already_is_left_as_it_is() -> None:
    frame = pd.DataFrame({"item_id": ["a", "a"], "worker_id": ["p", "q"], "label": ["caf\u00e9", "tea"]})
    tidied = tidy(frame, HygienePolicy(fold_case=False))
    assert tidied.counts["respelled"] == 0 and tidied.counts["spelling_variants"] == {}
    assert tidied.frame["label"].tolist() == ["caf\u00e9", "tea"]


def test_a_field_with_too_many_classes_is_one_line_not_minutes(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """300 label values over 200 workers: a confusion matrix each is 18 million cells (minutes of CPU and about a
    gigabyte before); refused in one line with exit 2, whatever --force-free-text says."""
    import random

    draw = random.Random(1)
    rows = "item_id,worker_id,label\n" + "".join(
        f"i{i},w{w},lab{draw.randrange(300)}\n" for i in range(1000) for w in draw.sample(range(200), 5))
    for extra in ((), ("--force-free-text",)):
        code, _, _, err = _run(tmp_path, capsys, *extra, rows=rows)
        assert code == 2 and "too many classes" in err and "300 label values over 200 workers" in err
        assert err.count("\n") == 1


def test_auto_does_not_test_a_confusion_matrix_its_workers_cannot_fill() -> None:
    from postprocess.answers.method_choice import settled

    assert settled(15_000, 1_000, 40, 3.0).method == "mv"  # 1,600 cells against 15 labels a worker
    assert "too few to estimate" in settled(15_000, 1_000, 40, 3.0).reason
    assert settled(15_000, 200, 4, 3.0) is None  # 16 cells against 75 labels: the test decides


def test_item_ids_workers_and_fields_typed_two_ways_are_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"café" as one character and as "e" plus a combining accent: one item, one worker, one field, and a control
    item's id typed the other way still scores."""
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    rows = ("item_id,worker_id,label,field\n"
            f"{composed},w{composed},x,q{composed}\n{decomposed},w{decomposed},y,q{decomposed}\n"
            f"{composed},w2,x,q{composed}\n{decomposed},w3,x,q{decomposed}\n")
    labels = tmp_path / "l.csv"
    labels.write_text(rows, encoding="utf-8")
    controls = tmp_path / "c.csv"
    controls.write_text(f"item_id,answer,field\n{decomposed},x,q{composed}\n", encoding="utf-8")
    out = tmp_path / "a.csv"
    assert main(["aggregate", str(labels), "--out", str(out), "--method", "mv", "--controls", str(controls)]) == 0
    capsys.readouterr()
    workers = pd.read_csv(tmp_path / "a-workers.csv", dtype=str)
    assert sorted(workers["worker_id"]) == sorted(["w" + composed, "w2", "w3"])
    assert workers["controls"].astype(int).tolist() == [1, 1, 1]  # one item: its 3 workers scored (a repeat kept once)
