"""Spelling at scale (part of ``make bench``): 200,000 varied captions, each with its own typos.

The captions are the demo bank's real VizWiz captions (config/items/vizwiz_demo_captions.csv)
with six or seven random single-letter typos (delete, insert, substitute, swap) in words of four
letters or more (every such word when a caption has fewer), so that 200,000 captions hold about
200,000 distinct misspellings (204,318 with seed 7; two or three typos gave 130,305). The new path
is ``spellcheck_frame`` with the index loaded from the disk cache (the load is timed too). The
baseline is the corrector hitflow had before the index (pyspellchecker's own lookup, kept here
only as the baseline): at 10-50 ms per unknown word it would need hours for 200,000, so it is
timed on a sample of the same captions in the same run and scaled by the share of unique unknown words it saw.
Wall and CPU seconds are both reported: on a shared machine the wall ratio depends on what the
neighbours did during each part, the CPU ratio much less.
Both correctors' choices are compared on that sample and on every unknown word of the real
VizWiz validation captions in ../shared/data (when present).
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd
from spellchecker import SpellChecker

from flows.core.outputs.spelling_cache import spelling_index
from postprocess.spell_index import SHORT_TOKEN, SpellIndex
from postprocess.spellcheck import LONGEST_WORD, _lookup_tokens, spellcheck_frame

ROOT = Path(__file__).resolve().parents[1]
VIZWIZ = ROOT.parent / "shared" / "data" / "vizwiz-captions-v1-val" / "VizWiz_Captions_v1_val_updated.json"
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def old_corrector(language: str = "en") -> Callable[[str], str | None]:
    """hitflow's corrector before the index: pyspellchecker at distance 1, then 2 for short words."""
    near, far = SpellChecker(language=language, distance=1), SpellChecker(language=language, distance=2)

    @lru_cache(maxsize=100_000)
    def correct(lower: str) -> str | None:
        if len(lower) > LONGEST_WORD or not near.unknown([lower]):
            return None
        best = near.correction(lower)
        if (best is None or best == lower) and len(lower) <= SHORT_TOKEN:
            best = far.correction(lower)
        return best if best and best != lower else None

    return correct


def _typo(word: str, rng: random.Random) -> str:
    i, op = rng.randrange(len(word)), rng.randrange(4)
    if op == 0:
        return word[:i] + word[i + 1:]
    if op == 1:
        return word[:i] + rng.choice(LETTERS) + word[i:]
    if op == 2:
        return word[:i] + rng.choice(LETTERS) + word[i + 1:]
    i = min(i, len(word) - 2)
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def varied_captions(n: int, seed: int = 7) -> pd.DataFrame:
    bank = pd.read_csv(ROOT / "config" / "items" / "vizwiz_demo_captions.csv", dtype=str, keep_default_na=False)
    texts = bank["caption"].tolist()
    rng = random.Random(seed)
    captions = []
    for _ in range(n):
        words = rng.choice(texts).split(" ")
        spots = [i for i, w in enumerate(words) if len(w) >= 4 and w.isalpha()]
        for i in rng.sample(spots, min(len(spots), rng.choice((6, 7)))):
            words[i] = _typo(words[i], rng)
        captions.append(" ".join(words))
    return pd.DataFrame({"caption": captions, "worker_id": [f"W{i % 1600}" for i in range(n)]})


def compare(tokens: list[str], index: SpellIndex, old: Callable[[str], str | None]) -> dict[str, Any]:
    """Both correctors over the same unknown words: how many choices differ, and how many of those
    are ties (two words of the same frequency, where pyspellchecker's pick follows string hashing)."""
    unknown = [t for t in tokens if t not in index and len(t) <= LONGEST_WORD]
    new = index.corrections(unknown)
    frequency = {w: n for w, n in SpellChecker(distance=1).word_frequency.dictionary.items()}
    start, cpu_start = time.perf_counter(), time.process_time()
    differ = [(t, old(t), new.get(t)) for t in unknown if old(t) != new.get(t)]
    old_s, old_cpu = time.perf_counter() - start, time.process_time() - cpu_start
    ties = [d for d in differ if d[1] and d[2] and frequency[d[1]] == frequency[d[2]]]
    return {"unknown_words": len(unknown), "differ": len(differ), "differ_ties": len(ties),
            "differ_not_ties": [list(d) for d in differ if d not in ties][:10], "old_s": round(old_s, 2),
            "old_cpu_s": round(old_cpu, 2)}


def bench_spelling_200k(n: int = 200_000, sample: int = 300) -> dict[str, Any]:
    frame = varied_captions(n)
    load_before = os.getloadavg()[0]
    start, cpu_start = time.perf_counter(), time.process_time()
    index = spelling_index()
    loaded = time.perf_counter() - start
    out = spellcheck_frame(frame, index=index)
    new_s, new_cpu = time.perf_counter() - start, time.process_time() - cpu_start
    unknown = [t for t in _lookup_tokens(frame["caption"].tolist(), set()) if t not in index]
    part = frame.head(sample)
    part_unknown = [t for t in _lookup_tokens(part["caption"].tolist(), set()) if t not in index]
    side = compare(part_unknown, index, old_corrector())
    scale = len(unknown) / max(1, len(part_unknown))
    old_estimate, old_cpu_estimate = side["old_s"] * scale, side["old_cpu_s"] * scale
    return {"captions": n, "unique_unknown_words": len(unknown), "load_average_1min": round(load_before, 2),
            "index_load_s": round(loaded, 2), "spell_s": round(new_s, 2), "spell_cpu_s": round(new_cpu, 2),
            "captions_changed": int((out["edits"] != "").sum()),
            "baseline_sample_captions": sample, "baseline_sample": side,
            "baseline_estimate_s": round(old_estimate, 1), "speedup_vs_baseline": round(old_estimate / new_s, 1),
            "baseline_estimate_cpu_s": round(old_cpu_estimate, 1),
            "speedup_vs_baseline_cpu": round(old_cpu_estimate / new_cpu, 1)}


def compare_on_vizwiz(limit: int | None = None) -> dict[str, Any]:
    """Every unknown word of the real VizWiz validation captions through both correctors."""
    if not VIZWIZ.exists():
        return {"skipped": f"{VIZWIZ} is absent"}
    captions = [a["caption"] for a in json.loads(VIZWIZ.read_text())["annotations"]]
    tokens = sorted(_lookup_tokens(captions, set()))[:limit]
    return {"captions": len(captions), **compare(tokens, spelling_index(), old_corrector())}


if __name__ == "__main__":
    print(json.dumps({"spelling_200k": bench_spelling_200k(), "vizwiz_val": compare_on_vizwiz()}, indent=2))
