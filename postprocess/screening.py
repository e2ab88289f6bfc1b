"""Participant screening: who is kept for analysis, and why the others are not.
``session_exclusions``: ``participant_id, minutes, slider_zero``, optionally ``passed_qualification,
continued`` (Kreiss et al. 2022: a whole session over ``min_minutes`` and no rating left at zero).
``demographic_exclusions``: ``participant_id`` plus the fields the rules name (seed 004)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

TRUE_WORDS, FALSE_WORDS = {"1", "true", "yes", "y", "t"}, {"0", "false", "no", "n", "f", ""}


def yes_no(column: pd.Series, name: str) -> pd.Series:
    """A yes/no column as booleans: real booleans, or text as a CSV holds it ("0" is no)."""
    if column.dtype == bool:
        return column
    words = column.fillna("").astype(str).str.strip().str.lower()
    unknown = words[~words.isin(TRUE_WORDS | FALSE_WORDS)]
    if len(unknown):
        raise ValueError(f"column {name} must hold yes/no values (1/0, true/false), not {unknown.iloc[0][:40]!r}")
    return words.isin(TRUE_WORDS)


def session_exclusions(people: pd.DataFrame, min_minutes: float = 18.0) -> dict[str, Any]:
    """Counts at each stage and the participants excluded, with their reasons."""
    passed = people[yes_no(people["passed_qualification"], "passed_qualification")] \
        if "passed_qualification" in people else people
    continued = passed[yes_no(passed["continued"], "continued")] if "continued" in passed else passed
    minutes = pd.to_numeric(continued["minutes"], errors="coerce")
    if minutes.isna().any():
        bad = continued["minutes"][minutes.isna()].iloc[0]
        raise ValueError(f"column minutes must hold numbers (session lengths), not {str(bad)[:40]!r}")
    too_fast = minutes <= min_minutes
    zero = yes_no(continued["slider_zero"], "slider_zero")
    reasons = [", ".join(r for r, hit in (("session too short", f), ("slider left at 0", z)) if hit)
               for f, z in zip(too_fast, zero, strict=True)]
    excluded = [{"participant_id": p, "reason": r} for p, r in zip(continued["participant_id"], reasons, strict=True)
                if r]
    return {"participants": len(people), "passed_qualification": len(passed), "continued": len(continued),
            "kept": int((~too_fast & ~zero).sum()), "excluded": excluded,
            "rule": f"kept when minutes > {min_minutes:g} and no slider rating is 0"}


@dataclass(frozen=True)
class ScreenRules:
    """Who a demographic screen excludes (``[screen]`` in a severity study's config)."""

    exclude_colour_blind: bool = True
    exclude_proficiency: tuple[str, ...] = ("beginner",)
    min_age: int = 18
    fields: tuple[str, ...] = field(default=("age", "gender", "education", "proficiency", "colour_blind"))


def demographic_exclusions(people: pd.DataFrame, rules: ScreenRules) -> pd.DataFrame:
    """``participant_id, reason`` for everyone the screen excludes (missing answers included)."""
    rows = []
    for p in people.to_dict("records"):
        why = [f"no answer for {f}" for f in rules.fields if str(p.get(f, "") or "").strip() == ""]
        if rules.exclude_colour_blind and str(p.get("colour_blind", "")).lower() == "yes":
            why.append("colour-blind")
        if str(p.get("proficiency", "")).lower() in rules.exclude_proficiency:
            why.append(f"proficiency {p.get('proficiency')}")
        age = pd.to_numeric(pd.Series([p.get("age")]), errors="coerce").iloc[0]
        if age == age and age < rules.min_age:
            why.append(f"younger than {rules.min_age}")
        if why:
            rows.append({"participant_id": str(p["participant_id"]), "reason": "; ".join(why)})
    return pd.DataFrame(rows, columns=["participant_id", "reason"])
