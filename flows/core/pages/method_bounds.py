"""Bounds for costly string methods, checked before the call."""

from __future__ import annotations

import codecs
from typing import Any

from flows.core.pages.template_limits import MAX_VALUE_CHARS, TemplateLimit, need

SAFE_CODECS = frozenset(codecs.lookup(name).name for name in (
    "utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "ascii", "latin-1", "cp1252"))
# characters written for one character (or byte) that does not encode (decode), at most
ERROR_WIDTH = {"strict": 1, "ignore": 1, "replace": 1, "surrogateescape": 1, "surrogatepass": 1,
               "backslashreplace": 10, "xmlcharrefreplace": 10}
UNICODE_WIDTH = 4  # bytes of one character in UTF-32
LINE_BREAKS = ("\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
WHITESPACE = tuple(chr(c) for c in range(0x3001) if chr(c).isspace())


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], at: int, name: str, default: Any) -> Any:
    return args[at] if len(args) > at else kwargs.get(name, default)


def codec_bound(owner: str | bytes, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """``owner.encode(encoding, errors)`` or ``owner.decode(...)``: a codec of SAFE_CODECS, a known handler."""
    encoding = _argument(args, kwargs, 0, "encoding", "utf-8")
    errors = _argument(args, kwargs, 1, "errors", "strict")
    try:
        name = codecs.lookup(encoding).name if isinstance(encoding, str) else ""
    except LookupError:
        name = ""
    if name not in SAFE_CODECS:
        raise TemplateLimit(f"the codec {str(encoding)[:40]!r} is not among those a page may use "
                            f"({', '.join(sorted(SAFE_CODECS))})")
    if errors not in ERROR_WIDTH:
        raise TemplateLimit(f"the error handler {str(errors)[:40]!r} is not among those a page may use "
                            f"({', '.join(ERROR_WIDTH)})")
    need("an encoded or decoded value", len(owner) * UNICODE_WIDTH * ERROR_WIDTH[errors])


def split_bound(owner: str | bytes, args: tuple[Any, ...], kwargs: dict[str, Any], lines: bool = False) -> None:
    """``split``/``rsplit``/``splitlines``: the pieces' characters and their count (each costs a string)."""
    if 3 * len(owner) <= MAX_VALUE_CHARS:
        return  # at most len + 1 pieces: checked after, as every result is
    separator = None if lines else _argument(args, kwargs, 0, "sep", None)
    most = -1 if lines else _argument(args, kwargs, 1, "maxsplit", -1)
    breaks = [separator] if separator else LINE_BREAKS if lines else WHITESPACE
    if isinstance(owner, bytes):
        pieces = sum(owner.count(b if isinstance(b, bytes) else b.encode()) for b in breaks
                     if isinstance(b, bytes) or b.isascii()) + 1
    else:
        pieces = sum(owner.count(b) for b in breaks) + 1
    if isinstance(most, int) and most >= 0:
        pieces = min(pieces, most + 1)
    need("the pieces of a split value", len(owner) + 2 * pieces + 2)


def lines_bound(owner: str | bytes, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    split_bound(owner, args, kwargs, lines=True)


def from_bounded(owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """A method building a value from ``owner``: ``owner`` itself within MAX_VALUE_CHARS."""
    if isinstance(owner, str | bytes):
        need("the value a method builds from", len(owner))
