"""What a crowd file may say: its tables, their keys and each profile parameter's range."""

from __future__ import annotations

import difflib
import math
from pathlib import Path
from typing import Any

from flows.core.errors import ConfigError

# the crowd a simulator loads when none is named (here, so a provenance needs no simulator import)
DEFAULT_CROWD = Path(__file__).resolve().parents[3] / "config" / "crowds" / "vizwiz_demo.toml"
TOP_KEYS = ("seed", "caption_bank", "caption_bank_optional", "judgement_truth", "profile", "size", "activity",
            "arrivals", "market")
TABLE_KEYS = {"size": ("count", "images_per_worker", "min_workers"),
              "activity": ("distribution", "sigma", "alpha"),
              "arrivals": ("stay_days_mean",),
              "market": ("balance",)}
# A profile's parameters and the range each must lie in (low, high, whole number?).
PARAMETER_RANGES: dict[str, tuple[float, float, bool]] = {
    "seconds_per_item": (0.5, 86400.0, False),
    "activity": (0.0, 1000.0, False),
    "typo_rate": (0.0, 1.0, False),
    "canned_rate": (0.0, 1.0, False),
    "blur_rate": (0.0, 1.0, False),
    "park_share": (0.0, 1.0, False),
    "hits_approved": (0.0, 10_000_000.0, True),
    "percent_approved": (0.0, 100.0, True),
    "ring_size": (1.0, 10_000.0, True),
    "choice_skip": (0.0, 1.0, False),  # an honest profile's chance of skipping an optional choice
    "accuracy": (0.0, 1.0, False),  # chance of giving a choice's truth with care (latent_choices.py)
    "return_rate": (0.0, 1.0, False),  # chance of returning an accepted MTurk HIT (flows/sim/mturk/handed_back.py)
    "attention_slip": (0.0, 1.0, False),  # chance of missing a check written among a page's ratings
}
# Words a profile may set: how its choice answers go (flows/sim/people/latent_choices.py), how it answers an
# attention check (flows/sim/people/attention_answers.py)
PROFILE_WORDS = {"choices": ("wrong",), "attention": ("follow", "random", "constant")}
PROFILE_KEYS = ("name", "count", "share", "locale", *PROFILE_WORDS, *PARAMETER_RANGES)


def _unknown(path: Path, where: str, key: str, known: tuple[str, ...]) -> ConfigError:
    near = difflib.get_close_matches(key, known, n=1)
    hint = f"did you mean `{near[0]}`?" if near else "known keys: " + ", ".join(known)
    return ConfigError(f"crowd file {path}: unknown key `{key}` {where}; {hint} (fix the crowd file)")


def check_crowd_keys(path: Path, spec: dict[str, Any]) -> None:
    """Refuse unknown tables and keys, a file without profiles, and parameters out of range."""
    for key in spec:
        if key not in TOP_KEYS:
            raise _unknown(path, "at the top", key, TOP_KEYS)
    for table, keys in TABLE_KEYS.items():
        value = spec.get(table, {})
        if not isinstance(value, dict):
            raise ConfigError(f"crowd file {path}: [{table}] must be a table; fix the crowd file")
        for key in value:
            if key not in keys:
                raise _unknown(path, f"in [{table}]", key, keys)
    profiles = spec.get("profile")
    if not isinstance(profiles, list) or not profiles or not all(isinstance(p, dict) for p in profiles):
        raise ConfigError(f"crowd file {path}: no [[profile]] table; a crowd needs at least one, e.g. "
                          "[[profile]] with name = \"diligent\" and count = 30 (config/crowds/vizwiz_demo.toml)")
    for prof in profiles:
        for key, value in prof.items():
            if key not in PROFILE_KEYS:
                raise _unknown(path, f"in [[profile]] {prof.get('name', '?')!r}", key, PROFILE_KEYS)
            if key in PARAMETER_RANGES:
                _check_parameter(path, str(prof.get("name", "?")), key, value)
            if key in PROFILE_WORDS and value not in PROFILE_WORDS[key]:
                raise ConfigError(f"crowd file {path}: profile {prof.get('name', '?')!r} {key} must be one of "
                                  f"{', '.join(PROFILE_WORDS[key])} (got {str(value)[:40]!r}); fix the crowd file")


def _check_parameter(path: Path, name: str, key: str, value: Any) -> None:
    low, high, whole = PARAMETER_RANGES[key]
    is_number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not is_number or not low <= value <= high or (whole and value != int(value)):
        kind = "a whole number" if whole else "a number"
        raise ConfigError(f"crowd file {path}: profile {name!r} {key} must be {kind} in [{low:g}, {high:g}] "
                          f"(got {value!r}); fix the crowd file")
