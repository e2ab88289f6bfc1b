"""Every value a requester's template builds stays under a set size (:func:`weight`)."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, ValuesView
from string import Formatter
from typing import Any

from jinja2.runtime import Undefined
from jinja2.sandbox import SandboxedEscapeFormatter, SandboxedFormatter
from jinja2.utils import Namespace
from markupsafe import Markup, escape

from flows.core.pages import method_bounds as mb
from flows.core.pages import template_limits as limits
from flows.core.pages.template_limits import MAX_DEPTH, MAX_INT_BITS, MAX_VALUE_CHARS, TemplateLimit, need

TEXT_FACTOR = 12  # a container's text (repr, JSON, escaped) has at most 12 characters per character of weight
_SEQUENCES = (list, tuple, set, frozenset, KeysView, ValuesView, ItemsView)


def weight(value: Any, stop: int = MAX_VALUE_CHARS) -> int:
    """The value's size in characters (see the module's doc); counting stops a little past ``stop``."""
    return _weight(value, {}, 0, stop)


def _weight(value: Any, seen: dict[int, int], depth: int, stop: int) -> int:
    if isinstance(value, str | bytes | bytearray):
        return len(value)
    if isinstance(value, bool) or value is None or isinstance(value, Undefined):
        return 5
    if isinstance(value, int):
        return value.bit_length() // 3 + 2
    if isinstance(value, float):
        return 24
    if isinstance(value, Namespace):
        value = object.__getattribute__(value, "_Namespace__attrs")
    if not isinstance(value, (Mapping, *_SEQUENCES)):
        return 64  # an opaque object (a macro, a generator, a loop): its text is its short repr
    if id(value) in seen:
        return seen[id(value)]
    if depth >= MAX_DEPTH:
        raise TemplateLimit(f"a value nested more than {MAX_DEPTH} deep is over the limit")
    total = 2
    for part in (value.items() if isinstance(value, Mapping) else value):
        total += _weight(part, seen, depth + 1, stop) + 2
        if total > stop:
            break
    seen[id(value)] = total
    return total


def text_bound(value: Any) -> int:
    """At most how long ``str(value)`` (or its repr, or its JSON) is."""
    return len(value) if isinstance(value, str) else weight(value) * TEXT_FACTOR


def checked(value: Any, limit: int = MAX_VALUE_CHARS) -> Any:
    """``value``, refused when it is over ``limit``; an iterator is checked as it is walked."""
    if isinstance(value, bool) or not limits.bounded():
        return value
    if isinstance(value, int):
        need("a number (in bits)", value.bit_length(), MAX_INT_BITS)
        return value
    if isinstance(value, Iterator) and not isinstance(value, BoundedIterator):
        return BoundedIterator(value, limit)
    size = weight(value, limit)
    need("a value", size, limit)
    limits.count_built(sys.getsizeof(value) if isinstance(value, str | bytes) else size * 8)  # 8: a reference
    return value


class BoundedIterator(Iterator[Any]):
    """A lazy result (``map``, ``select``, ``batch``...): what it yields together stays under the limit."""

    def __init__(self, source: Iterator[Any], limit: int):
        self.source, self.limit, self.size = source, limit, 2

    def __next__(self) -> Any:
        item = next(self.source)
        self.size += weight(item, self.limit) + 2
        need("a sequence", self.size, self.limit)
        limits.check_deadline()
        return item


def materialized(values: Any, limit: int = MAX_VALUE_CHARS) -> list[Any]:
    """``values`` as a list (a generator walked once), refused as soon as it passes ``limit``."""
    return list(checked(iter(values) if not isinstance(values, Iterator) else values, limit))


def _count(value: Any, what: str) -> int:
    """An integer argument that sizes a result (a width, a count), bounded by MAX_VALUE_CHARS."""
    n = value if isinstance(value, int) and not isinstance(value, bool) else 0
    need(what, n)
    return max(n, 0)


class BoundedNamespace(Namespace):
    """``namespace()``, whose values stay under MAX_VALUE_CHARS."""

    def __setitem__(self, name: str, value: Any) -> None:
        super().__setitem__(name, checked(value))


# Operators ---------------------------------------------------------------------------------------

SIZED = (str, bytes, list, tuple)


def before_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse ``left <operator> right`` before it runs when its result would be over a limit."""
    limits.check_deadline()
    ints = isinstance(left, int) and isinstance(right, int)
    if operator == "*":
        if ints:
            need("a product (in bits)", left.bit_length() + right.bit_length(), MAX_INT_BITS)
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, SIZED) and isinstance(n, int) and n > 0 and seq:
                need("a repeated value", weight(seq) * n)
    elif operator == "**" and ints and abs(left) > 1 and right > 0:
        need("a power (in bits)", int(math.log2(abs(left)) * min(right, MAX_INT_BITS + 1)) + 1, MAX_INT_BITS)
    elif operator == "+" and isinstance(left, SIZED) and isinstance(right, SIZED):
        need("a joined value", weight(left) + weight(right))
    elif operator == "%" and isinstance(left, str):
        percent_bound(left, right)


PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(\*|\d+)?(?:\.(\*|\d+))?([a-zA-Z%])?")


def percent_bound(text: str, args: Any) -> None:
    """``text % args`` (and the ``format`` filter): at most each field's widest argument and width."""
    values = list(args.values()) if isinstance(args, Mapping) else list(args) if isinstance(args, tuple) else [args]
    specs = list(PERCENT_SPEC.finditer(text))
    widths = [int(g) for m in specs for g in m.groups()[:2] if g and g.isdigit()]
    if any("*" in (m.group(1), m.group(2)) for m in specs):
        widths += [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    factor = TEXT_FACTOR if any(m.group(3) in ("r", "a") for m in specs) or isinstance(text, Markup) else 1
    widest = max((text_bound(v) if not isinstance(v, str) else len(v) * factor for v in values), default=0)
    need("a formatted field's width", max(widths, default=0))
    need("a formatted value", len(text) + len(specs) * (widest + max(widths, default=0)))


# str.format ----------------------------------------------------------------------------------------

WIDTH = re.compile(r"\d+")


class _Bounded(Formatter):
    """A formatter counting what it has built: each field is bounded before it is formatted."""

    built = 0

    def vformat(self, format_string: str, args: Any, kwargs: Any) -> str:
        self.built = len(format_string)
        return super().vformat(format_string, args, kwargs)

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion in ("r", "a", "s"):
            need("a formatted value", self.built + text_bound(value))
        return super().convert_field(value, conversion)

    def format_field(self, value: Any, format_spec: str) -> Any:
        widths = [int(w) for w in WIDTH.findall(format_spec)]
        need("a formatted field's width", max(widths, default=0))
        size = (len(value) if isinstance(value, str) else text_bound(value)) + max(widths, default=0)
        self.built += size * (6 if isinstance(value, str) and isinstance(self, SandboxedEscapeFormatter) else 1)
        need("a formatted value", self.built)
        limits.check_deadline()
        return super().format_field(value, format_spec)


class BoundedFormatter(_Bounded, SandboxedFormatter):
    pass


class BoundedEscapeFormatter(_Bounded, SandboxedEscapeFormatter):
    pass


# Methods -----------------------------------------------------------------------------------------

def _linear(owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """A result at most a small multiple of the operands, which are bounded already."""


def _width(owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    _count((args or tuple(kwargs.values()) or (0,))[0], "a padded width")


def _expandtabs(owner: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    size = _count((args or tuple(kwargs.values()) or (8,))[0], "a tab size")
    need("an expanded value", len(owner) + owner.count("\t") * size)


def replace_bound(text: str, old: Any, new: Any, count: Any = -1) -> None:
    """``text.replace(old, new, count)``: the exact length, computed first."""
    if isinstance(text, Markup):
        old, new = escape(old), escape(new)
    old, new = str(old), str(new)
    found = text.count(old) if old else len(text) + 1
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    need("a replaced value", len(text) + found * max(len(new) - len(old), 0))


def _replace(owner: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    replace_bound(owner, *args, **kwargs)


def _translate(owner: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    table = (args or tuple(kwargs.values()) or ({},))[0]
    if not isinstance(table, dict):
        raise TemplateLimit("str.translate takes a dict (str.maketrans) in a page")
    longest = max((len(v) if isinstance(v, str) else 1 for v in table.values()), default=1)
    need("a translated value", len(owner) * longest)


def _to_bytes(owner: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    _count((args or (kwargs.get("length", 1),))[0], "a byte string")


READERS = ("startswith", "endswith", "find", "rfind", "index", "rindex", "count", "isalnum", "isalpha", "isascii",
           "isdecimal", "isdigit", "isidentifier", "islower", "isnumeric", "isprintable", "isspace", "istitle",
           "isupper", "maketrans")
BUILDERS = ("capitalize", "casefold", "lower", "upper", "swapcase", "title", "strip", "lstrip", "rstrip",
            "partition", "rpartition", "removeprefix", "removesuffix")
STR_METHODS: dict[str, Callable[..., None]] = {
    **dict.fromkeys(READERS, _linear), **dict.fromkeys(BUILDERS, mb.from_bounded),
    **dict.fromkeys(("center", "ljust", "rjust", "zfill"), _width), "encode": mb.codec_bound,
    "split": mb.split_bound, "rsplit": mb.split_bound, "splitlines": mb.lines_bound,
    "expandtabs": _expandtabs, "replace": _replace, "translate": _translate,
    "unescape": mb.from_bounded, "striptags": mb.from_bounded, "escape": mb.from_bounded}  # the last three: Markup's
METHODS: dict[type, dict[str, Callable[..., None]]] = {
    str: STR_METHODS,
    bytes: {**dict.fromkeys(("count", "find", "startswith", "endswith", "isascii", "isdigit", "isalpha"), _linear),
            **dict.fromkeys(("hex", "strip", "lower", "upper"), mb.from_bounded), "decode": mb.codec_bound,
            "split": mb.split_bound},
    list: dict.fromkeys(("index", "count", "copy"), _linear),
    tuple: dict.fromkeys(("index", "count"), _linear),
    dict: dict.fromkeys(("keys", "values", "items", "get", "copy"), _linear),
    int: {**dict.fromkeys(("bit_length", "bit_count", "conjugate"), _linear), "to_bytes": _to_bytes},
    float: dict.fromkeys(("is_integer", "hex", "conjugate", "as_integer_ratio"), _linear),
}


def method_bound(method: Any) -> tuple[Any, Callable[..., None]] | None:
    """(object, bound) for an allowed method of a built-in value; None for any other callable."""
    owner = getattr(method, "__self__", None)
    kinds = [kind for kind in METHODS if isinstance(owner, kind) or owner is kind or
             (isinstance(owner, type) and issubclass(owner, kind))]
    if not kinds:
        return None
    name = getattr(method, "__name__", "")
    if name == "join" and isinstance(owner, str):
        return owner, _join_marker
    bound = METHODS[kinds[0]].get(name)
    if bound is None:
        raise TemplateLimit(f"{kinds[0].__name__}.{name} is not among the methods a page may call")
    return owner, bound


def _join_marker(owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """``str.join``: its parts are walked first (see :func:`bounded_join`)."""


def bounded_join(separator: str, parts: Any) -> list[Any]:
    """``parts`` as a list once their text and the separators fit in MAX_VALUE_CHARS."""
    items = materialized(parts)
    need("a joined value", sum(len(p) if isinstance(p, str) else text_bound(p) for p in items)
         + len(str(separator)) * max(len(items) - 1, 0))
    return items
