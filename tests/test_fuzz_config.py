"""Hostile config files, generated: every one loads or fails with one line naming file, section and key."""

from __future__ import annotations

import copy
import math
import re
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from flows.core.config.config import CampaignConfig, load_config
from flows.core.config.config_schema import ConfigFile
from flows.core.errors import ConfigError
from tests.fuzz_support import FUZZ, assert_one_line, toml_document, toml_value

ROOT = Path(__file__).resolve().parents[1]
BASE_TEXT = (ROOT / "config" / "vizwiz_captions.toml").read_text()
BASE = tomllib.loads(BASE_TEXT)
KEYS = [(s, k) for s, table in BASE.items() for k in table]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzzcfg")
    (root / "items").mkdir()
    (root / "items" / "vizwiz_demo_items.csv").write_text("image_id,file_name,url\n1,a.jpg,https://x/a.jpg\n")
    return root


def load_bytes(folder: Path, raw: bytes) -> CampaignConfig | str:
    path = folder / "c.toml"
    path.write_bytes(raw)
    try:
        return load_config(path)
    except ConfigError as exc:
        message = assert_one_line(exc, 2)
        assert re.match(rf"{re.escape(str(path))}(:\d+)?: ", message), message  # the file, maybe its line
        return message


def check_loaded(cfg: CampaignConfig) -> None:
    """What a config that loads guarantees, whatever the file said."""
    for money in (cfg.reward, cfg.budget, cfg.prolific.reward, cfg.gating.qualification_reward):
        assert money.is_finite() and money >= 0 and money == money.quantize(Decimal("0.01"))
    for value in cfg.qc_params.values():
        assert not isinstance(value, float) or math.isfinite(value)
    assert 0 <= cfg.gating.min_percent_approved <= 100 and 0 <= cfg.prolific.min_approval_rate <= 100
    assert cfg.images_per_hit >= 1 and cfg.batches >= 1 and cfg.hit_lifetime_s >= 1
    assert 0 <= cfg.qc_params["random_sample_share"] <= 1 and cfg.qc_params["time_outlier_sigmas"] > 0


@FUZZ
@given(st.sampled_from(KEYS), toml_value)
def test_any_value_for_a_known_key_loads_or_is_named(folder: Path, where: tuple[str, str], value: Any) -> None:
    data = copy.deepcopy(BASE)
    section, key = where
    data[section][key] = value
    result = load_bytes(folder, toml_document(data).encode("utf-8", "surrogatepass"))
    if isinstance(result, str):
        assert f"[{section}]" in result or "not valid TOML" in result or "not UTF-8" in result, result
    else:
        check_loaded(result)


@FUZZ
@given(st.sampled_from([*BASE, "qcc", "campaing", "extra"]), st.text(min_size=1, max_size=30), toml_value)
def test_unknown_keys_and_sections_are_refused(folder: Path, section: str, key: str, value: Any) -> None:
    data = copy.deepcopy(BASE)
    table = data.setdefault(section, {})
    known = set(ConfigFile.model_fields[section].annotation.model_fields) if section in BASE else set()  # type: ignore[union-attr]
    if key in known or key in table:
        return
    table[key] = value
    result = load_bytes(folder, toml_document(data).encode("utf-8", "surrogatepass"))
    assert isinstance(result, str), "an unknown key or section must never load"


@FUZZ
@given(st.binary(max_size=300))
@example(raw=b"\x00")  # a NUL is named with its line (a clean CI run drew it once)
def test_random_bytes_are_one_line_errors(folder: Path, raw: bytes) -> None:
    assert isinstance(load_bytes(folder, raw), str)


@FUZZ
@given(st.sampled_from(["utf-16", "utf-16-le", "utf-8-sig", "latin-1", "utf-32"]),
       st.integers(min_value=0, max_value=len(BASE_TEXT)), st.binary(max_size=8))
def test_encodings_and_corruption(folder: Path, encoding: str, cut: int, junk: bytes) -> None:
    text = BASE_TEXT.replace("# VizWiz", "# VizWiz é")
    raw = text.encode(encoding)
    result = load_bytes(folder, raw[:cut] + junk + raw[cut:])
    if encoding == "utf-8-sig" and not junk and cut == 0:
        assert not isinstance(result, str), result  # a UTF-8 byte-order mark is harmless


