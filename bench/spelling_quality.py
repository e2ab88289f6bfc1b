"""``make bench-spelling-quality``: how often spell-correction restores a planted typo, beside symspellpy
on the same dictionary, and what it does to real VizWiz captions.

1. **Planted typos with known originals.** Real captions from the demo bank
   (config/items/vizwiz_demo_captions.csv), each with one to three typos (delete, insert, substitute,
   swap) in dictionary words of four letters or more, a second typo in some words of eight letters
   or more; each caption from one of 1,600 workers. A typo is restored when the corrected word is
   the original. hitflow's ``spellcheck_frame`` (campaign vocabulary on, as a run uses it) beside
   symspellpy 6's ``lookup(..., Verbosity.TOP, max_edit_distance=2)`` over pyspellchecker's word
   counts, each unknown word looked up once; and symspellpy again leaving hitflow's campaign words
   (three workers, without the shared typos) alone, as hitflow does. Also counted: untouched words each one changed.
   The same on the real VizWiz val captions (../shared/data, when present), each caption once with
   its own typos: their words are far more varied than the demo bank's 2,452 captions, whose
   repetition makes a campaign's own word counts (which hitflow's choice uses) unusually telling.
2. **Common misspellings at 200,000 captions.** The 200,000 varied captions of bench/spelling_speed.py
   with "the"/"and" typed as "teh", "hte", "adn" in 2% of captions each, by many workers: how many
   of these stay after correction.
3. **No accented rewrite.** Every plain (ASCII) word that is an accented dictionary word without
   its accents, and every ASCII token of the real captions: how many come back accented.
4. **Real VizWiz captions** (../shared/data, when present): a fixed random sample of the edits (the
   file names no workers, so each caption counts as a worker of its own).
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from pathlib import Path
from typing import Any

import pandas as pd
from spellchecker import SpellChecker

from bench.spelling_speed import VIZWIZ, _typo, varied_captions
from flows.core.outputs.spelling_cache import spelling_index
from postprocess.spellcheck import campaign_vocabulary, spellcheck_frame

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results-spelling.json"
WORD = re.compile(r"^([^\w]*)([A-Za-z]+)([^\w]*)$")
COMMON = {"teh": "the", "hte": "the", "adn": "and"}


def planted(n: int, seed: int = 11, texts: list[str] | None = None) -> tuple[pd.DataFrame, list[tuple[int, int, str]]]:
    """``n`` captions with typos, and (caption, word position, original lower-case word) per typo:
    drawn from the demo bank, or ``texts`` each once in order (``n`` of them)."""
    if texts is None:
        bank = pd.read_csv(ROOT / "config" / "items" / "vizwiz_demo_captions.csv", dtype=str, keep_default_na=False)
        pool, drawn = [t for t in bank["caption"] if not t.isupper()], True
    else:
        pool, drawn = texts, False
    known = SpellChecker(distance=1).word_frequency.dictionary
    rng = random.Random(seed)
    captions, truth = [], []
    for k in range(n):
        words = (rng.choice(pool) if drawn else pool[k]).split(" ")
        spots = [i for i, w in enumerate(words) if (m := WORD.match(w)) and len(m.group(2)) >= 4
                 and m.group(2).lower() in known and not m.group(2)[0].isupper()]
        for i in rng.sample(spots, min(len(spots), rng.choice((1, 2, 3)))):
            lead, word, trail = WORD.match(words[i]).groups()  # type: ignore[union-attr]
            typo = _typo(word, rng)
            if len(word) >= 8 and rng.random() < 0.3:
                typo = _typo(typo, rng)
            if typo.lower() in known:
                continue  # a real word: no corrector can tell
            words[i] = lead + typo + trail
            truth.append((k, i, word.lower()))
        captions.append(" ".join(words))
    return pd.DataFrame({"caption": captions, "worker_id": [f"W{rng.randrange(1600)}" for _ in range(n)]}), truth


def symspell_corrector(keep: frozenset[str] = frozenset()) -> Any:
    """symspellpy's top suggestion within two edits for each unknown word not in ``keep``."""
    from symspellpy import SymSpell, Verbosity

    sym = SymSpell(max_dictionary_edit_distance=2, prefix_length=30)
    for word, count in SpellChecker(distance=1).word_frequency.dictionary.items():
        sym.create_dictionary_entry(word, count)
    known = SpellChecker(distance=1).word_frequency.dictionary

    def fix(caption: str) -> str:
        out = []
        for w in caption.split(" "):
            m = WORD.match(w)
            if not m or m.group(2).lower() in known or m.group(2).lower() in keep or m.group(2).isupper():
                out.append(w)
                continue
            found = sym.lookup(m.group(2).lower(), Verbosity.TOP, max_edit_distance=2)
            out.append(m.group(1) + found[0].term + m.group(3) if found else w)
        return " ".join(out)

    return fix


