"""QC as it was before the speed work (commit 36ff3fc), kept verbatim as an oracle.

Two readers of it: ``make bench`` times it beside today's QC in the same run (the baseline of
the "QC 200k" ratio), and tests/test_qc_same_flags.py needs today's flag table to equal its
table on real VizWiz captions. Only the functions the speed work replaced are copied here; the
rules it did not touch are taken from the live registry. Nothing in the product imports this.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from flows.core.errors import InputFormatError
from flows.core.inputs.csv_files import read_csv_table
from flows.platforms import submission_formats as formats
from qc.caption_rules import caption_flags, clip
from qc.echo_rules import MIN_LINE_WORDS, page_lines
from qc.flags import FLAG_COLUMNS, RULES, RuleFn, flag_frame
from qc.submit_rules import CANNED_TEXT, CHECKS, SubmitCheck, SubmitRules, is_canned
from qc.text_similarity import TermMatrix, foreign_vectors, words

REQUIRED_COLUMNS = ("assignment_id", "worker_id", "image_id", "caption")


# --- the reader (flows/platforms/submission_formats.py) ---------------------------------------

def read_submissions(path: Path) -> pd.DataFrame:
    table = read_csv_table(path, what="the submissions file", delimiter="auto")
    rows, header = table.rows, set(table.columns)
    if not rows:
        raise InputFormatError(f"{path}: has a header but no rows; nothing to check")
    if {"assignmentid", "Answer.IMG_CAPTION"} <= header:
        formats._require(path, header, formats.CLT_COLUMNS, "an MTurk .results file")
        return formats._from_clt(path, rows, table.lines)
    if "AssignmentId" in header and any(h.startswith("Answer.") for h in header):
        return formats._from_batch_csv(path, rows, table.lines)
    missing = [c for c in formats.PLAIN if c not in header]
    if missing:
        raise InputFormatError(f"{path}: missing column(s) {', '.join(missing)}; give {', '.join(formats.PLAIN)} "
                               "and work_time_s (or accept_time and submit_time), or an MTurk results file")
    return formats._from_plain(path, rows, table.lines)


# --- qc/runner.py -------------------------------------------------------------------------------

def prepare(df: pd.DataFrame, canned_text: str = CANNED_TEXT) -> pd.DataFrame:
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"missing column(s) {', '.join(missing)}; expected {', '.join(REQUIRED_COLUMNS)}")
    out = df.copy()
    out["caption"] = out["caption"].fillna("").astype(str)
    for col in ("assignment_id", "worker_id", "image_id"):
        out[col] = out[col].astype(str)
    if "is_precanned" not in out.columns:
        out["is_precanned"] = out["caption"].map(lambda c: is_canned(c, canned_text))
    out["is_precanned"] = out["is_precanned"].astype(bool)
    if "work_time_s" not in out.columns:
        out["work_time_s"] = float("nan")
    return out.reset_index(drop=True)


def run_rules(df: pd.DataFrame, params: dict[str, Any] | None, enabled: Iterable[str]) -> pd.DataFrame:
    params = params or {}
    rules: dict[str, RuleFn] = {name: r.fn for name, r in RULES.items()} | OLD_RULES
    frames = []
    for name in enabled:
        rule = rules.get(name)
        if rule is None:
            frames.append(flag_frame([{"worker_id": "", "rule": "rule_error", "value": name,
                                       "threshold": "", "detail": f"unknown rule {name!r}"}]))
            continue
        try:
            frames.append(rule(df, params))
        except (KeyError, ValueError, TypeError) as exc:
            frames.append(flag_frame([{"worker_id": "", "rule": "rule_error", "value": name,
                                       "threshold": "", "detail": f"{type(exc).__name__}: {exc}"}]))
    forget_batch()
    frames = [f for f in frames if not f.empty]
    if not frames:
        return flag_frame([])
    return pd.concat(frames, ignore_index=True)[FLAG_COLUMNS]


# --- qc/text_features.py, qc/char_counts.py ------------------------------------------------------

@lru_cache(maxsize=1)
def _squeezed_lower(texts: tuple[str, ...]) -> tuple[str, ...]:
    # format characters (Cf) dropped, as qc/invisible_text.py does since 2026-11-24: a rule change made on
    # purpose (copies told apart by a zero-width space were not duplicates), computed here from unicodedata
    return tuple(" ".join(_shown(t).split()).lower() for t in texts)


def _shown(text: str) -> str:
    return text if text.isascii() else "".join(c for c in text if unicodedata.category(c) != "Cf")


def squeezed_lower(texts: pd.Series) -> list[str]:
    return list(_squeezed_lower(tuple(texts.tolist())))


_BASIC = 0x10000


def upper_and_letters(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    if lengths.sum() == 0:
        return np.zeros(len(texts), dtype=np.int64), np.zeros(len(texts), dtype=np.int64)
    points = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    upper_table, alpha_table = _basic_plane()
    basic = np.minimum(points, _BASIC - 1)
    is_upper, is_alpha = upper_table[basic], alpha_table[basic]
    beyond = np.flatnonzero(points >= _BASIC)
    if len(beyond):
        chars = [chr(int(p)) for p in points[beyond]]
        is_upper[beyond] = [c.isupper() for c in chars]
        is_alpha[beyond] = [c.isalpha() for c in chars]
    starts = np.r_[0, np.cumsum(lengths)[:-1]]
    return _sums(is_upper, starts, lengths), _sums(is_alpha, starts, lengths)


@lru_cache(maxsize=1)
def _basic_plane() -> tuple[np.ndarray, np.ndarray]:
    chars = [chr(p) for p in range(_BASIC)]
    return np.array([c.isupper() for c in chars]), np.array([c.isalpha() for c in chars])


def _sums(flags: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    out = np.zeros(len(lengths), dtype=np.int64)
    filled = lengths > 0
    out[filled] = np.add.reduceat(flags.astype(np.int32), starts[filled])
    return out


# --- qc/worker_rules.py ---------------------------------------------------------------------------

def caps_lock(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    limit = float(params.get("caps_lock_share", 0.5))
    own = df.loc[~df["is_precanned"].astype(bool)]
    captions = own["caption"].fillna("").astype(str)
    upper, letters = upper_and_letters(captions.tolist())
    counts = pd.DataFrame({"worker_id": own["worker_id"], "upper": upper, "letters": letters})
    totals = counts.groupby("worker_id")[["upper", "letters"]].sum()
    rows = []
    for worker, r in totals.iterrows():
        if r["letters"] and r["upper"] / r["letters"] > limit:
            rows.append({"worker_id": worker, "rule": "caps_lock", "value": round(r["upper"] / r["letters"], 3),
                         "threshold": limit, "detail": f"{int(r['letters'])} letters"})
    return flag_frame(rows)


def duplicate_text(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    min_images = int(params.get("duplicate_min_images", 2))
    own = df.loc[~df["is_precanned"], ["worker_id", "image_id", "caption"]].copy()
    own["norm"] = squeezed_lower(own["caption"].fillna("").astype(str))
    own = own[(own["norm"] != "") & own.duplicated(["worker_id", "norm"], keep=False)]
    images = own.groupby(["worker_id", "norm"])["image_id"].nunique()
    rows = [
        {"worker_id": w, "rule": "duplicate_text", "value": int(n), "threshold": min_images,
         "detail": f"same caption on {int(n)} images: {norm[:100]}"}
        for (w, norm), n in images.items() if n >= min_images
    ]
    return flag_frame(rows)


# --- qc/caption_rules.py --------------------------------------------------------------------------

def _rules(params: dict[str, Any]) -> SubmitRules:
    rules = params.get("submit_rules")
    return rules if isinstance(rules, SubmitRules) else SubmitRules()


def submit_rule(c: SubmitCheck) -> RuleFn:
    def rule(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
        rules = _rules(params)
        if not c.applies(rules):
            return flag_frame([])
        texts, check = df["caption"].fillna("").astype(str), c.bind(rules)
        hits = [(i, *hit, clip(text)) for i, text in zip(texts.index, texts.tolist(), strict=True)
                if (hit := check(text)) is not None]
        return caption_flags(df, c.name, hits)

    return rule


QUALITY_WORDS = ("quality", "blur", "blurry", "blurred")


def quality_word_of(texts: pd.Series, words: Sequence[str]) -> pd.Series:
    if not words or texts.empty:
        return pd.Series([], dtype=object)
    search = _word_pattern(tuple(words)).search
    found = [(i, m.group(1).lower()) for i, text in zip(texts.index, texts.tolist(), strict=True)
             if (m := search(text))]
    return pd.Series(dict(found), dtype=object) if found else pd.Series([], dtype=object)


@lru_cache(maxsize=8)
def _word_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)


def quality_words(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    words = params.get("quality_words", QUALITY_WORDS)
    texts = df["caption"].fillna("").astype(str)[~df["is_precanned"].astype(bool)]
    found = quality_word_of(texts, words)
    hits = [(i, word, "|".join(words), clip(text))
            for i, word, text in zip(found.index, found.tolist(), texts[found.index].tolist(), strict=True)]
    return caption_flags(df, "quality_words", hits)


# --- qc/text_similarity.py ------------------------------------------------------------------------

_SEPARATOR = "qqhitflowsepqq"
_FINAL_PUNCTUATION = " .!?,;:…。！？．、"


def normalise_all(texts: pd.Series) -> pd.Series:
    return pd.Series([t.rstrip(_FINAL_PUNCTUATION) for t in squeezed_lower(texts)], index=texts.index, dtype=object)


def _token_codes(texts: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    joined = f" {_SEPARATOR} ".join(texts).lower()
    tokens = words(joined)
    codes, terms = pd.factorize(np.array(tokens, dtype=object))
    is_separator = np.array([t == _SEPARATOR for t in terms])[codes] if len(codes) else np.zeros(0, bool)
    if int(is_separator.sum()) != len(texts) - 1:
        return None
    text_of = np.cumsum(is_separator)[~is_separator]
    keep = np.flatnonzero(np.array([t != _SEPARATOR for t in terms]))
    remap = np.full(len(terms), -1)
    remap[keep] = np.arange(len(keep))
    return text_of, remap[codes[~is_separator]], [str(terms[k]) for k in keep]


def _token_codes_slow(texts: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    per_text = [words(t.lower()) for t in texts]
    text_of = np.repeat(np.arange(len(texts)), [len(t) for t in per_text])
    codes, terms = pd.factorize(np.array([w for t in per_text for w in t], dtype=object))
    return text_of, codes, [str(t) for t in terms]


@lru_cache(maxsize=1)
def fit_vectors(texts: tuple[str, ...]) -> TermMatrix | None:
    found = _token_codes(texts) or _token_codes_slow(texts)
    text_of, term_of, terms = found
    if not terms:
        return None
    counts = sparse.csr_matrix((np.ones(len(term_of), dtype=np.float32), (text_of, term_of)),
                               shape=(len(texts), len(terms)))
    counts.sum_duplicates()
    # here: scikit-learn costs ~1 s of CPU to import, and the tests that read submissions alone never fit
    from sklearn.feature_extraction.text import TfidfTransformer

    tfidf = TfidfTransformer(sublinear_tf=True)
    rows = sparse.csr_matrix(tfidf.fit_transform(counts), dtype=np.float32)
    return TermMatrix(rows.data, rows.indices, rows.indptr, {t: k for k, t in enumerate(terms)}, tfidf.idf_)


def row_cosines(matrix: sparse.csr_matrix, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    if len(left) == 0:
        return np.zeros(0, dtype=np.float32)
    products = matrix[left].multiply(matrix[right])
    return np.asarray(products.sum(axis=1)).ravel()


def peer_pairs(groups: pd.Series, authors: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    codes = pd.factorize(groups)[0]
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    sizes = np.diff(np.r_[starts, len(order)])
    left, right = [], []
    for size in np.unique(sizes[sizes > 1]):
        members = order[starts[sizes == size][:, None] + np.arange(size)]
        a, b = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
        off_diagonal = a != b
        left.append(members[:, a[off_diagonal]].ravel())
        right.append(members[:, b[off_diagonal]].ravel())
    if not left:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    i, j = np.concatenate(left), np.concatenate(right)
    author_codes = pd.factorize(authors)[0]
    keep = author_codes[i] != author_codes[j]
    return i[keep], j[keep]


# --- qc/consensus_rules.py ------------------------------------------------------------------------

DEFAULTS = {"consensus_threshold": 0.02, "consensus_min_peers": 2, "shared_template_min_images": 2,
            "instruction_echo_threshold": 0.6, "consensus_rate_share": 0.5, "consensus_rate_min_captions": 3}


def _param(params: dict[str, Any], key: str) -> Any:
    return params.get(key, DEFAULTS[key])


def _written(df: pd.DataFrame) -> pd.DataFrame:
    own = df.loc[~df["is_precanned"].astype(bool), ["worker_id", "image_id", "caption"]].copy()
    own["caption"] = own["caption"].fillna("").astype(str)
    return own


def consensus_scores(df: pd.DataFrame, min_peers: int) -> pd.DataFrame:
    own = _written(df)
    found = _best_matches(tuple(own["caption"].tolist()), tuple(own["image_id"].tolist()),
                          tuple(own["worker_id"].tolist())) if len(own) else None
    if found is None:
        return pd.DataFrame(columns=["score", "peer", "peers"])
    best, best_peer, peers = found
    scored = peers >= min_peers
    return pd.DataFrame({"score": best[scored], "peer": own.index[best_peer[scored]], "peers": peers[scored]},
                        index=own.index[scored])


@lru_cache(maxsize=1)
def _best_matches(texts: tuple[str, ...], images: tuple[str, ...],
                  workers: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    fitted = fit_vectors(texts)
    if fitted is None:
        return None
    blank = np.asarray(fitted.rows.getnnz(axis=1) == 0)
    left, right = peer_pairs(pd.Series(images), pd.Series(workers))
    keep = ~blank[right]
    left, right = left[keep], right[keep]
    sims = row_cosines(fitted.rows, left, right)
    peers = np.bincount(left, minlength=len(texts))
    best = np.full(len(texts), -1.0)
    np.maximum.at(best, left, sims)
    best_peer = np.full(len(texts), -1)
    reached = sims >= best[left]
    best_peer[left[reached]] = right[reached]
    return best, best_peer, peers


def forget_batch() -> None:
    _best_matches.cache_clear()
    fit_vectors.cache_clear()
    _squeezed_lower.cache_clear()


def _skipped_row(df: pd.DataFrame, scored: pd.DataFrame, min_peers: int) -> list[dict[str, Any]]:
    unscored = _written(df).index.difference(scored.index)
    if len(unscored) == 0:
        return []
    images = df.loc[unscored, "image_id"].nunique()
    return [{"worker_id": "", "rule": "rule_info", "value": "consensus", "threshold": min_peers,
             "detail": f"skipped {len(unscored)} caption(s) on {images} image(s) with fewer than "
                       f"{min_peers} other workers' captions"}]


def consensus(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    threshold = float(_param(params, "consensus_threshold"))
    min_peers = int(_param(params, "consensus_min_peers"))
    scored = consensus_scores(df, min_peers)
    low = scored[scored["score"] < threshold]
    hits = [(i, round(float(r.score), 3), threshold,
             f"best of {int(r.peers)} peers {r.score:.2f}, {df.at[r.peer, 'worker_id']}: "
             f"{clip(df.at[r.peer, 'caption'], 100)}")
            for i, r in zip(low.index, low.itertuples(), strict=True)]
    found = caption_flags(df, "consensus", hits)
    info = _skipped_row(df, scored, min_peers)
    return pd.concat([found, flag_frame(info)], ignore_index=True) if info else found


def consensus_rate(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    threshold = float(_param(params, "consensus_threshold"))
    share = float(_param(params, "consensus_rate_share"))
    min_captions = int(_param(params, "consensus_rate_min_captions"))
    scored = consensus_scores(df, int(_param(params, "consensus_min_peers")))
    low = (scored["score"] < threshold).groupby(df.loc[scored.index, "worker_id"]).agg(["sum", "count"])
    rows = [{"worker_id": w, "rule": "consensus_rate", "value": round(r["sum"] / r["count"], 3),
             "threshold": share, "detail": f"{int(r['sum'])} of {int(r['count'])} captions agree with no peer"}
            for w, r in low.iterrows() if r["count"] >= min_captions and r["sum"] / r["count"] >= share]
    return flag_frame(rows)


def shared_template(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    min_images = int(_param(params, "shared_template_min_images"))
    own = _written(df)
    own["norm"] = normalise_all(own["caption"])
    own = own[(own["norm"] != "") & own["norm"].duplicated(keep=False)]
    pairs = own.drop_duplicates(["norm", "image_id"])["norm"].value_counts()
    common = pairs[pairs >= min_images]
    shared = own[own["norm"].isin(common.index)]
    images = shared["norm"].map(common)
    workers = shared["norm"].map(shared.groupby("norm")["worker_id"].nunique())
    hits = [(i, int(n), min_images, f"on {int(n)} images by {int(w)} worker(s): {clip(text, 100)}")
            for i, n, w, text in zip(shared.index, images, workers, shared["caption"], strict=True)]
    return caption_flags(df, "shared_template", hits)


# --- qc/echo_rules.py, qc/template_rules.py, qc/quality_talk.py ------------------------------------

def instruction_echo(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    page_text = params.get("page_text")
    if not isinstance(page_text, str) or not page_text.strip():
        raise ValueError("instruction_echo needs the page's text (params page_text); "
                         "run `hitflow qc --config <campaign.toml>` or drop the rule")
    threshold = float(params.get("instruction_echo_threshold", 0.6))
    lines = page_lines(page_text)
    if not lines:
        raise ValueError(f"the page text has no line of {MIN_LINE_WORDS}+ words to compare captions with")
    own = df.loc[~df["is_precanned"].astype(bool), "caption"].fillna("").astype(str)
    fitted = fit_vectors(tuple(own.tolist()))
    if fitted is None:
        return caption_flags(df, "instruction_echo", [])
    sims = (fitted.rows @ foreign_vectors(fitted, lines).T).toarray()
    best, which = sims.max(axis=1), sims.argmax(axis=1)
    hit = np.flatnonzero(best >= threshold)
    hits = [(own.index[k], round(float(best[k]), 3), threshold, f"{best[k]:.2f} like the page's "
             f"\u201c{clip(lines[which[k]], 100)}\u201d") for k in hit]
    return caption_flags(df, "instruction_echo", hits)


_LETTER_WORD = re.compile(r"[^\W\d_]+")
TEMPLATE_DEFAULTS: dict[str, Any] = {"near_template_words": 4, "near_template_consensus": 0.1,
                                     "near_template_min_images": 4}


def template_key(text: str, n_words: int) -> str:
    found = _LETTER_WORD.findall(text.lower(), 0, 400)
    return " ".join(found[:n_words]) if len(found) >= n_words else ""


def near_template(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    min_images = int(params.get("near_template_min_images", TEMPLATE_DEFAULTS["near_template_min_images"]))
    n_words = int(params.get("near_template_words", TEMPLATE_DEFAULTS["near_template_words"]))
    ceiling = float(params.get("near_template_consensus", TEMPLATE_DEFAULTS["near_template_consensus"]))
    scored = consensus_scores(df, int(params.get("consensus_min_peers", DEFAULTS["consensus_min_peers"])))
    low = scored[scored["score"] < ceiling]
    keys = pd.Series([template_key(t, n_words) for t in df.loc[low.index, "caption"].tolist()],
                     index=low.index, dtype=object)
    keys = keys[keys != ""]
    images = df.loc[keys.index, "image_id"].groupby(keys).nunique()
    keyed = pd.DataFrame({"key": keys, "images": keys.map(images).astype(int),
                          "score": low.loc[keys.index, "score"].astype(float)}, index=keys.index)
    found = keyed[keyed["images"] >= min_images]
    hits = [(i, int(r.images), min_images,
             f"opens like low-consensus captions on {int(r.images)} images ({clip(str(r.key), 60)!r}); "
             f"best peer {r.score:.2f}")
            for i, r in zip(found.index, found.itertuples(), strict=True)]
    return caption_flags(df, "near_template", hits)


def quality_talk(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    ceiling = float(params.get("quality_talk_consensus", 0.1))
    words = params.get("quality_words", QUALITY_WORDS)
    min_peers = int(params.get("consensus_min_peers", DEFAULTS["consensus_min_peers"]))
    scored = consensus_scores(df, min_peers)
    low = scored[scored["score"] < ceiling]
    found = quality_word_of(df.loc[low.index, "caption"].fillna("").astype(str), words)
    hits = [(i, round(float(low.at[i, "score"]), 3), ceiling,
             f"names image quality ({word!r}) and agrees with no peer (best {low.at[i, 'score']:.2f}): "
             f"{clip(df.at[i, 'caption'], 100)}")
            for i, word in found.items()]
    return caption_flags(df, "quality_talk", hits)


OLD_RULES: dict[str, RuleFn] = {
    "caps_lock": caps_lock, "duplicate_text": duplicate_text, "quality_words": quality_words,
    **{c.name: submit_rule(c) for c in CHECKS.values()},
    "consensus": consensus, "consensus_rate": consensus_rate, "shared_template": shared_template,
    "instruction_echo": instruction_echo, "near_template": near_template, "quality_talk": quality_talk,
}
