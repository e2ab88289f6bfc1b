"""A config keeps getting the gate: ``[qc]`` names a preset and what it adds or leaves out, a config written by
an older ``hitflow new`` (every rule listed by name: ``tests/pages/old_config/``, written by 2c4fa7dd's) runs
with the rules recommended since, and ``hitflow run`` names the recommended rules a config leaves out."""

from __future__ import annotations

import re
import shutil
import sqlite3
import tomllib
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.config import config as config_module
from flows.core.config.config import load_config
from flows.core.config.config_schema import QcSection
from flows.core.config.rule_sets import chosen_rules
from flows.core.errors import ConfigError
from qc.custom_rules import CUSTOM_RULES
from qc.runner import DEFAULT_RULES
from tests.small_configs import UNREHEARSED

OLD = Path(__file__).resolve().parent / "pages" / "old_config"
NEW_RULE = "exceptionally_fast"  # a registered rule no older list names: stands for one recommended later
SINCE = {"max_words"}  # recommended for a page of one's own after the old config was written


@pytest.fixture
def old_config(tmp_path: Path) -> Path:
    for f in OLD.glob("reviews*"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path / "reviews.toml"


def test_an_older_hitflow_new_config_runs_with_the_rules_recommended_since(
        old_config: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    listed = tomllib.loads(old_config.read_text(encoding="utf-8"))["qc"]["rules"]
    assert NEW_RULE not in listed and set(CUSTOM_RULES) - SINCE <= set(listed)  # as written: every rule of its day
    monkeypatch.setattr(config_module, "CUSTOM_RULES", (*CUSTOM_RULES, NEW_RULE))
    cfg = load_config(old_config)
    assert NEW_RULE in cfg.qc_rules and set(listed) <= set(cfg.qc_rules)
    [note] = [n for n in cfg.notes if NEW_RULE in n]
    assert "older `hitflow new`" in note and "[qc] ignore" in note
    assert main(["run", str(old_config), "--no-prefect", "--db", str(old_config.parent / "h.db"), "--out",
                 str(old_config.parent / "runs"), "--limit", "6"]) in (0, 8)
    out = capsys.readouterr().out
    assert note in out  # `hitflow run` says it
    with sqlite3.connect(old_config.parent / "h.db") as db:
        assert db.execute("SELECT count(*) FROM assignments").fetchone()[0] >= 12


def test_preset_extend_and_ignore_and_the_run_names_what_is_left_out(old_config: Path, capsys) -> None:
    presets = 'preset = "recommended"\nextend = ["near_template"]\nignore = ["item_blind", "caps_lock"]\n'
    text = re.sub(r'(?ms)^rules = \[.*?"typing_cadence"\][^\n]*\n', presets, old_config.read_text(encoding="utf-8"),
                  count=1)
    old_config.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"names 'caps_lock', which .* take it out of \[qc\] ignore"):
        load_config(old_config)  # the policy's review_rules name it
    text = text.replace('"random_sample", "consensus", "time_outlier", "time_outlier_slow", "caps_lock",',
                        '"random_sample", "consensus", "time_outlier", "time_outlier_slow",')
    old_config.write_text(text, encoding="utf-8")
    cfg = load_config(old_config)
    assert set(cfg.qc_rules) == (set(CUSTOM_RULES) | {"near_template"}) - {"item_blind", "caps_lock"}
    assert not any("leaves out recommended" in note for note in cfg.notes)  # ignore names the config's intent
    assert main(["run", str(old_config), "--dry-run", *UNREHEARSED]) in (0, 1)
    out = capsys.readouterr().out
    assert "item_blind" not in out.split("what QC reads")[1].split("\n")[1]
    exact = QcSection(preset="none", rules=["time_outlier", "consensus"], extend=["caps_lock"], ignore=["consensus"])
    assert chosen_rules(exact, CUSTOM_RULES, custom=True)[0] == ("time_outlier", "caps_lock")  # what it names


def test_a_built_in_tasks_list_runs_as_written_and_is_named() -> None:
    shipped = Path(__file__).resolve().parents[1] / "config" / "flickr8k_captions.toml"
    assert load_config(shipped).notes == ()  # its ignore names what the Flickr8k HIT has no use for
    section = tomllib.loads(shipped.read_text(encoding="utf-8"))["qc"]
    listed = QcSection(rules=section["rules"])  # the same list without its ignore
    rules, notes = chosen_rules(listed, DEFAULT_RULES, custom=False)
    left = [r for r in DEFAULT_RULES if r not in rules]
    assert rules == tuple(section["rules"]) and "min_words" in left  # the Flickr8k page states no minimum
    assert notes == [f"qc: this config leaves out recommended rule(s) {', '.join(left)} (a built-in task's "
                     "[qc] rules runs as written; [qc] extend adds one)"]


def test_an_older_field_table_runs_as_written_and_says_what_it_leaves_out(old_config: Path) -> None:
    since, note = load_config(old_config).notes
    assert all(rule in since for rule in SINCE) and "recommended since it was written" in since
    assert note.startswith("qc: [qc.fields.summary] rules runs as written, without max_words, one_sentence, "
                           "banned_prefix")
