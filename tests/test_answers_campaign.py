"""Aggregation as a campaign step: a custom page's single-choice fields -> answers.csv, workers.csv
and the report's section, from the approved work only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from flows.answers.answers_step import campaign_answers
from flows.cli.main import main
from flows.core.config.answers_config import AnswersSettings, Method
from flows.custom.scaffold import scaffold
from postprocess.answers.aggregation import CHOICES, aggregate
from tests.small_configs import small_vizwiz
from tests.unseen_figures import figures_seen  # noqa: F401  (autouse: the answers figure on each kind's runs)


def test_config_methods_spelled_alike() -> None:
    assert Method.__args__ == CHOICES  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def demo_task_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scaffold's demo_task as `hitflow run` runs it, once for the module: the two tests below only read
    its outputs (each ran its own, ~0.4 s of CPU)."""
    root = tmp_path_factory.mktemp("demo_task")
    scaffold("demo_task", root)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["run", "config/demo_task.toml", "--no-prefect"]) == 0
    return root / "runs" / "demo_task"


def test_custom_campaign_writes_answers_beside_the_dataset(demo_task_run: Path) -> None:
    out = demo_task_run
    data = pd.read_csv(out / "dataset.csv", keep_default_na=False, dtype=str)
    answers = pd.read_csv(out / "answers.csv", keep_default_na=False, dtype={"label": str, "item_id": str})
    # the radio, the select, the checkbox group (an option each) and the number; not the free text
    assert set(answers["field"]) == {"has_text", "setting", "problems", "people"}
    choices = data[data["field"].isin(["has_text", "setting"])].rename(columns={"value": "label"})
    expected = aggregate(choices[["item_id", "worker_id", "field", "label"]]).answers
    one = answers[answers["field"].isin(["has_text", "setting"])]
    assert one[["item_id", "field", "label", "judgements"]].to_dict("records") == \
        expected[["item_id", "field", "label", "judgements"]].to_dict("records")
    assert set(answers.loc[answers["field"] == "problems", "option"]) == {"blurry", "dark", "cropped", "none"}
    workers = pd.read_csv(out / "workers.csv")
    assert set(workers["worker_id"]) == set(choices["worker_id"])
    assert ((workers["skill"] >= 0) & (workers["skill"] <= 1)).all()
    assert "Answers and worker skill" in (out / "report.html").read_text()


def _labels() -> pd.DataFrame:
    rows = [(i, w, "yes") for i in ("a", "b", "c") for w in ("w1", "w2", "w3")]
    rows += [(i, "bad", "no") for i in ("a", "b", "c")]
    return pd.DataFrame(rows, columns=["item_id", "worker_id", "label"]).assign(field="has_text")


def test_blocked_workers_dropped_or_kept(tmp_path: Path) -> None:
    dropped = campaign_answers(_labels(), ["bad"], AnswersSettings(method="mv"), tmp_path / "drop")
    assert dropped["dropped"] == 3
    workers = pd.read_csv(tmp_path / "drop" / "workers.csv")
    assert "bad" not in set(workers["worker_id"])
    shipped = pd.read_csv(tmp_path / "drop" / "answers.csv")
    assert shipped["posterior"].eq(1.0).all() and shipped["confidence"].lt(1.0).all()  # unanimous, yet not certain
    kept = campaign_answers(_labels(), ["bad"], AnswersSettings(method="mv", blocked="keep", threshold=0.8),
                            tmp_path / "keep")
    again = pd.read_csv(tmp_path / "keep" / "answers.csv")
    assert kept["dropped"] == 0 and again["posterior"].eq(0.75).all()  # 3 of 4 agree
    # the confidence weighs "bad" by their record (against the others on every item): below 0.8 or not, counted
    assert kept["below_count"] == int((again["confidence"] < 0.8).sum())
    assert pd.read_csv(tmp_path / "keep" / "workers.csv").set_index("worker_id").loc["bad", "agreement"] == 0.0


