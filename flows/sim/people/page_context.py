"""Which item each field of a page is about, and the text that item carries."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache

from flows.core.pages.asks_worker import question_texts
from flows.core.pages.mturk_forms import _FormParser, item_index, read_page
from flows.sim.people.stated_limits import Limits, stated

BLANK = re.compile(r"_{3,}")  # a gap in a sentence the box completes: the sentence is the item's
# a box's question that asks for a kind of text (a summary, a reason ...): the page's prompt, not an item's content
ASKS_TEXT = re.compile(r"\b(?:describ|summar|caption|explain|why\b|reason|justif|comment|remark|title|headline|"
                       r"re-?write|rephrase|correct|reply|respond|suggest|clarif|translat|write|tell|list|name|copy|quote|answer|"
                       r"leave)", re.I)
ID_FIELDS = ("image_id", "item_id")
MIN_WORDS = 3  # shorter chunks are labels and button-like text, not content
TEMPLATE_WORDS = 12  # a paragraph this long that other items show with a word or two changed is the page's
TEMPLATE_SAME = 0.85  # (its template's prose with an item's column inside), not that item's content


@dataclass
class ItemContext:
    key: str
    texts: list[str] = field(default_factory=list)
    shows_image: bool = False  # the simulator's description of an image speaks for an item that shows one
    asks: list[str] = field(default_factory=list)  # the item's own questions, prompts too ("What is ...?")


def _segments(page: _FormParser) -> dict[str, tuple[int, int]]:
    by_index: dict[int, int] = {}
    for name, pos in page.positions.items():
        idx = item_index(name)
        if idx:
            by_index[int(idx)] = max(by_index.get(int(idx), 0), pos)
    bounds: dict[str, tuple[int, int]] = {}
    start = 0
    for k in sorted(by_index):
        bounds[str(k)] = (start, by_index[k])
        start = by_index[k]
    if len(bounds) == 1:  # one item: what follows its control is its too (a crowd-classifier's target is inside it)
        bounds = {k: (a, 10**9) for k, (a, _) in bounds.items()}
    return bounds


def _chunks(page: _FormParser, start: int, end: int, common: frozenset[str] = frozenset()) -> list[str]:
    return [t for pos, t, is_label in page.texts if start < pos <= end and not is_label
            and len(t.split()) >= MIN_WORDS and t not in common]


def _first_item_start(page: _FormParser, segments: dict[str, tuple[int, int]]) -> None:
    """Where the first item starts (its id field or first image, else its first control); above it is the page's."""
    if "0" not in segments:
        return
    a, b = segments["0"]
    starts = [pos for pos, _ in page.images if a < pos <= b]
    starts += [page.positions[f"{base}_0"] for base in ID_FIELDS if f"{base}_0" in page.positions]
    if len(segments) >= 2:
        starts += [pos for name, pos in page.positions.items() if item_index(name) == "0"]
    segments["0"] = (min(starts) - 1 if starts else a, b)


def _without_shared_label(text: str, others: set[str]) -> str:
    """"Note: a red bus" -> "a red bus" when other items' text opens with "Note:" too."""
    head, sep, rest = text.partition(": ")
    if sep and rest and any(o.startswith(head + ": ") for o in others):
        return rest
    return text


def _labels(texts: dict[str, list[str]], idx: str) -> set[str]:
    """Chunks of item ``idx`` that every other item shows too: the page's labels, not the item's content."""
    others = [set(ts) for other, ts in texts.items() if other != idx]
    return set.intersection(*others) if others else set()


