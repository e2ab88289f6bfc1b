"""The published evaluation files read through hitflow's readers and analysed with
`hitflow analyze`, against the figures their authors report (skipped without ../shared/data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.studies.analysis import errors_2017, flickr8k_crowd, flickr8k_expert, kreiss_2022
from postprocess.agreement import agreement
from postprocess.error_stats import error_summary


def analyze(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["analyze", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_error_analysis_2017_congruency_and_second_annotator(shared_data: Path, capsys) -> None:
    folder = shared_data / "vanmiltenburg-elliott-2017-error-analysis"
    table = errors_2017(folder)
    emiel = error_summary(table[table["worker_id"] == "emiel"])
    assert (emiel["items"], emiel["congruent"], emiel["incongruent"]) == (1014, 202, 812)  # as released
    assert emiel["unknown_categories"] == []  # every released category string is one of Table 1's
    both = agreement(table.rename(columns={"congruent": "label"}))
    assert both["raters"] == 2
    overlap = table.groupby("item_id")["worker_id"].nunique().eq(2).sum()
    assert overlap == 101
    assert both["percent_unanimous"] == pytest.approx(92 / 101 * 100, abs=0.01)  # 92 of 101 agree
    assert both["cohen_kappa"] == pytest.approx(0.68, abs=0.005)  # the reported kappa
    cli = analyze(capsys, "errors", str(folder), "--reader", "errors-2017")
    assert cli["judgements"] == 1014 + 101


def test_kreiss_2022_exclusion_rule(shared_data: Path, capsys) -> None:
    path = shared_data / "kreiss-2022-context-description-eval" / "raw" / "evaluation_sighted" / "data.csv"
    people = kreiss_2022(path)
    assert len(people) == 79
    got = analyze(capsys, "screening", str(path), "--reader", "kreiss-2022")
    # "72 out of 79 passed", "68 of 72 continued", 59 kept after "9 exclusions"
    assert (got["participants"], got["passed_qualification"], got["continued"], got["kept"]) == (79, 72, 68, 59)
    assert len(got["excluded"]) == 9


def test_flickr8k_expert_and_crowd_judgements(shared_data: Path, capsys) -> None:
    folder = shared_data / "flickr8k-text"
    expert = flickr8k_expert(folder / "ExpertAnnotations.txt")
    assert expert["item_id"].nunique() == 5822 and len(expert) == 5822 * 3
    assert set(expert["label"]) == {"1", "2", "3", "4"}
    crowd = flickr8k_crowd(folder / "CrowdFlowerAnnotations.txt")
    assert crowd["item_id"].nunique() == 47830 and len(crowd) == 144860
    got = analyze(capsys, "agreement", str(folder / "ExpertAnnotations.txt"), "--reader", "flickr8k-expert",
                  "--level", "ordinal")
    assert got["items"] == 5822 and got["raters"] == 3
    assert 0.6 < got["krippendorff_alpha"] < 0.8  # the experts agree well but not perfectly
    # Same pairs from the independent repackaging (Elliott & Keller 2014): the same means.
    judgements = (shared_data / "flickr8k-elliott-keller-2014" / "judgements").read_text().splitlines()[1:]
    repackaged = sum(sum(int(v.strip('"')) for v in line.split(",")[1:4]) for line in judgements)
    assert repackaged == expert["label"].astype(int).sum()


def test_analyze_refuses_bad_input_in_one_line(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("item,who,what\n1,a,b\n", encoding="utf-8")
    assert main(["analyze", "agreement", str(bad)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing column(s) item_id, worker_id, label" in err
    assert main(["analyze", "severity", str(tmp_path / "nope.csv")]) == 3
    assert "does not exist" in capsys.readouterr().err
    assert main(["analyze", "agreement", str(bad), "--reader", "flickr8k-expert"]) == 3
    assert "tab-separated" in capsys.readouterr().err


def test_analyze_agreement_csv_round_trip(tmp_path: Path, capsys) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("item_id,worker_id,label\n1,a,x\n1,b,x\n2,a,y\n2,b,x\n3,a,y\n3,b,y\n", encoding="utf-8")
    got = analyze(capsys, "agreement", str(path))
    assert set(got) == {"items", "raters", "percent_unanimous", "fleiss_kappa", "krippendorff_alpha", "cohen_kappa"}
    assert got["percent_unanimous"] == pytest.approx(66.6667, abs=1e-3)