def test_nothing_to_aggregate_writes_nothing(tmp_path: Path) -> None:
    assert campaign_answers(_labels().iloc[:0], [], AnswersSettings(), tmp_path) == {}
    assert not (tmp_path / "answers.csv").exists()


def test_caption_campaign_aggregates_text_present(tmp_path: Path) -> None:
    """The caption page's "is there text?" question: one answer per image, close to the dataset's
    strict-majority ``text_detected`` (computed apart, in postprocess/dataset.py)."""
    import json

    (tmp_path / "config").mkdir()  # the demo (its top-ups kept) on 40 images in 2 batches: the same answers
    config = small_vizwiz(tmp_path / "config", items=40, top_ups=True, edits={"batches = 5 ": "batches = 2 "})
    assert main(["run", str(config), "--no-prefect", "--db", str(tmp_path / "h.db"),
                 "--out", str(tmp_path / "runs")]) == 0
    out = tmp_path / "runs" / "vizwiz_captions"
    answers = pd.read_csv(out / "answers.csv", dtype={"item_id": str, "label": str})
    assert set(answers["field"]) == {"text_present"} and set(answers["label"]) <= {"yes", "no"}
    detected = {str(i["id"]): i["text_detected"] for i in json.loads((out / "dataset.json").read_text())["images"]}
    assert set(answers["item_id"]) <= set(detected)
    same = (answers["label"].eq("yes").astype(int) == answers["item_id"].map(detected)).mean()
    assert same >= 0.8
    assert "Answers and worker skill" in (out / "report.html").read_text()


def test_simulated_choices_have_latent_answers_and_the_answers_are_scored(demo_task_run: Path) -> None:
    """sim_items.json holds one latent answer per item and choice field; answers.csv is closer to it
    than a single worker's label is (scored here apart from the report's own figure)."""
    import json

    from postprocess.answers.reliability import accuracy, ece

    out = demo_task_run
    truth = pd.DataFrame(json.loads((out / "sim_items.json").read_text()), dtype=str)
    assert set(truth["field"]) == {"has_text", "setting"} and not truth.duplicated(["item_id", "field"]).any()
    data = pd.read_csv(out / "dataset.csv", keep_default_na=False, dtype=str)
    assert set(truth["item_id"]) == set(data["item_id"])
    answers = pd.read_csv(out / "answers.csv", dtype=str, keep_default_na=False)
    single = accuracy(data.rename(columns={"value": "label"})[["item_id", "field", "label"]], truth)
    assert accuracy(answers, truth) >= single
    report = (out / "report.html").read_text()
    assert "latent answers" in report and "Calibration against the simulator" in report
    right = answers.merge(truth, on=["item_id", "field"])
    ece_read = ece(right["confidence"].astype(float), right["label"] == right["answer"])
    assert f"expected calibration\nerror {round(ece_read, 4)} (6 equal-width bins" in report  # as computed here


def test_answers_figure_text_does_not_overlap() -> None:
    import matplotlib.pyplot as plt

    from flows.answers.answers_step import answers_figure
    from tests.figure_checks import overlapping_text

    rng = np.random.default_rng(3)
    fig = answers_figure(pd.Series(rng.uniform(0.3, 1, 500)), pd.Series(rng.uniform(0, 1, 40)), 0.9)
    try:
        assert overlapping_text(fig) == []
        assert [ax.get_title() for ax in fig.axes] == ["Confidence of the answers", "Worker skill"]
    finally:
        plt.close(fig)


