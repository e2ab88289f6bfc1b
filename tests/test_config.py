"""Campaign config: the shipped file loads; every bad value is named in the error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from flows.core.config.config import load_config
from flows.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
BASE = (ROOT / "config" / "vizwiz_captions.toml").read_text()


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "items").mkdir(exist_ok=True)
    (tmp_path / "items" / "vizwiz_demo_items.csv").write_text("image_id,file_name,url\n1,a.jpg,https://x/a.jpg\n")
    path = tmp_path / "c.toml"
    path.write_text(text)
    return path


def test_shipped_config_matches_the_seed() -> None:
    cfg = load_config(ROOT / "config" / "vizwiz_captions.toml")
    assert (cfg.images_per_hit, cfg.assignments_per_image, cfg.batches) == (5, 5, 5)
    assert cfg.gating.min_hits_approved == 500 and cfg.gating.min_percent_approved == 95
    assert cfg.submit_rules.min_words == 8 and "It's" in cfg.submit_rules.banned_prefixes
    assert cfg.qc_params["time_outlier_sigmas"] == 1.95 and cfg.auto_approval_delay_s == 259200


@pytest.mark.parametrize(("old", "new", "field"), [
    ("images_per_hit = 5", "images_per_hit = 0", r"\[campaign\].images_per_hit"),
    ("images_per_hit = 5", 'images_per_hit = "five"', r"\[campaign\].images_per_hit"),
    ('reward_usd = "0.55"', 'reward_usd = "0.555"', r"\[campaign\].reward_usd"),
    ('reward_usd = "0.55"', 'reward_usd = "lots"', r"\[campaign\].reward_usd"),
    ("auto_approval_delay_s = 259200", "auto_approval_delay_s = 99999999", r"\[timing\].auto_approval_delay_s"),
    ('block_mode = "soft"', 'block_mode = "medium"', r"\[gating\].block_mode"),
    ("min_percent_approved = 95", "min_percent_approved = 120", r"\[gating\].min_percent_approved"),
    ("caps_lock_share = 0.5", "caps_lock_share = 5", r"\[qc\].caps_lock_share"),
    ('time_source = "submit_minus_accept"', 'time_source = "vibes"', r"\[qc\].time_source"),
    ('rules = ["time_outlier",', 'rules = ["astrology", "time_outlier",', r"\[qc\].rules"),
    ("max_chars = 0", "max_chars = -4", r"\[submit_rules\].max_chars"),
    ('task = "caption"', 'task = "nope"', r"\[campaign\].task"),
    ('items = "items/vizwiz_demo_items.csv"', 'items = "missing.csv"', r"\[campaign\].items"),
    ("caps_lock = 0.5 ", "caps_lock = 1.5 ", r"\[policy\].block_min_rate.caps_lock"),
    ('locale = ""', 'locale = ""\nqualification_key = "nope.csv"', r"\[gating\].qualification_key"),
    ('locale = ""', 'locale = ""\nqualification_min_score = 101', r"\[gating\].qualification_min_score"),
])
def test_bad_values_name_their_field(tmp_path: Path, old: str, new: str, field: str) -> None:
    assert old in BASE
    with pytest.raises(ConfigError, match=field):
        load_config(write(tmp_path, BASE.replace(old, new, 1)))


def test_malformed_toml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[campaign\nname ="))
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "absent.toml")


def test_required_auto_approval_delay(tmp_path: Path) -> None:
    text = BASE.replace("auto_approval_delay_s = 259200", "")
    with pytest.raises(ConfigError, match=r"\[timing\].auto_approval_delay_s is required"):
        load_config(write(tmp_path, text))


@pytest.mark.parametrize("path", sorted((Path(__file__).resolve().parents[1] / "config").glob("*.toml")),
                         ids=lambda p: p.name)
def test_every_rule_that_rejects_work_is_run(path: Path) -> None:
    """A reject rule that QC never runs can never fire (a blank Flickr8k caption once passed this way)."""
    cfg = load_config(path)
    assert set(cfg.policy.reject_rules) <= set(cfg.qc_rules), set(cfg.policy.reject_rules) - set(cfg.qc_rules)


@pytest.mark.parametrize("key", ["reject_rules", "review_rules"])
def test_a_policy_naming_a_rule_qc_does_not_run_is_refused(tmp_path: Path, key: str) -> None:
    """Any user's config, not only the shipped ones: the rule would never flag, so never reject."""
    text = re.sub(rf"^{key} = \[[^\]]*\]", f'{key} = ["required", "caps_lock"]', BASE, count=1, flags=re.M)
    text = text.replace('"caps_lock", ', "", 1)  # [qc].rules no longer runs caps_lock
    assert '"caps_lock"' not in text.split("[qc]", 1)[1].split("[", 1)[0]
    with pytest.raises(ConfigError, match=rf"\[policy\].{key} names 'caps_lock', which \[qc\].rules does not run"):
        load_config(write(tmp_path, text))