def item_contexts(page: _FormParser, common: frozenset[str] = frozenset()) -> dict[str, ItemContext]:
    """Index ("" for the page) -> the item's key and its own text; ``common``: text every HIT shows."""
    digest = hashlib.sha256("\x1f".join(t for _, t, _ in page.texts).encode()).hexdigest()[:12]
    segments = _segments(page)
    _first_item_start(page, segments)
    if len(segments) >= 2:  # text in one item's part of a page of several is that item's, though every page shows
        # it (a control item on each page of a study); labels repeat per item (_labels)
        seen = Counter(t for a, b in segments.values() for t in set(_chunks(page, a, b)))
        common = frozenset(t for t in common if seen[t] != 1) | _templated(page, segments)
    texts = {idx: _chunks(page, a, b, common) for idx, (a, b) in segments.items()}
    asked = set() if common else _box_questions(page)
    contexts: dict[str, ItemContext] = {}
    for idx, (a, b) in segments.items():
        shared = _labels(texts, idx)
        ids = [page.fields[f"{base}_{idx}"].value for base in ID_FIELDS if f"{base}_{idx}" in page.fields]
        images = [src for pos, src in page.images if a < pos <= b and src]
        key = next((i for i in ids if i), images[0] if images else f"page-{digest}#{idx}")
        elsewhere = {t for other, ts in texts.items() if other != idx for t in ts}
        own = [_without_shared_label(t, elsewhere) for t in texts[idx]
               if t not in shared and not _is_prompt(t, common) and t not in asked]
        asks = [t for t in texts[idx] if t not in shared and t.rstrip().endswith("?")]
        long = [t for t in own if len(t.split()) >= MIN_WORDS]
        if not images and not long and (len(segments) >= 2 or common):  # an item of short lines only: those it
            long += [t for pos, t, is_label in page.texts if a < pos <= b and not is_label and t not in common
                     and t not in elsewhere and t not in shared and re.search(r"[A-Za-z]{3}", t)]  # alone shows
        contexts[idx] = ItemContext(key, long, bool(images), asks)
    whole = [page.fields[b].value for b in ID_FIELDS if b in page.fields and page.fields[b].value]
    images = [src for _, src, in page.images if src]
    chunks = _chunks(page, 0, 10**9, common) if not segments else []
    content = [t for t in chunks if not _is_prompt(t, common)] or chunks
    contexts[""] = ItemContext(whole[0] if whole else (images[0] if len(images) == 1 else f"page-{digest}"), content,
                               len(images) == 1, [t for t in chunks if t.rstrip().endswith("?")])
    return contexts


def near(words: list[str], other: list[str]) -> bool:
    """Two word runs that differ in a word or two only (a template's prose with another item's column)."""
    if abs(len(words) - len(other)) > len(words) * (1 - TEMPLATE_SAME) + 2:
        return False
    match = SequenceMatcher(None, words, other, autojunk=False)
    return match.real_quick_ratio() >= TEMPLATE_SAME and match.quick_ratio() >= TEMPLATE_SAME \
        and match.ratio() >= TEMPLATE_SAME


def templated(mine: Iterable[str], others: list[frozenset[str]]) -> frozenset[str]:
    """Long chunks of ``mine`` that EVERY other item (or page) shows with a word or two changed: the page's prose
    with each item's column inside. Items that merely resemble some others (a passage two items share, two
    versions of a text) are no template: a template is on all of them."""
    return frozenset(t for t in mine if len(t.split()) >= TEMPLATE_WORDS and others and all(
        any(o == t or near(t.split(), o.split()) for o in os) for os in others))


def _templated(page: _FormParser, segments: dict[str, tuple[int, int]]) -> frozenset[str]:
    parts = {idx: frozenset(_chunks(page, a, b)) for idx, (a, b) in segments.items()}
    return frozenset().union(*(templated(ts, [os for other, os in parts.items() if other != idx])
                               for idx, ts in parts.items()))


def _box_questions(page: _FormParser) -> set[str]:
    """The words of a text box's question that asks for a kind of text: the page's prompt, not content."""
    boxes = {n for n, f in page.fields.items() if f.kind in ("text", "textarea")}
    return {t for name, q in question_texts(page).items()
            if name in boxes and ASKS_TEXT.search(q) and not BLANK.search(q) for _, t, _ in page.texts if t in q}


PROMPT_OPENINGS = ("describe", "write", "type", "enter", "select", "choose", "pick", "tell", "say", "answer",
                   "please", "what", "which", "is there", "are there", "how", "do you", "does", "read the", "read each",
                   "rate the", "rate how", "look at", "listen to", "give the", "give this", "give each")


def _is_prompt(text: str, common: frozenset[str] = frozenset()) -> bool:
    """A question or instruction to the worker, by its form or as text every HIT shows: not the item's content."""
    if common:
        return False
    lowered = text.strip().lower()
    # (a line that only states a limit, "No more than 20 words.", says how to answer)
    return lowered.endswith("?") or lowered.startswith(PROMPT_OPENINGS) or \
        (len(lowered.split()) <= 10 and stated(lowered) != Limits())


@lru_cache(maxsize=32)
def page_contexts(html: str, common: frozenset[str] = frozenset()) -> dict[str, ItemContext]:
    """Read once per page: every worker of a HIT sees the same one (callers must not change it)."""
    return item_contexts(read_page(html), common)


def context_for(contexts: dict[str, ItemContext], name: str, attrs: dict[str, str]) -> ItemContext:
    """A field's item; a question that carries its own text (a QuestionForm's) reads that."""
    own = attrs.get("data-item-text", "")
    base = contexts.get(item_index(name)) or contexts[""]
    if own:
        return ItemContext(f"{base.key}|{name}", [own], base.shows_image, [own] if own.endswith("?") else [])
    return base
