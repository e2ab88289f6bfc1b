"""``hitflow aggregate --adaptive``: the replay from the command line, on the real WSD file."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from bench.snow_sets import SHARED_WSD as WSD
from flows.cli.main import main


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """``hitflow aggregate ARGS`` as ``main()`` runs it in this process (a process of its own costs
    ~0.8 s of CPU importing; tests/test_cli.py runs the command as a process): its exit code, stdout
    and stderr. An error that is not the CLI's one line would propagate here and fail the test."""
    out, err, environ = io.StringIO(), io.StringIO(), dict(os.environ)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(["aggregate", *args])
            except SystemExit as exit_:  # argparse's own refusals
                code = exit_.code if isinstance(exit_.code, int) else 1
    finally:  # the CLI sets Prefect's defaults in its environment, as the command does for itself
        for added in set(os.environ) - set(environ):
            del os.environ[added]
        os.environ.update(environ)
    return subprocess.CompletedProcess(["hitflow", "aggregate", *args], code, out.getvalue(), err.getvalue())


def _labels_file(folder: Path, seed: int, items: int, per_item: int, right: float, items_a_worker: int) -> Path:
    """Three labels, the truth cycling; each label right ``right`` of the time, else one of the other two;
    worker k of an item labels ``items_a_worker`` consecutive items (a stranger each at 1)."""
    rng = __import__("random").Random(seed)
    rows = ["item_id,worker_id,label,gold"]
    for i in range(items):
        truth = "abc"[i % 3]
        for k in range(per_item):
            label = truth if rng.random() < right else rng.choice([x for x in "abc" if x != truth])
            rows.append(f"i{i},w{k}-{i // items_a_worker},{label},{truth}")
    labels = folder / "labels.csv"
    labels.write_text("\n".join(rows) + "\n")
    return labels


@pytest.mark.skipif(not WSD.exists(), reason=f"needs ../shared/data beside the project ({WSD} is absent)")
def test_adaptive_replay_writes_judgements_used_and_the_saving(tmp_path: Path) -> None:
    out = tmp_path / "answers.csv"
    done = _run(str(WSD), "--adaptive", "--columns", "orig_id,!amt_worker_ids,response", "--gold", "gold",
                "--lead", "2", "--method", "mv", "--out", str(out))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    answers = pd.read_csv(out)
    assert summary["judgements_total"] == 1770
    assert summary["judgements_used"] == answers["judgements_used"].sum() < 1770 / 2
    assert answers["judgements_used"].between(2, 10).all() and (answers["available"] == 10).all()
    assert summary["accuracy"] >= 0.99


def test_a_bad_rule_is_one_line(tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("item_id,worker_id,label\na,w1,x\na,w2,y\n")
    done = _run(str(labels), "--adaptive", "--min-judgements", "4", "--max-judgements", "2",
                "--out", str(tmp_path / "answers.csv"))
    assert done.returncode != 0
    assert "max_judgements 2 is below min_judgements 4" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "answers.csv").exists()
    for budget in ("0", "1.5", "nan"):
        done = _run(str(labels), "--adaptive", "--budget", budget, "--out", str(tmp_path / "answers.csv"))
        assert done.returncode != 0 and f"budget {budget}" in done.stderr and "Traceback" not in done.stderr
        assert not (tmp_path / "answers.csv").exists()


def test_the_crowds_own_accuracy_lets_agreeing_strangers_stop(tmp_path: Path) -> None:
    """Every worker gives three labels (as on Prolific), each right 90% of the time: with the fixed prior two
    agreeing strangers read 0.92 and every item takes a third label; with --crowd-prior-weight the crowd's
    accuracy (about 0.9 from the labels used) lets the items two agree on stop at two."""
    labels = _labels_file(tmp_path, seed=3, items=300, per_item=4, right=0.9, items_a_worker=3)
    used = {}
    for weight in ("0", "20"):
        done = _run(str(labels), "--adaptive", "--min-judgements", "2", "--gold", "gold", "--method", "mv",
                    "--crowd-prior-weight", weight, "--no-stop-when-settled",  # two agreeing of four: settled
                    "--budget", "1",  # half of four labels an item is the two every item gets first
                    "--out", str(tmp_path / f"answers{weight}.csv"))
        assert done.returncode == 0, done.stderr
        used[weight] = json.loads(done.stdout)
    assert used["0"]["judgements_used"] >= 3 * 300
    assert used["20"]["judgements_used"] < 0.8 * used["0"]["judgements_used"]
    assert used["20"]["accuracy"] >= 0.95
    bad = _run(str(labels), "--adaptive", "--crowd-prior-weight", "-1", "--out", str(tmp_path / "a.csv"))
    assert bad.returncode != 0 and "crowd weight" in bad.stderr and "Traceback" not in bad.stderr


