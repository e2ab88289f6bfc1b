"""The caption-text rules through ``hitflow qc`` (with and without a campaign config), the
page text the campaign hands to QC, and their figures on the real VizWiz captions."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from bench.qc_real_grid import GRID_KEYS
from flows.campaigns.page_text import campaign_page_text, visible_text
from flows.cli.main import main
from flows.core.config.config import load_config

ROOT = Path(__file__).resolve().parents[1]
VIZWIZ = ROOT / "config" / "vizwiz_captions.toml"
TEMPLATE = "A very wonderful view and worth seeing at all times, my friend"
ECHO = "Describe all parts of the image that may be important to a person who is blind"
HONEST = [["A red mug of hot coffee on a wooden kitchen table", "Red coffee mug sitting on a wooden table top",
           "A wooden table with a red mug of coffee on it", "Close view of a red mug full of coffee on wood"],
          ["A can of chicken noodle soup on a white counter", "Chicken noodle soup can standing on a counter",
           "A soup can with a red label on a white counter", "White kitchen counter with a can of noodle soup"],
          ["A black remote control lying on a grey sofa cushion", "Remote control for a television on a grey sofa",
           "A grey couch cushion with a black remote on it", "Black TV remote resting on the sofa cushion"],
          ["A green glass bottle of olive oil on a shelf", "Olive oil in a green bottle standing on a shelf",
           "A shelf with a green bottle of olive oil", "Green olive oil bottle on a wooden kitchen shelf"]]


def submissions(tmp_path: Path) -> Path:
    rows = []
    for k, captions in enumerate(HONEST):
        for w, caption in enumerate(captions):
            rows.append((f"a{k}-{w}", f"W{w}", f"img{k}", caption, 120.0))
        rows.append((f"a{k}-s", f"S{k}", f"img{k}", TEMPLATE, 20.0))  # four accounts, one pasted template
    rows.append(("a0-e", "ECHO", "img0", ECHO, 90.0))
    rows.append(("a1-o", "ODD", "img1", "Purple xylophones everywhere tonight", 60.0))  # no word in common
    path = tmp_path / "subs.csv"
    pd.DataFrame(rows, columns=["assignment_id", "worker_id", "image_id", "caption", "work_time_s"]).to_csv(
        path, index=False)
    return path


def flag_rows(tmp_path: Path, *extra: str) -> pd.DataFrame:
    out = tmp_path / "flags.csv"
    assert main(["qc", str(submissions(tmp_path)), "--out", str(out), *extra]) == 0
    return pd.read_csv(out, keep_default_na=False, dtype=str)


def test_offline_qc_with_config_runs_the_text_rules_with_the_page_text(tmp_path: Path) -> None:
    flags = flag_rows(tmp_path, "--config", str(VIZWIZ))
    by_rule = {rule: set(rows["worker_id"]) for rule, rows in flags.groupby("rule")}
    assert by_rule["shared_template"] == {"S0", "S1", "S2", "S3"}
    assert by_rule["instruction_echo"] == {"ECHO"}
    # at the config's threshold (0.01, chosen on real captions) only near-zero overlap counts:
    # the template shares "a", "and" with its peers, so consensus leaves it to shared_template
    assert "ODD" in by_rule["consensus"] and by_rule["consensus"] <= {"ODD", "S0", "S1", "S2", "S3", "ECHO"}
    assert "rule_error" not in by_rule
    echo = flags[flags["rule"] == "instruction_echo"].iloc[0]
    assert "Describe all parts of the image" in echo["detail"] and float(echo["value"]) >= 0.6


def test_offline_qc_without_config_has_no_page_text_and_skips_the_echo_rule(tmp_path: Path) -> None:
    flags = flag_rows(tmp_path)
    assert set(flags.loc[flags["rule"] == "consensus", "worker_id"]) == {"ODD"}
    assert set(flags.loc[flags["rule"] == "shared_template", "worker_id"]) == {"S0", "S1", "S2", "S3"}
    assert "instruction_echo" not in set(flags["rule"]) and "rule_error" not in set(flags["rule"])


def test_campaign_page_text_is_what_a_worker_reads() -> None:
    text = campaign_page_text(load_config(VIZWIZ))
    assert "Include at least 8 words." in text.splitlines()
    assert "\u201cThere is\u201d" in text and "Quality issues are too severe to describe this image" in text
    assert "hitflowSequence" not in text and "<" not in text  # no script, no markup
    flickr = campaign_page_text(load_config(ROOT / "config" / "flickr8k_captions.toml"))
    assert "The dog is wearing a red sombrero." in flickr  # the graded examples are page text too


def test_visible_text_drops_scripts_styles_and_keeps_blocks() -> None:
    html = "<style>p{}</style><h1>T &amp; C</h1><ul><li>one</li><li>two</li></ul><script>var x=1</script>"
    assert visible_text(html) == "T & C\none\ntwo"


@pytest.mark.parametrize(("key", "value", "message"), [
    ("time_outlier_method", '"fast"', 'must be "seed_slow_apart", "seed", "robust" or "robust_both"'),
    ("consensus_threshold", "1.5", "must be a number between 0 and 1"),
    ("consensus_min_peers", "0", "must be a positive integer"),
    ("shared_template_min_images", "1", "must be an integer between 2 and 1000"),
    ("instruction_echo_threshold", '"high"', "must be a number"),
    ("near_template_words", "0", "must be a positive integer"),
    ("near_template_consensus", "-0.1", "must be a number between 0 and 1"),
    ("near_template_min_images", "1", "must be an integer between 2 and 1000"),
    ("quality_talk_consensus", "2", "must be a number between 0 and 1"),
    ("quality_talk_consensus", '"low"', "must be a number"),
])
def test_bad_text_rule_settings_are_named(tmp_path: Path, capsys, key: str, value: str, message: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HITFLOW_ALLOW_OUTSIDE_PATHS", "1")  # the copy names the repo's files by absolute path
    text, n = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", VIZWIZ.read_text(encoding="utf-8"))
    assert n == 1
    items = (VIZWIZ.parent / "items").resolve()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('items = "items/', f'items = "{items}/'), encoding="utf-8")
    assert main(["qc", str(submissions(tmp_path)), "--out", str(tmp_path / "f.csv"), "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"[qc].{key}" in err and message in err and "Traceback" not in err


# Measured with `make bench-qc-real` (the held-out half of the seeded split, the config's
# thresholds): any flag but the random sample 92.6% recall / 2.66% false flags; shared_template
# 73.1% / 0.50%; near_template 49.1% / 0.16%; consensus 20.4% / 0.37%; quality_talk 4.6% / 0.13%.
# Floors a little below, so a change that loses real spam or flags more honest captions fails here.
FLOORS = {"any flag but the random sample (the target's set) together": (0.9, 0.03),
          "shared_template": (0.7, 0.006), "near_template": (0.46, 0.003), "consensus": (0.18, 0.005),
          "quality_talk": (0.04, 0.002)}


def test_text_rules_on_real_vizwiz_captions_hold_their_measured_figures(shared_data: Path) -> None:
    from bench.qc_real import DATA, MAX_FALSE_FLAGS, evaluate, qc_params, real_frame

    if not DATA.is_file():
        pytest.skip(f"needs {DATA}")
    cfg = load_config(VIZWIZ)
    frame = real_frame(DATA)
    held_out = frame.loc[~frame["tune"], "image_id"].nunique()
    assert held_out == frame["image_id"].nunique() // 2  # the seeded split holds out half the images
    result = evaluate(frame, cfg, qc_params(cfg, seed=0))
    for row, (min_recall, max_false) in FLOORS.items():
        recall, false_flags, _only = result["table"][row]
        assert recall >= min_recall and false_flags <= max_false, (row, recall, false_flags)
    chosen = result["chosen"]
    assert chosen["tune_false"] <= MAX_FALSE_FLAGS and chosen["tune_room"] > 0
    # the config holds the point chosen on the tuning half, not one picked by its held-out figures
    assert all(float(cfg.qc_params[k]) == chosen[k] for k in GRID_KEYS)
    assert result["config_interval"]["recall_ci"][0] < result["config_interval"]["recall"]