def scored(fixed: list[str], typed: list[str], truth: list[tuple[int, int, str]]) -> dict[str, Any]:
    planted_at = {(k, i) for k, i, _ in truth}
    restored = sum(_bare(fixed[k].split(" ")[i]) == word for k, i, word in truth)
    spoiled = sum(_bare(a) != _bare(b) for k, (f, t) in enumerate(zip(fixed, typed, strict=True))
                  for i, (a, b) in enumerate(zip(f.split(" "), t.split(" "), strict=True)) if (k, i) not in planted_at)
    return {"typos": len(truth), "restored": restored, "restored_share": round(restored / len(truth), 4),
            "clean_words_changed": spoiled}


def _bare(word: str) -> str:
    m = WORD.match(word)
    return m.group(2).lower() if m else word.lower()


def bench_planted(n: int = 20_000, texts: list[str] | None = None) -> dict[str, Any]:
    frame, truth = planted(n, texts=texts)
    typed = frame["caption"].tolist()
    start = time.perf_counter()
    ours = spellcheck_frame(frame, index=spelling_index())["caption_corrected"].tolist()
    ours_s = time.perf_counter() - start
    fix = symspell_corrector()
    start = time.perf_counter()
    theirs = [fix(c) for c in typed]
    theirs_s = time.perf_counter() - start
    fix_kept = symspell_corrector(frozenset(campaign_vocabulary(frame, 3, spelling_index())[0]))
    return {"captions": n, "hitflow": {**scored(ours, typed, truth), "seconds": round(ours_s, 2)},
            "symspellpy": {**scored(theirs, typed, truth), "seconds": round(theirs_s, 2)},
            "symspellpy_with_hitflows_campaign_words": scored([fix_kept(c) for c in typed], typed, truth)}


def bench_common(n: int = 200_000, share: float = 0.02, seed: int = 5) -> dict[str, Any]:
    frame = varied_captions(n)
    rng = random.Random(seed)
    captions = frame["caption"].tolist()
    planted_count = dict.fromkeys(COMMON, 0)
    for k in range(n):
        for typo, word in COMMON.items():
            if rng.random() < share and f" {word} " in captions[k]:
                captions[k] = captions[k].replace(f" {word} ", f" {typo} ", 1)
                planted_count[typo] += 1
    frame["caption"] = captions
    fixed = spellcheck_frame(frame, index=spelling_index())["caption_corrected"]
    left = {typo: int(fixed.str.count(rf"\b{typo}\b").sum()) for typo in COMMON}
    return {"captions": n, "planted": planted_count, "left_uncorrected": left}


def bench_accents() -> dict[str, Any]:
    index = spelling_index()
    plain = sorted(index.folded)
    rewritten = {t: w for t, w in index.corrections(plain).items() if not w.isascii()}
    return {"plain_forms_of_accented_words": len(plain), "rewritten_to_accented": len(rewritten),
            "examples": dict(list(rewritten.items())[:10])}


def vizwiz_captions() -> list[str]:
    return [a["caption"] for a in json.loads(VIZWIZ.read_text())["annotations"]] if VIZWIZ.exists() else []


def bench_planted_vizwiz() -> dict[str, Any]:
    """Part 1 on the real VizWiz val captions, each once: words far more varied than the demo bank's."""
    texts = vizwiz_captions()
    return bench_planted(len(texts), texts) if texts else {"skipped": f"{VIZWIZ} is absent"}


def bench_vizwiz(sample: int = 40, seed: int = 3) -> dict[str, Any]:
    if not VIZWIZ.exists():
        return {"skipped": f"{VIZWIZ} is absent"}
    notes = json.loads(VIZWIZ.read_text())["annotations"]
    # the file names no workers: each caption counts as its own, so a word in 3 captions is vocabulary
    frame = pd.DataFrame({"caption": [a["caption"] for a in notes], "worker_id": [str(a["id"]) for a in notes]})
    out = spellcheck_frame(frame, index=spelling_index())
    edits = [e for cell in out["edits"] if cell for e in cell.split("; ")]
    accented = [e for e in edits if e.split("->")[0].isascii() and not e.split("->")[1].isascii()]
    return {"captions": len(frame), "captions_changed": int((out["edits"] != "").sum()), "edits": len(edits),
            "ascii_to_accented": accented, "sample": random.Random(seed).sample(edits, min(sample, len(edits)))}


def main() -> None:
    load = round(os.getloadavg()[0], 2)
    results = {"load_avg_1m_start": load, "planted_20k": bench_planted(),
               "planted_vizwiz_val": bench_planted_vizwiz(), "common_200k": bench_common(),
               "accents": bench_accents(), "vizwiz_val": bench_vizwiz()}
    results["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