@pytest.mark.parametrize(("old", "new", "needle"), [
    ("random_sample_share = 0.05", "random_sample_shar = 0.05",
     "[qc].random_sample_shar is not a known key; did you mean `random_sample_share`?"),
    ("images_per_hit = 5", "imges_per_hit = 5",  # a required key misspelt: the typo, not "is required"
     "[campaign].imges_per_hit is not a known key; did you mean `images_per_hit`?"),
    ("[postprocess]", "[postprocesss]", "[postprocesss] is not a known section; did you mean `[postprocess]`?"),
    ('task = "caption"', 'task = "captoin"',  # found by hand: it named the missing file only
     "[campaign].task names no template hit_templates/captoin.html.j2; did you mean `caption`?"),
    ('reward_usd = "0.55"', 'reward_usd = "NaN"', "[campaign].reward_usd must be an amount"),
    ('reward_usd = "0.55"', 'reward_usd = "Infinity"', "[campaign].reward_usd must be an amount"),
    ('budget = "1400.00 USD"', 'budget = "-1400.00 USD"', "[campaign].budget must be an amount"),
    ("time_outlier_sigmas = 1.95", "time_outlier_sigmas = inf", "[qc].time_outlier_sigmas must be a finite number"),
    ("time_outlier_sigmas = 1.95", "time_outlier_sigmas = nan", "[qc].time_outlier_sigmas must be a finite number"),
    ("min_approval_rate = 95", "min_approval_rate = 500",
     "[prolific].min_approval_rate must be an integer between 0 and 100"),
    ("min_percent_approved = 95", "min_percent_approved = -1",
     "[gating].min_percent_approved must be an integer between"),
    ("images_per_hit = 5", "images_per_hit = 5.0", "[campaign].images_per_hit must be an integer"),
    ("one_sentence = true", 'one_sentence = "yes"', "[submit_rules].one_sentence must be a boolean"),
    ("time_outlier = 0.5", "time_outlyer = 0.5", "[policy].block_min_rate names unknown rule 'time_outlyer'; "
                                                 "did you mean `time_outlier`?"),
    # a slow worker is for a person to look at, never blocked or rejected on that alone
    ("time_outlier = 0.5", "time_outlier_slow = 0.5", "[policy].block_min_rate names 'time_outlier_slow', which "
                                                      "only asks a person to look"),
    ('reject_rules = ["required",', 'reject_rules = ["time_outlier_slow", "required",',
     "[policy].reject_rules names 'time_outlier_slow', which only asks a person to look"),
])
def test_typos_and_hostile_values_are_named(folder: Path, old: str, new: str, needle: str) -> None:
    assert old in BASE_TEXT
    result = load_bytes(folder, BASE_TEXT.replace(old, new, 1).encode())
    assert isinstance(result, str) and needle in result, result


def test_a_section_that_is_not_a_table(folder: Path) -> None:
    text = "timing = 3\n" + BASE_TEXT.split("[timing]")[0] + "[gating]" + BASE_TEXT.split("[gating]")[1]
    result = load_bytes(folder, text.encode())
    assert isinstance(result, str) and "[timing] must be a table (got 3)" in result, result


def test_agreed_keys_of_other_helpers_load_with_bounds(folder: Path) -> None:
    extra = re.sub(r"(?m)^(accept_partial|fx_rates|block_min_evidence) = .*\n", "", BASE_TEXT)
    extra = extra.replace('budget = "1400.00 USD"', 'budget = "400.00 GBP"\naccept_partial = true\n'
                              'fx_rates = {USD = "0.79"}')
    extra = re.sub(r"(?ms)^\[policy\.block_min_rate\].*?(?=^\[)", "", extra)  # set inline below
    extra = re.sub(r"(?m)^(consensus_threshold|consensus_min_peers|shared_template_min_images|"
                   r"instruction_echo_threshold|time_outlier_method) = .*\n", "", extra)
    extra = extra.replace("[qc]\n", '[qc]\nconsensus_threshold = 0.4\nconsensus_min_peers = 2\n'
                          'shared_template_min_images = 3\ninstruction_echo_threshold = 0.7\n'
                          'time_outlier_method = "robust"\n')
    extra = extra.replace("[policy]\n", "[policy]\nblock_min_evidence = 4\nblock_min_rate = {caps_lock = 0.3}\n")
    cfg = load_bytes(folder, extra.encode())
    assert isinstance(cfg, CampaignConfig), cfg
    assert (cfg.budget, cfg.budget_currency, cfg.accept_partial) == (Decimal("400.00"), "GBP", True)
    assert cfg.fx_rates == {"USD": Decimal("0.79")} and cfg.policy.block_min_rate == {"caps_lock": 0.3}
    assert cfg.qc_params["time_outlier_method"] == "robust" and cfg.qc_params["consensus_min_peers"] == 2
    for old, new, needle in [("consensus_threshold = 0.4", "consensus_threshold = 1.5", "between 0 and 1"),
                             ("shared_template_min_images = 3", "shared_template_min_images = 1", "between 2"),
                             ('"robust"', '"vibes"', '"seed", "robust" or "robust_both"'),
                             ("caps_lock = 0.3", "caps_lock = 3", "between 0 and 1"),
                             ('"400.00 GBP"', '"400.00"', '"400.00 USD"')]:
        result = load_bytes(folder, extra.replace(old, new, 1).encode())
        assert isinstance(result, str) and needle in result, (new, result)
    both = load_bytes(folder, extra.replace("accept_partial", 'budget_usd = "1.00"\naccept_partial').encode())
    assert isinstance(both, str) and "exclusive" in both


def test_every_key_is_described() -> None:
    sections = [info.annotation for info in ConfigFile.model_fields.values()]
    for section in sections:
        model = next(a for a in (section, *getattr(section, "__args__", ())) if hasattr(a, "model_fields"))
        for key, info in model.model_fields.items():
            assert info.description, f"{model.__name__}.{key} has no description"
