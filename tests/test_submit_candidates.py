"""The Arrow masks of qc/submit_candidates.py hold every caption its submit check refuses (a mask may
hold more, never fewer), so the caption rules, which run the check on the masked captions only, flag
exactly what a call per caption flags."""

from __future__ import annotations

import random

import pandas as pd
import pyarrow as pa
import pytest

from qc.caption_rules import submit_rule
from qc.submit_candidates import CANDIDATES
from qc.submit_rules import CHECKS, SPACE, SubmitRules

PIECES = ["a", "B", "x y", "It's", "it\u2019s", "IT\u2018S", "There is", "THERE ARE", "the image", "this", ".", "!",
          "?", "..", "1", "_", "é", "É", "画像", "😀", "ſ", "K", "\r\n", "-", "'", '"', "The imagery"]


def texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES + list(SPACE)) for _ in range(rng.randrange(0, 9))) for _ in range(n)]


SPECS = [SubmitRules(), SubmitRules(max_chars=12), SubmitRules(banned_prefixes=("Ça", "The")),
         SubmitRules(banned_prefixes=("x y", "It's", "a.b")), SubmitRules(banned_prefixes=())]


@pytest.mark.parametrize("rules", SPECS)
def test_masks_hold_every_refused_caption(rules: SubmitRules) -> None:
    captions = [*texts(3000, seed=len(rules.banned_prefixes)), "", " ", "\ufeff", "\u200b", "A. b", "a.\u3000b"]
    column = pa.array(captions, pa.large_string())
    for name, make in CANDIDATES.items():
        if not CHECKS[name].applies(rules) or (find := make(rules)) is None:
            continue
        mask, check = find(column), CHECKS[name].bind(rules)
        refused = [t for t in captions if check(t) is not None]
        assert refused, f"{name}: the generated captions must break the check somewhere"
        assert [t for t, m in zip(captions, mask, strict=True) if check(t) is not None and not m] == []


@pytest.mark.parametrize("rules", SPECS)
def test_rules_flag_what_a_check_per_caption_flags(rules: SubmitRules) -> None:
    captions = texts(2000, seed=7)
    df = pd.DataFrame({"assignment_id": [f"A{k}" for k in range(len(captions))], "worker_id": "W", "image_id": "I",
                       "caption": captions, "is_precanned": False}, index=range(5, 5 + len(captions)))
    for c in CHECKS.values():
        if not c.applies(rules):
            continue
        check = c.bind(rules)
        want = [(f"A{k}", *map(str, hit)) for k, t in enumerate(captions) if (hit := check(t)) is not None]
        got = submit_rule(c)(df, {"submit_rules": rules})
        assert list(zip(got["assignment_id"], got["value"].map(str), got["threshold"].map(str), strict=True)) == want
