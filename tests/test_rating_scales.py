"""A survey page with a 1-5 clarity scale (radio buttons) and an unordered choice, run on the simulator through
the CLI: answers.csv reads the scale as a scale (per item the median of the approved answers with its interval,
per worker a bias), the unordered choice as labels; ``hitflow aggregate`` on the campaign's dataset.csv with
``--field clarity --numbers clarity`` gives the same rows (it exited 3, "missing column(s) label")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from flows.custom.answer_kinds import rating_scale
from tests.test_field_kinds_campaign import hitflow, own_page_run

pytestmark = pytest.mark.slow

PAGE = """{% extends "_custom_page.html.j2" %}
{% block instructions %}<p>Read each notice; rate how clear it is and say what it is about.</p>{% endblock %}
{% block item %}
<h2>Notice {{ i + 1 }}</h2>
<p>{{ item.text }}</p>
<fieldset><legend>How clear is it, 1 (not at all) to 5 (very)?</legend>
  {% for v in range(1, 6) %}<label><input type="radio" name="clarity_{{ i }}" value="{{ v }}" required> {{ v }}</label>
  {% endfor %}
</fieldset>
<fieldset><legend>What is it about?</legend>
  <label><input type="radio" name="topic_{{ i }}" value="rent" required> rent</label>
  <label><input type="radio" name="topic_{{ i }}" value="noise"> noise</label>
  <label><input type="radio" name="topic_{{ i }}" value="repairs"> repairs</label>
</fieldset>
{% endblock %}
"""


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("scales")
    own_page_run(folder, "notices", PAGE, [(f"notice{n:03d}", f"Notice {n} to tenants.") for n in range(1, 25)], "text")
    return folder / "runs" / "notices"


def test_a_scale_gets_a_median_an_interval_and_each_workers_bias(campaign: Path) -> None:
    answers = pd.read_csv(campaign / "answers.csv", dtype=str, keep_default_na=False)
    clarity = answers[answers["field"] == "clarity"].set_index("item_id")
    data = pd.read_csv(campaign / "dataset.csv", dtype=str, keep_default_na=False)
    blocked_file = campaign / "blocked_workers.csv"
    blocked = set(pd.read_csv(blocked_file, dtype=str)["worker_id"]) if blocked_file.is_file() else set()
    given = data[(data["field"] == "clarity") & (data["decision"] == "approve") & ~data["worker_id"].isin(blocked)]
    medians = given.assign(value=given["value"].astype(float)).groupby("item_id")["value"].median()
    assert len(clarity) == 24 and (clarity["note"] != "tie").all()
    assert np.allclose(clarity["label"].astype(float), medians.reindex(clarity.index), atol=1e-9)
    low, high = clarity["low"].astype(float), clarity["high"].astype(float)
    assert (low <= clarity["label"].astype(float)).all() and (clarity["label"].astype(float) <= high).all()
    topic = answers[answers["field"] == "topic"]
    assert len(topic) == 24 and set(topic["label"]) <= {"rent", "noise", "repairs"}
    workers = pd.read_csv(campaign / "workers.csv")
    assert "bias_clarity" in workers.columns and "bias_topic" not in workers.columns


def test_aggregate_numbers_on_the_campaigns_own_dataset(campaign: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(campaign.parent.parent)
    hitflow(capsys, "aggregate", str(campaign / "dataset.csv"), "--field", "clarity", "--numbers", "clarity",
            "--out", str(tmp_path / "clarity.csv"))
    mine = pd.read_csv(campaign / "answers.csv", dtype=str, keep_default_na=False)
    got = pd.read_csv(tmp_path / "clarity.csv", dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(got, mine[mine["field"] == "clarity"].reset_index(drop=True))
    said = hitflow(capsys, "aggregate", str(campaign / "dataset.csv"), "--numbers", "colour", "--out",
                   str(tmp_path / "x.csv"), code=2)
    assert "--numbers colour" in said and said.count("\n") == 1


@pytest.mark.parametrize("options, scale", [(["1", "2", "3", "4", "5"], True), (["0", "5", "10"], True),
                                            (["1", "2"], False), (["1", "2", "5"], False),
                                            (["low", "mid", "high"], False), (["3", "2", "1"], True)])
def test_which_choices_are_scales(options: list[str], scale: bool) -> None:
    assert rating_scale(options) is scale