def test_settled_items_stop_without_losing_accuracy_from_the_command_line(tmp_path: Path) -> None:
    """Strangers right 77% of the time, at most 6 labels an item: with --stop-when-settled (the default) a lead
    of one with one label left (or two with two) stops, since the rest could only tie; the same answers on
    the items it did not stop early, fewer labels, and never more than the rule before."""
    labels = _labels_file(tmp_path, seed=5, items=400, per_item=6, right=0.77, items_a_worker=1)
    used, answers = {}, {}
    for flag in ("--stop-when-settled", "--no-stop-when-settled"):
        out = tmp_path / f"answers{flag}.csv"
        done = _run(str(labels), "--adaptive", "--budget", "1", "--min-judgements", "2", "--max-judgements", "6",
                    "--method", "mv",
                    "--confidence", "0.95", "--crowd-prior-weight", "20", "--gold", "gold", flag, "--out", str(out))
        assert done.returncode == 0, done.stderr
        used[flag] = json.loads(done.stdout)
        answers[flag] = pd.read_csv(out).set_index("item_id")
    settled, plain = answers["--stop-when-settled"], answers["--no-stop-when-settled"]
    fewer = settled["judgements_used"] < plain["judgements_used"]
    assert fewer.sum() >= 5 and (settled["judgements_used"] <= plain["judgements_used"]).all()
    assert used["--stop-when-settled"]["judgements_used"] < used["--no-stop-when-settled"]["judgements_used"]
    # an item stopped early was settled: its vote lead (labels taken in the file's order) at least the labels
    # it could still have taken
    frame = pd.read_csv(labels)
    for item, row in settled[fewer].iterrows():
        votes = frame[frame["item_id"] == item]["label"].head(int(row["judgements_used"])).value_counts().tolist()
        assert votes[0] - ([*votes[1:], 0][0]) >= 6 - row["judgements_used"]
    assert (settled.loc[~fewer, "label"] == plain.loc[~fewer, "label"]).all()  # same labels, same answer


def test_a_sweep_is_each_confidences_own_replay(tmp_path: Path) -> None:
    """--sweep's rows: every label first (its accuracy that of hitflow aggregate without --adaptive), then each
    confidence as its own replay would give it, run apart."""
    labels = _labels_file(tmp_path, seed=7, items=300, per_item=5, right=0.77, items_a_worker=1)
    frame = pd.read_csv(labels)
    frame.assign(seconds=[20 + (i * 37) % 300 for i in range(len(frame))]).to_csv(labels, index=False)
    rule = ["--adaptive", "--budget", "1", "--min-judgements", "2", "--method", "mv", "--crowd-prior-weight", "20",
            "--gold", "gold",
            "--seconds", "seconds", "--fast-share", "0.3"]
    done = _run(str(labels), *rule, "--sweep", "0.9,0.95,0.99", "--out", str(tmp_path / "a.csv"))
    assert done.returncode == 0, done.stderr
    sweep = json.loads(done.stdout)["sweep"]
    assert [row["confidence"] for row in sweep] == [None, 0.9, 0.95, 0.99]
    whole = _run(str(labels), "--method", "mv", "--gold", "gold", "--out", str(tmp_path / "all.csv"))
    assert sweep[0] == {"confidence": None, "share_used": 1.0, "same_as_all_labels": 1.0,
                        "accuracy": json.loads(whole.stdout)["accuracy"]}
    for row in sweep[1:]:
        alone = _run(str(labels), *rule, "--confidence", str(row["confidence"]), "--out", str(tmp_path / "b.csv"))
        summary = json.loads(alone.stdout)
        assert (row["share_used"], row["accuracy"]) == (summary["share_used"], summary["accuracy"])
        kept = pd.read_csv(tmp_path / "b.csv").set_index("item_id")["label"]
        everything = pd.read_csv(tmp_path / "all.csv").set_index("item_id")["label"]
        assert row["same_as_all_labels"] == round(float((kept == everything.reindex(kept.index)).mean()), 4)
    assert sweep[1]["share_used"] < sweep[3]["share_used"] < 1.0


