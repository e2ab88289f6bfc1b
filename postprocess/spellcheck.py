"""Spell-correction of accepted captions (docs/spelling.md).
Input columns: ``caption`` (str) and, optionally, ``worker_id`` and ``is_precanned`` (bool).
Output: the same frame plus ``caption_corrected`` and ``edits`` (``"teh->the; ..."``).
``caption_corrected`` has a space for each control character (C0 but tab and newlines, DEL,
U+FFFE/U+FFFF, a lone surrogate); ``caption`` keeps them as typed."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Container, Mapping
from functools import lru_cache

import pandas as pd
from spellchecker import SpellChecker

from postprocess.spell_campaign import (
    TYPO_RATIO,
    campaign_lift,
    far_more_used,
    has_inner_capital,
    is_compound,
    likely_word,
    long_word_corrections,
)
from postprocess.spell_index import SpellIndex, one_edit

_TOKEN = re.compile(r"[^\W_][\w'’]*")  # Unicode-aware: "entrée" is one token
_SENTENCE_END = re.compile(r"[.!?]\s*$")
CONTROL_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")


LONGEST_WORD = 30  # no real word is longer; longer tokens are left as typed
# An unknown two-letter token is an abbreviation or unit far more often than a typo: left as typed.
SHORTEST_WORD = 2
SENTENCE_WORD_SHARE = 1e-4  # the list's commonest words, about 500 ("the", "this", "there", "open")


@lru_cache(maxsize=4)
def default_index(language: str = "en") -> SpellIndex:
    """The index over pyspellchecker's list for ``language``, built in memory."""
    return SpellIndex.build(SpellChecker(language=language, distance=1).word_frequency.dictionary)


def campaign_vocabulary(df: pd.DataFrame, min_workers: int,
                        index: SpellIndex | None = None) -> tuple[set[str], Counter[str]]:
    """Lower-cased words ``min_workers``+ distinct workers wrote (less shared typos when ``index`` is given), and
    how often each lower-cased token is used."""
    uses: Counter[str] = Counter()
    if "worker_id" not in df.columns or df.empty:
        for cap in df["caption"].fillna("") if "caption" in df.columns else []:
            uses.update(_lower_tokens(str(cap)))
        return set(), uses
    seen = add_word_workers({}, df, min_workers, uses)
    return words_of(seen, min_workers, uses, index), uses


def add_word_workers(seen: dict[str, set[str]], df: pd.DataFrame, min_workers: int,
                     uses: Counter[str] | None = None) -> dict[str, set[str]]:
    """Add a part of the captions to ``seen`` (word -> at most ``min_workers`` workers) and ``uses``."""
    if "worker_id" not in df.columns or df.empty:
        return seen
    for worker, cap in zip(df["worker_id"], df["caption"].fillna(""), strict=True):
        tokens = _lower_tokens(str(cap))
        if uses is not None:
            uses.update(tokens)
        for tok in tokens:
            workers = seen.setdefault(tok, set())
            if len(workers) < min_workers:
                workers.add(worker)
    return seen


def words_of(seen: dict[str, set[str]], min_workers: int, uses: Counter[str] | None = None,
             index: SpellIndex | None = None) -> set[str]:
    """The words ``min_workers``+ workers wrote; with ``uses`` and ``index``, less unknown ones whose one-edit
    correction the campaign uses ``TYPO_RATIO`` times as often (a typo shared)."""
    keep = {tok for tok, workers in seen.items() if len(workers) >= min_workers}
    if uses is None or index is None:
        return keep
    near = index.corrections([w for w in keep if w not in index], far_upto=0, lift=campaign_lift(uses, index))
    return {w for w in keep if w not in near or uses[near[w]] < TYPO_RATIO * uses[w]}


def _lower_tokens(text: str) -> list[str]:
    """The text's tokens in lower case (one lower() for an ASCII text)."""
    return _TOKEN.findall(text.lower()) if text.isascii() else [t.lower() for t in _TOKEN.findall(text)]


def _protected(token: str, sentence_start: bool) -> bool:
    if any(c.isdigit() or not c.isascii() for c in token) or (len(token) > 1 and token.isupper()):
        return True
    if not token[1:].islower() and has_inner_capital(token):  # "iPods", "eBay": a maker's spelling
        return True
    return token[0].isupper() and not sentence_start


def _starts_sentence(gap: str, first: bool) -> bool:
    """Whether a token opens a sentence, from the text since the previous token only."""
    before = gap.rstrip()
    return bool(_SENTENCE_END.search(before)) if before else first


