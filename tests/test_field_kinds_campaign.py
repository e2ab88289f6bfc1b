"""A page with a 1-7 slider, a checkbox group and a comment box, run on the simulator through the CLI: its
answers.csv answers the slider (the median of the approved answers, blocked workers left out, with its
interval) and every option of the checkbox group, leaves the comment out with a note; ``hitflow aggregate
--field`` gives the same rows, each run's files named after its --out, and a moved copy of dataset.csv read
with ``--numbers``/``--ticks`` gives the same file."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.newcomer_kit import edit_config
from flows.cli.main import main

pytestmark = pytest.mark.slow

PAGE = """{% extends "_custom_page.html.j2" %}
{% block instructions %}<p>Rate each photo, tick its problems, say anything else.</p>{% endblock %}
{% block item %}
<h2>Photo {{ i + 1 }}</h2>
<p>{{ item.note }}</p>
<label for="quality_{{ i }}">Quality, 1 (poor) to 7 (excellent):</label>
<input type="range" id="quality_{{ i }}" name="quality_{{ i }}" min="1" max="7" step="1" required>
<fieldset><legend>Problems with the photo:</legend>
  <label><input type="checkbox" name="problems_{{ i }}" value="blurry"> blurry</label>
  <label><input type="checkbox" name="problems_{{ i }}" value="dark"> too dark</label>
  <label><input type="checkbox" name="problems_{{ i }}" value="cropped"> cropped</label>
</fieldset>
<label for="comment_{{ i }}">Anything else? (optional)</label><br>
<textarea id="comment_{{ i }}" name="comment_{{ i }}" maxlength="300"></textarea>
{% endblock %}
"""


def hitflow(capsys: pytest.CaptureFixture[str], *args: str, code: int = 0) -> str:
    got = main(list(args))
    said = capsys.readouterr()
    assert got == code, said.out + said.err
    return said.out + said.err


def own_page_run(folder: Path, name: str, page: str, items: list[tuple[str, str]], column: str) -> None:
    """``hitflow new NAME`` in ``folder`` with ``page`` and ``items`` (id, ``column``), two batches, then a run."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert main(["new", name, "--dir", str(folder)]) == 0
        config = folder / "config" / f"{name}.toml"
        (config.parent / f"{name}.html.j2").write_text(page, encoding="utf-8")
        with (config.parent / f"{name}_items.csv").open("w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows([("item_id", column), *items])
        assert not edit_config(config, {"batches": "2", "budget": '"200.00 USD"'})
        assert main(["run", str(config), "--no-prefect"]) == 0


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("kinds")
    own_page_run(folder, "rate", PAGE, [(f"photo-{n:03d}", f"A street, photo {n}.") for n in range(1, 31)], "note")
    return folder


def test_answers_cover_the_slider_and_the_checkbox_group(campaign: Path) -> None:
    out = campaign / "runs" / "rate"
    answers = pd.read_csv(out / "answers.csv", dtype=str, keep_default_na=False)
    assert set(answers["field"]) == {"quality", "problems"}  # the comment is free text
    assert sorted(set(answers.loc[answers["field"] == "problems", "option"])) == ["blurry", "cropped", "dark"]
    assert (answers.loc[answers["field"] == "problems", "label"].isin(["yes", "no"])).all()
    data = pd.read_csv(out / "dataset.csv", dtype=str, keep_default_na=False)
    blocked = set(pd.read_csv(out / "blocked_workers.csv", dtype=str)["worker_id"])
    given = data[(data["field"] == "quality") & (data["decision"] == "approve")]
    assert given["worker_id"].isin(blocked).any()  # a blocked worker's answers are in the dataset ...
    kept = given[~given["worker_id"].isin(blocked)]  # ... and out of the answers
    medians = kept.assign(value=kept["value"].astype(float)).groupby("item_id")["value"].median()
    quality = answers[answers["field"] == "quality"].set_index("item_id")
    assert len(quality) == 30
    assert np.allclose(quality["label"].astype(float), medians.reindex(quality.index), atol=1e-9)
    low, high = quality["low"].astype(float), quality["high"].astype(float)
    assert (low <= quality["label"].astype(float)).all() and (quality["label"].astype(float) <= high).all()
    summary = (out / "summary.txt").read_text(encoding="utf-8")
    assert "comment: free text, not aggregated" in summary
    assert f"of {len(blocked)} blocked worker(s) left out of the answers" in summary
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Number fields (quality)" in report and "comment: free text, not aggregated" in report
    assert "<td>problems[blurry]</td>" in report and "<td>quality</td>" in report  # each option, the slider
    workers = pd.read_csv(out / "workers.csv")
    assert {"skill", "bias_quality", "numbers_quality"} <= set(workers.columns)
    assert not workers["worker_id"].isin(blocked).any()


def test_aggregate_field_gives_the_campaigns_rows(campaign: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(campaign)
    out = campaign / "runs" / "rate"
    mine = pd.read_csv(out / "answers.csv", dtype=str, keep_default_na=False)
    for field in ("quality", "problems"):
        said = hitflow(capsys, "aggregate", str(out / "dataset.csv"), "--field", field, "--out",
                       str(tmp_path / f"answers-{field}.csv"))
        assert "blocked worker(s) left out" in said
        got = pd.read_csv(tmp_path / f"answers-{field}.csv", dtype=str, keep_default_na=False)
        pd.testing.assert_frame_equal(got, mine[mine["field"] == field].reset_index(drop=True))
        # each run its own workers file, beside its answers
        assert (tmp_path / f"workers-{field}.csv").read_bytes() == (out / "workers.csv").read_bytes()
    said = hitflow(capsys, "aggregate", str(out / "dataset.csv"), "--field", "comment", "--out",
                   str(tmp_path / "c.csv"), code=2)
    assert "free text" in said and said.count("\n") == 1


def test_a_moved_dataset_read_with_its_kinds_gives_the_same_file(campaign: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = campaign / "runs" / "rate"
    shutil.copy(out / "dataset.csv", tmp_path / "dataset.csv")
    plain = ["aggregate", str(tmp_path / "dataset.csv"), "--columns", "item_id,worker_id,value"]
    said = hitflow(capsys, *plain, "--field", "quality", "--out", str(tmp_path / "labels.csv"))
    assert "no blocked_workers.csv beside" in said  # kept, with a word
    assert "--numbers quality reads them as numbers" in said
    shutil.copy(out / "blocked_workers.csv", tmp_path / "blocked_workers.csv")
    said = hitflow(capsys, *plain, "--numbers", "quality", "--ticks", "problems", "--field", "quality",
                   "--field", "problems", "--out", str(tmp_path / "answers.csv"))
    assert "blocked worker(s)" in said and "left out" in said
    assert (tmp_path / "answers.csv").read_bytes() == (out / "answers.csv").read_bytes()
    assert (tmp_path / "workers.csv").read_bytes() == (out / "workers.csv").read_bytes()