@pytest.mark.parametrize(("args", "message"), [
    (["--fast-share", "0.5"], "--fast-share needs each label's work time"),
    (["--seconds", "time", "--fast-share", "0.5"], "no column 'time' for --seconds"),
    (["--seconds", "gold", "--fast-share", "0.5"], "holds no number of seconds"),
    (["--seconds", "seconds"], "--seconds is read only with --fast-share above 0"),
    (["--seconds", "seconds", "--fast-share", "0"], "--seconds is read only with --fast-share above 0"),
    (["--sweep", "0.9,high"], "--sweep '0.9,high'"),
    (["--sweep", "0.9,1.5"], "confidence 1.5"),
])
def test_bad_work_time_and_sweep_options_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    labels = _labels_file(tmp_path, seed=1, items=10, per_item=3, right=0.8, items_a_worker=1)
    done = _run(str(labels), "--adaptive", *args, "--out", str(tmp_path / "answers.csv"))
    assert done.returncode != 0 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "answers.csv").exists()


@pytest.mark.parametrize("bad", ["-1", "inf", "-inf"])
def test_a_negative_or_endless_work_time_is_refused_in_one_line(tmp_path: Path, bad: str) -> None:
    """A work time below zero or without end is no time a label took (a -1 "unknown" sentinel, a clock
    gone wrong): taken as it is, a worker whose times are -1 would be weighed as one of the fast workers."""
    labels = _labels_file(tmp_path, seed=1, items=10, per_item=3, right=0.8, items_a_worker=1)
    frame = pd.read_csv(labels)
    times = ["30"] * len(frame)
    times[4] = bad
    frame.assign(secs=times).to_csv(labels, index=False)
    done = _run(str(labels), "--adaptive", "--seconds", "secs", "--fast-share", "0.5",
                "--out", str(tmp_path / "answers.csv"))
    assert done.returncode != 0 and "column 'secs'" in done.stderr and "line(s) 6" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "answers.csv").exists()


@pytest.mark.parametrize("args", [["--sweep", "0.9,0.95"], ["--seconds", "gold"], ["--fast-share", "0.5"]])
def test_replay_options_without_adaptive_are_refused_not_ignored(tmp_path: Path, args: list[str]) -> None:
    """--sweep, --seconds and --fast-share change only the replay: without --adaptive the answers would come
    from every label and the sweep the person asked for would silently not be there."""
    labels = _labels_file(tmp_path, seed=1, items=10, per_item=3, right=0.8, items_a_worker=1)
    done = _run(str(labels), *args, "--out", str(tmp_path / "answers.csv"))
    assert done.returncode != 0 and f"{args[0]} needs --adaptive" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "answers.csv").exists()


@pytest.mark.parametrize("option", ["--crowd-prior-weight", "--typical-prior-weight"])
def test_skill_model_weights_without_their_model_are_refused_not_ignored(tmp_path: Path, option: str) -> None:
    """The crowd's and the typical worker's weights change only the skill model (the replay's and --method
    skill's): with majority vote or Dawid-Skene they would be read and change nothing."""
    labels = _labels_file(tmp_path, seed=1, items=10, per_item=3, right=0.8, items_a_worker=1)
    done = _run(str(labels), option, "12", "--method", "ds", "--out", str(tmp_path / "answers.csv"))
    assert done.returncode != 0 and f"{option} needs --adaptive or --method skill" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "answers.csv").exists()
    skill = _run(str(labels), option, "12", "--method", "skill", "--out", str(tmp_path / "answers.csv"))
    assert skill.returncode == 0, skill.stderr
    assert json.loads(skill.stdout)["methods"] == {"label": "skill"}


def test_a_confidence_named_twice_in_a_sweep_is_replayed_once(tmp_path: Path) -> None:
    labels = _labels_file(tmp_path, seed=2, items=30, per_item=4, right=0.8, items_a_worker=1)
    done = _run(str(labels), "--adaptive", "--sweep", "0.9,0.95,0.9", "--out", str(tmp_path / "a.csv"))
    assert done.returncode == 0, done.stderr
    assert [row["confidence"] for row in json.loads(done.stdout)["sweep"]] == [None, 0.9, 0.95]


