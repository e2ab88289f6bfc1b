"""Spell-correction of accepted captions with pyspellchecker.

Input columns: ``caption`` (str) and, optionally, ``worker_id`` and ``is_precanned`` (bool).
Output: the same frame plus ``caption_corrected`` and ``edits`` (``"teh->the; ..."``).
``caption_corrected`` has a space for each control character (C0 but tab and newlines, DEL,
U+FFFE/U+FFFF, a lone surrogate): text pasted from elsewhere can carry them unseen; the
``caption`` column keeps them as typed.

Each unknown token is replaced by its most probable candidate, keeping case and
punctuation. Tokens are never changed when they contain a digit, are capitalised mid-sentence
(brands such as Dell or Duracell), are all capitals (TV), or are words that at least
``min_workers`` distinct workers used in the campaign. Corrections are cached per token.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

import pandas as pd
from spellchecker import SpellChecker

_TOKEN = re.compile(r"[^\W_][\w'’]*")  # Unicode-aware: "entrée" is one token
_SENTENCE_END = re.compile(r"[.!?]\s*$")
CONTROL_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")


# Edit distance 2 costs up to a second per long token; it is tried only for short tokens
# that have no candidate at distance 1.
SHORT_TOKEN = 6
LONGEST_WORD = 30


@lru_cache(maxsize=8)
def _checker(language: str, distance: int) -> SpellChecker:
    return SpellChecker(language=language, distance=distance)


def campaign_words(df: pd.DataFrame, min_workers: int) -> set[str]:
    """Lower-cased words that at least ``min_workers`` distinct workers wrote."""
    if "worker_id" not in df.columns or df.empty:
        return set()
    pairs = {(tok.lower(), w) for w, cap in zip(df["worker_id"], df["caption"].fillna(""), strict=True)
             for tok in _TOKEN.findall(str(cap))}
    counts: dict[str, int] = {}
    for tok, _ in pairs:
        counts[tok] = counts.get(tok, 0) + 1
    return {tok for tok, n in counts.items() if n >= min_workers}


def _protected(token: str, sentence_start: bool) -> bool:
    if any(c.isdigit() or not c.isascii() for c in token) or (len(token) > 1 and token.isupper()):
        return True
    return token[0].isupper() and not sentence_start


def _starts_sentence(gap: str, first: bool) -> bool:
    """Whether a token opens a sentence, from the text between it and the previous token only
    (looking at the whole prefix for every token made long captions quadratic)."""
    before = gap.rstrip()
    return bool(_SENTENCE_END.search(before)) if before else first


def _match_case(original: str, fixed: str) -> str:
    return fixed[0].upper() + fixed[1:] if original[0].isupper() else fixed


def make_corrector(language: str = "en") -> Callable[[str], str | None]:
    """Lower-case token -> its most probable correction, or None; cached per token."""
    near, far = _checker(language, 1), _checker(language, 2)

    @lru_cache(maxsize=100_000)
    def correct(lower: str) -> str | None:
        # Candidates grow with the token's length times the alphabet; no real word is this long.
        if len(lower) > LONGEST_WORD or not near.unknown([lower]):
            return None
        best = near.correction(lower)
        if (best is None or best == lower) and len(lower) <= SHORT_TOKEN:
            best = far.correction(lower)
        return best if best and best != lower else None

    return correct


def correct_caption(text: str, keep: set[str], correct: Callable[[str], str | None]) -> tuple[str, list[str]]:
    out, edits, last = [], [], 0
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        fixed = None
        opens = _starts_sentence(text[last:m.start()], first=last == 0)
        if token.lower() not in keep and not _protected(token, opens):
            fixed = correct(token.lower().replace("’", "'"))
        out.append(text[last:m.start()])
        if fixed:
            new = _match_case(token, fixed)
            out.append(new)
            edits.append(f"{token}->{new}")
        else:
            out.append(token)
        last = m.end()
    out.append(text[last:])
    return "".join(out), edits


def spellcheck_frame(df: pd.DataFrame, min_workers: int = 3, language: str = "en") -> pd.DataFrame:
    keep = campaign_words(df, min_workers)
    correct = make_corrector(language)
    canned = df["is_precanned"].astype(bool) if "is_precanned" in df.columns else pd.Series(False, index=df.index)
    fixed, edits = [], []
    for typed, is_canned in zip(df["caption"].fillna("").astype(str), canned, strict=True):
        caption = CONTROL_CHARS.sub(" ", typed)
        if is_canned:
            fixed.append(caption)
            edits.append("")
            continue
        new, changes = correct_caption(caption, keep, correct)
        fixed.append(new)
        edits.append("; ".join(changes))
    out = df.copy()
    out["caption_corrected"], out["edits"] = fixed, edits
    return out


def spelling_stats(df: pd.DataFrame) -> dict[str, int | float]:
    """Counts for the report: captions checked, captions changed, tokens changed. Input: the
    ``edits`` column of :func:`spellcheck_frame` (any dtype; empty or NaN = unchanged); an empty
    frame gives zeros."""
    changed = df["edits"].fillna("") != ""
    tokens = int(df["edits"].fillna("").map(lambda e: len(e.split("; ")) if e else 0).astype(int).sum())
    return {"captions": len(df), "captions_changed": int(changed.sum()),
            "share_changed": round(float(changed.mean()) if len(df) else 0.0, 4), "tokens_changed": tokens}
