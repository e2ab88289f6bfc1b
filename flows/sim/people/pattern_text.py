"""A string that matches a ``pattern`` attribute."""

from __future__ import annotations

import random
import re
import re._constants as sre_c  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
import string
from typing import Any

from qc.page_patterns import PagePattern, page_pattern, translated

PRINTABLE = string.ascii_letters + string.digits + " .,-"
CATEGORIES = {sre_c.CATEGORY_DIGIT: string.digits, sre_c.CATEGORY_NOT_DIGIT: string.ascii_letters,
              sre_c.CATEGORY_SPACE: " ", sre_c.CATEGORY_NOT_SPACE: string.ascii_letters + string.digits,
              sre_c.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
              sre_c.CATEGORY_NOT_WORD: " .,-"}
MAX_EXTRA_REPEATS = 4


def _class(items: list[tuple[Any, Any]], rng: random.Random) -> str:
    negate = bool(items) and items[0][0] == sre_c.NEGATE
    allowed: list[str] = []
    for op, arg in items:
        if op == sre_c.LITERAL:
            allowed.append(chr(arg))
        elif op == sre_c.RANGE:
            allowed += [chr(c) for c in range(arg[0], min(arg[1], arg[0] + 200) + 1)]
        elif op == sre_c.CATEGORY:
            allowed += list(CATEGORIES.get(arg, ""))
    if negate:
        allowed = [c for c in PRINTABLE if c not in allowed]
    return rng.choice(allowed or ["x"])


def _emit(tokens: Any, rng: random.Random, groups: dict[int, str]) -> str:
    out = []
    for op, arg in tokens:
        if op == sre_c.LITERAL:
            out.append(chr(arg))
        elif op == sre_c.NOT_LITERAL:
            out.append(next(c for c in PRINTABLE if ord(c) != arg))
        elif op == sre_c.ANY:
            out.append(rng.choice(string.ascii_lowercase))
        elif op == sre_c.IN:
            out.append(_class(list(arg), rng))
        elif op == sre_c.CATEGORY:
            out.append(rng.choice(CATEGORIES.get(arg, "x")))
        elif op == sre_c.BRANCH:
            out.append(_emit(rng.choice(arg[1]), rng, groups))
        elif op == sre_c.SUBPATTERN:
            text = _emit(arg[-1], rng, groups)
            if arg[0] is not None:
                groups[arg[0]] = text
            out.append(text)
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
            low, high, body = arg
            top = low + MAX_EXTRA_REPEATS if high == sre_c.MAXREPEAT else min(high, low + MAX_EXTRA_REPEATS)
            out.extend(_emit(body, rng, groups) for _ in range(rng.randint(low, max(low, top))))
        elif op == sre_c.GROUPREF:
            out.append(groups.get(arg, ""))
        elif op == getattr(sre_c, "ATOMIC_GROUP", None):
            out.append(_emit(arg, rng, groups))
    return "".join(out)


def matching_text(pattern: str, rng: random.Random, tries: int = 20) -> str | None:
    """A string the whole pattern matches, or None when none was found (a pattern QC refuses, a \\p{...})."""
    whole = page_pattern(pattern)
    if not isinstance(whole, PagePattern):
        return None
    try:
        parsed = sre_parse.parse(translated(pattern))
    except (re.error, OverflowError, RecursionError):
        return None
    for _ in range(tries):
        text = _emit(parsed, rng, {})
        if whole.matches(text):
            return text
    return None