def campaign_corrections(index: SpellIndex, lowers: list[str], uses: Mapping[str, int]) -> dict[str, str]:
    """Unknown token -> correction, the campaign's words lifted; compounds kept as typed."""
    unknown = [t for t in lowers if SHORTEST_WORD < len(t) <= LONGEST_WORD and t not in index]
    found = index.corrections(unknown, lift=campaign_lift(uses, index))
    found = {t: w for t, w in found.items() if likely_word(w, uses, index)
             and (not is_compound(t, index) or (one_edit(t, w) and far_more_used(w, t, uses)))}
    found.update(long_word_corrections([t for t in unknown if t not in found], uses, index))
    return found


def _lookup_tokens(captions: list[str], keep: set[str]) -> list[str]:
    """Every lower-cased token the captions could ask the corrector about, once."""
    tokens = {tok.replace("’", "'") for cap in captions for tok in _lower_tokens(cap)}
    return [t for t in tokens if t not in keep]


def correct_caption(text: str, keep: set[str], correct: Callable[[str], str | None],
                    capitals: Container[str] | None = None) -> tuple[str, list[str]]:
    """The caption with each correctable token replaced, and the edits (``capitals``: trusted at a start)."""
    out, edits, copied, previous_end = [], [], 0, 0
    for m in _TOKEN.finditer(text):
        token, start = m.group(0), m.start()
        lower = token.lower()
        fixed = None if lower in keep else correct(lower.replace("’", "'"))
        opens = fixed is not None and _starts_sentence(text[previous_end:start], first=previous_end == 0)
        previous_end = m.end()
        hyphenated = text[m.end():m.end() + 1] == "-" or (start > 0 and text[start - 1] == "-")  # "pre-made"
        if fixed is None or _protected(token, opens) or hyphenated:
            continue
        if capitals is not None and token[0].isupper() and lower not in capitals:
            continue
        new = fixed[0].upper() + fixed[1:] if token[0].isupper() else fixed  # the token's case kept
        out += [text[copied:start], new]
        edits.append(f"{token}->{new}")
        copied = m.end()
    out.append(text[copied:])
    return "".join(out), edits


def spellcheck_frame(df: pd.DataFrame, min_workers: int = 3, language: str = "en",
                     index: SpellIndex | None = None, keep: set[str] | None = None,
                     uses: Mapping[str, int] | None = None) -> pd.DataFrame:
    """Unknown words looked up in one batch, then each caption corrected; ``keep``, ``uses``: the campaign's."""
    words = index or default_index(language)
    if keep is None or uses is None:
        own_keep, own_uses = campaign_vocabulary(df, min_workers, words)
        keep, uses = (own_keep if keep is None else keep), (own_uses if uses is None else uses)
    canned = df["is_precanned"].astype(bool) if "is_precanned" in df.columns else pd.Series(False, index=df.index)
    captions = [CONTROL_CHARS.sub(" ", typed) for typed in df["caption"].fillna("").astype(str)]
    lookups = _lookup_tokens([c for c, k in zip(captions, canned, strict=True) if not k], keep)
    found = campaign_corrections(words, lookups, uses)
    # A capitalised unknown first word is more often a name: corrected only toward a very common word.
    capitals = {t for t, w in found.items() if words.share(w) >= SENTENCE_WORD_SHARE or far_more_used(w, t, uses)}
    fixed, edits = [], []
    for caption, is_canned in zip(captions, canned, strict=True):
        if is_canned or (caption.isascii() and found.keys().isdisjoint(_lower_tokens(caption))):
            fixed.append(caption)  # canned, or nothing to correct: the common case, without the token walk
            edits.append("")
            continue
        new, changes = correct_caption(caption, keep, found.get, capitals)
        fixed.append(new)
        edits.append("; ".join(changes))
    out = df.copy()
    out["caption_corrected"], out["edits"] = fixed, edits
    return out


def spelling_stats(df: pd.DataFrame) -> dict[str, int | float]:
    """Captions checked, changed, and tokens changed, from the ``edits`` column (empty or NaN: unchanged)."""
    edits = [e for e in df["edits"].tolist() if isinstance(e, str) and e]  # over a list: a batch's is small
    return {"captions": len(df), "captions_changed": len(edits), "share_changed": round(len(edits) / len(df) if len(df)
            else 0.0, 4), "tokens_changed": sum(len(e.split("; ")) for e in edits)}


def joined_spelling_stats(parts: list[dict[str, int | float]]) -> dict[str, int | float]:
    """:func:`spelling_stats` of parts of the captions (e.g. one batch each), as of them all."""
    captions = sum(int(p["captions"]) for p in parts)
    changed = sum(int(p["captions_changed"]) for p in parts)
    return {"captions": captions, "captions_changed": changed,
            "share_changed": round(changed / captions if captions else 0.0, 4),
            "tokens_changed": sum(int(p["tokens_changed"]) for p in parts)}