def test_the_typical_worker_prior_from_the_command_line(tmp_path: Path) -> None:
    """Workers right 90% of the time on 12 items each: under skill_prior alone (70%, worth 4 labels) two
    agreeing workers with short records do not reach 0.95 and items take a third label; with
    --typical-prior-weight 12 a record that fits the crowd's median worker (about 90%) counts as theirs, so
    fewer labels are used, as accurately. A negative weight is one line."""
    labels = _labels_file(tmp_path, seed=4, items=360, per_item=4, right=0.9, items_a_worker=12)
    used = {}
    for weight in ("0", "12"):
        done = _run(str(labels), "--adaptive", "--budget", "1", "--min-judgements", "2", "--gold", "gold",
                    "--method", "mv",
                    "--confidence", "0.95", "--typical-prior-weight", weight, "--no-stop-when-settled",
                    "--out", str(tmp_path / f"answers{weight}.csv"))
        assert done.returncode == 0, done.stderr
        used[weight] = json.loads(done.stdout)
    assert used["12"]["judgements_used"] < 0.95 * used["0"]["judgements_used"]  # 874 against 958 when written
    assert used["12"]["accuracy"] >= used["0"]["accuracy"] - 0.01 and used["12"]["accuracy"] >= 0.95
    bad = _run(str(labels), "--adaptive", "--typical-prior-weight", "-1", "--out", str(tmp_path / "a.csv"))
    assert bad.returncode != 0 and "typical worker prior weight" in bad.stderr and "Traceback" not in bad.stderr
    assert not (tmp_path / "a.csv").exists()


@pytest.mark.skipif(not WSD.exists(), reason=f"needs ../shared/data beside the project ({WSD} is absent)")
def test_wsd_with_the_defaults_and_with_controls_keeps_full_majority_votes_accuracy_on_half(tmp_path: Path) -> None:
    """The calibration work's done-when: the defaults stop on answers.csv's confidence; half the gold as --controls
    calibrates it (the controls take no more than the first three labels and leave the answers)."""
    raw = pd.read_csv(WSD, sep="\t", dtype=str)
    gold = raw.drop_duplicates("orig_id").set_index("orig_id")["gold"]
    full = raw.groupby("orig_id")["response"].agg(lambda s: s.value_counts().index[0])  # majority vote by hand
    tied = raw.groupby("orig_id")["response"].agg(lambda s: len(s.value_counts()) > 1
                                                  and s.value_counts().iloc[0] == s.value_counts().iloc[1])
    assert not tied.any()  # no tie: the vote by hand needs no tie-break
    controls = tmp_path / "controls.csv"
    gold.iloc[::2].rename_axis("item_id").rename("answer").reset_index().to_csv(controls, index=False)
    common = [str(WSD), "--adaptive", "--columns", "orig_id,!amt_worker_ids,response", "--gold", "gold"]
    for extra in ([], ["--controls", str(controls)]):
        out = tmp_path / f"answers{len(extra)}.csv"
        done = _run(*common, *extra, "--out", str(out))
        assert done.returncode == 0, done.stderr
        summary, answers = json.loads(done.stdout), pd.read_csv(out, dtype={"item_id": str})
        assert summary["share_used"] <= 0.5
        right = answers["label"].astype(str).to_numpy() == gold.reindex(answers["item_id"]).to_numpy()
        assert right.mean() >= (full.reindex(answers["item_id"]) == gold.reindex(answers["item_id"])).mean()
    used = pd.read_csv(tmp_path / "answers2.csv", dtype={"item_id": str})
    assert len(used) == len(gold) - len(gold.iloc[::2])
    fit = summary["calibration_fit"]  # WSD's model is calibrated already: cross-validation may keep it
    assert fit["controls"] == 89 and fit["converged"]
    said = "calibrated on 89 controls" if fit["moved"] else "model (calibrated on 89 controls did no better"
    assert used["confidence_source"].str.startswith(said).all()
    assert summary["confidence_is"].startswith("calibrated on 89 control items" if fit["moved"] else "model, kept")


def test_the_commands_replay_defaults_are_the_rules() -> None:
    """The replay bench (bench/answers_calibration.py) measures DEFAULT_RULE as `hitflow aggregate --adaptive`, and
    tests/test_real_labels.py holds the command's defaults to the RTE and TEMP targets that bench/suite_targets.py
    checks on DEFAULT_RULE itself (the suite ran both replays before)."""
    import argparse

    from flows.cli.aggregate_command import add_aggregate_parser
    from postprocess.answers.adaptive import DEFAULT_RULE

    parser = argparse.ArgumentParser()
    add_aggregate_parser(parser.add_subparsers())
    a = parser.parse_args(["aggregate", "x.csv", "--out", "a.csv", "--adaptive"])
    assert (a.min_judgements, a.max_judgements, a.confidence, a.lead, a.method, a.stop_when_settled, a.budget,
            a.budget_confidence) == (
        DEFAULT_RULE.min_judgements, DEFAULT_RULE.max_judgements, DEFAULT_RULE.confidence, DEFAULT_RULE.lead,
        DEFAULT_RULE.method, DEFAULT_RULE.settled, DEFAULT_RULE.budget, DEFAULT_RULE.budget_confidence)