def test_control_items_scored_and_kept_out_of_dataset_and_answers(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    scaffold("demo_task", tmp_path)
    (tmp_path / "config" / "controls.csv").write_text("item_id,field,answer\nphoto-001,has_text,yes\n",
                                                      encoding="utf-8")
    config = tmp_path / "config" / "demo_task.toml"
    # the scaffold's own [answers] table (every key commented) takes the key, as a user uncomments it
    config.write_text(config.read_text(encoding="utf-8").replace('# controls = "demo_task_controls.csv"',
                                                                 'controls = "controls.csv"'), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/demo_task.toml", "--no-prefect"]) == 0
    out = tmp_path / "runs" / "demo_task"
    assert "photo-001" not in set(pd.read_csv(out / "dataset.csv", dtype=str)["item_id"])
    import json

    assert [i["item_id"] for i in json.loads((out / "dataset.json").read_text())["items"]] == ["photo-002", "photo-003"]
    assert "photo-001" not in set(pd.read_csv(out / "answers.csv", dtype=str)["item_id"])
    responses = pd.read_csv(out / "responses.csv", dtype=str, keep_default_na=False)
    on_control = responses[(responses["item_id"] == "photo-001") & (responses["field"] == "has_text")
                           & (responses["decision"] == "approve")]
    expected = on_control.assign(ok=on_control["value"] == "yes").groupby("worker_id")["ok"].mean()
    workers = pd.read_csv(out / "workers.csv", dtype={"worker_id": str}).set_index("worker_id")
    assert len(expected) >= 2  # the approved responses on the control item
    assert workers.loc[expected.index, "control_accuracy"].tolist() == pytest.approx(expected.tolist())
    assert (workers.loc[expected.index, "controls"] == 1).all()
    answered = pd.read_csv(out / "answers.csv", dtype=str, keep_default_na=False)
    answered = answered[answered["method"] != "median"]  # a number field's rows have no confidence
    # one control: cross-validation has nothing to fit each fold on, so the model's own confidence is kept and
    # every row and the report say so
    assert set(answered["confidence_source"]) == {"model (calibrated on 1 control did no better in cross-validation)"}
    report = (out / "report.html").read_text()
    assert "Calibration on the control items" in report and "model, kept: calibrating it on 1 control item" in report


def test_crowd_prior_weight_reaches_the_settings_and_a_negative_one_is_refused() -> None:
    from pydantic import ValidationError

    from flows.core.config.answers_config import AnswersSection, answers_settings

    assert answers_settings(AnswersSection(crowd_prior_weight=20), 5, None).crowd_prior_weight == 20
    assert AnswersSettings().crowd_prior_weight == 0  # off unless asked: skill_prior alone, the rule before
    with pytest.raises(ValidationError, match="crowd_prior_weight"):
        AnswersSection(crowd_prior_weight=-1)


def test_typical_prior_weight_reaches_the_skill_prior_and_a_negative_one_is_refused() -> None:
    from pydantic import ValidationError

    from flows.answers.answers_step import skill_prior_of
    from flows.core.config.answers_config import AnswersSection, answers_settings

    settings = answers_settings(AnswersSection(typical_prior_weight=12), 5, None)
    assert skill_prior_of(settings).typical_weight == 12
    assert skill_prior_of(AnswersSettings()).typical_weight == 0  # off unless asked: the rule before
    with pytest.raises(ValidationError, match="typical_prior_weight"):
        AnswersSection(typical_prior_weight=-1)
    # a subnormal weight rounds its pseudo-counts to 0: every confidence NaN (a fuzz run found 2.2e-311)
    with pytest.raises(ValidationError, match=r"give 0 \(none\) or at least 1e-06"):
        AnswersSection(typical_prior_weight=2.225073858507e-311)
    assert AnswersSection(typical_prior_weight=1e-6).typical_prior_weight == 1e-6


def test_stop_when_settled_is_on_by_default_and_reaches_the_settings() -> None:
    from pydantic import ValidationError

    from flows.core.config.answers_config import AnswersSection, answers_settings

    assert AnswersSettings().stop_when_settled and answers_settings(AnswersSection(), 5, None).stop_when_settled
    assert not answers_settings(AnswersSection(stop_when_settled=False), 5, None).stop_when_settled
    with pytest.raises(ValidationError, match="stop_when_settled"):
        AnswersSection(stop_when_settled="sometimes")


def test_fast_share_reaches_the_settings_and_is_a_share_below_one() -> None:
    from pydantic import ValidationError

    from flows.core.config.answers_config import AnswersSection, answers_settings

    assert answers_settings(AnswersSection(fast_share=0.5), 5, None).fast_share == 0.5
    assert AnswersSettings().fast_share == 0  # off unless asked: one crowd, the rule before
    for bad in (-0.1, 1.0):
        with pytest.raises(ValidationError, match="fast_share"):
            AnswersSection(fast_share=bad)


def test_the_reliability_diagram_stands_beside_the_histograms() -> None:
    """With control items the figure has a third panel: one point per reliability bin at (mean confidence,
    share right), the numbers postprocess.answers.calibration.scored gave."""
    import matplotlib.pyplot as plt

    from flows.answers.answers_step import answers_figure
    from postprocess.answers.calibration import scored
    from tests.figure_checks import overlapping_text

    rng = np.random.default_rng(4)
    said = rng.uniform(0.4, 1, 200)
    calibration = scored(said, rng.random(200) < said)
    fig = answers_figure(pd.Series(said), pd.Series(rng.uniform(0, 1, 40)), 0.9, calibration)
    try:
        assert overlapping_text(fig) == []
        assert fig.axes[2].get_title() == f"Reliability on 200 controls (ECE {calibration['ece']})"
        points = fig.axes[2].collections[0].get_offsets()
        np.testing.assert_allclose(np.asarray(points), [(r["confidence"], r["accuracy"])
                                                        for r in calibration["reliability"]])
    finally:
        plt.close(fig)


def test_a_page_of_sliders_and_checkboxes_alone_gets_answers(tmp_path: Path) -> None:
    """No single choice on the page: the slider's medians and the group's options, a blocked worker's left out
    and counted once per answer (a group's options are one answer), free text named."""
    from flows.answers.field_answers import by_kind

    rows: list[tuple[str, str, str, object]] = [(i, w, "quality", v) for i, vals in (("a", (2, 3, 7)), ("b", (5, 5, 1)))
                                                for w, v in zip(
        ("w1", "w2", "bad"), vals, strict=True)]
    rows += [(i, w, "problems", t) for i in ("a", "b") for w, t in (("w1", "dark"), ("w2", "dark|blurry"),
                                                                     ("bad", ""))]
    rows += [("a", "w1", "comment", "nice")]
    frame = pd.DataFrame(rows, columns=["item_id", "worker_id", "field", "value"]).astype(str)
    choices, others = by_kind(frame, {"quality": "number", "problems": "options", "comment": "text"},
                              {"problems": ["blurry", "dark"]})
    made = campaign_answers(choices, ["bad"], AnswersSettings(method="mv"), tmp_path, others=others)
    answers = pd.read_csv(tmp_path / "answers.csv", dtype=str, keep_default_na=False)
    quality = answers[answers["field"] == "quality"].set_index("item_id")["label"]
    assert quality.to_dict() == {"a": "2.5", "b": "5"}  # the medians of w1's and w2's
    dark = answers[(answers["field"] == "problems") & (answers["option"] == "dark")]
    assert dark["label"].tolist() == ["yes", "yes"]
    assert made["dropped"] == 4 and made["blocked_line"] == ("4 answer(s) of 1 blocked worker(s) left out of the "
                                                             "answers (one a field of an item; on 2 item(s), 0 of "
                                                             "them control or quiz items)")
    assert made["notes"] == ["comment: free text, not aggregated (each worker's text is in dataset.csv)"]
    workers = pd.read_csv(tmp_path / "workers.csv")
    assert set(workers["worker_id"]) == {"w1", "w2"} and "bias_quality" in workers.columns
