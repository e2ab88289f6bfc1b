"""Every filter of the bounded environment, wrapped and bounded."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Mapping
from typing import Any

from jinja2 import pass_environment
from jinja2.filters import make_attrgetter
from markupsafe import Markup, escape

from flows.core.pages import template_limits as limits
from flows.core.pages import value_bounds as vb
from flows.core.pages.template_limits import MAX_COUNT, MAX_VALUE_CHARS, TemplateLimit

Args = dict[str, Any]
MAX_INDENT = 16  # tojson's indent: each line of JSON is indented by it per level
MAX_STRIPTAGS_WORK = 2 * 10**9  # characters copied by striptags (measured: about 0.25 s, unloaded)
MAX_WORDS = 20_000  # words urlize or title work through in Python, one at a time


def _len(value: Any) -> int:
    return len(value) if isinstance(value, str) else vb.text_bound(value)


def _center(a: Args) -> None:
    vb.need("a centered value", max(_len(a["value"]), a.get("width", 80) if isinstance(a.get("width"), int) else 0))


def _indent(a: Args) -> None:
    width = a.get("width", 4)
    step = width if isinstance(width, int) and not isinstance(width, bool) else len(str(width))
    text = str(a["s"])
    vb.need("an indented value", len(text) + (text.count("\n") + 1) * max(step, 0))


def _replace(a: Args) -> None:
    text, old, new = a["s"], a["old"], a["new"]
    if hasattr(old, "__html__") or (hasattr(new, "__html__") and not hasattr(text, "__html__")):
        text = escape(text)
    text = text if isinstance(text, str) else str(text)
    vb.replace_bound(text, old, new, -1 if a.get("count") is None else a["count"])


def _format(a: Args) -> None:
    vb.percent_bound(str(a["value"]), a.get("kwargs") or tuple(a.get("args", ())))


def _wordwrap(a: Args) -> None:
    text, width = str(a["s"]), a.get("width", 79)
    wrap = a.get("wrapstring") or "\n"
    lines = text.count(" ") + text.count("\n") + text.count("\t") + len(text) // max(width, 1) + 1 \
        if isinstance(width, int) else len(text)
    vb.need("a wrapped value", len(text) + lines * len(str(wrap)))


def _fill(count_name: str) -> Callable[[Args], None]:
    def bound(a: Args) -> None:
        count = a.get(count_name)
        if isinstance(count, int) and count > MAX_COUNT:
            raise limits.too_big(f"{count_name}", count, MAX_COUNT)
        if a.get("fill_with") is not None and isinstance(count, int):
            vb.need("the filled values", vb.weight(a["fill_with"]) * max(count, 0))
    return bound


def _tojson(a: Args) -> None:
    indent = a.get("indent")
    step = len(indent) if isinstance(indent, str) else indent if isinstance(indent, int) else 0
    vb.need("tojson's indent", step, MAX_INDENT)
    if step:
        vb.need("the indented JSON", vb.weight(a["value"]) * (1 + step * _depth(a["value"])))


def _striptags(a: Args) -> None:
    """Markupsafe removes one tag at a time, copying the rest of the text each time: tags x length."""
    text = str(a["value"])
    vb.need("striptags' work (tags x characters)", text.count("<") * len(text), MAX_STRIPTAGS_WORK)


def _per_word(limit: int) -> Callable[[Args], None]:
    """A filter that runs Python code per word (urlize, title): at most ``limit`` words."""
    def bound(a: Args) -> None:
        text = str(a["value"])
        vb.need("the words for that filter", text.count(" ") + text.count("\n") + text.count("-") + 1, limit)
    return bound


def _pprint(a: Args) -> None:
    vb.need("the printed value", vb.weight(a["value"]) * (1 + _depth(a["value"])))


def _depth(value: Any, level: int = 0) -> int:
    if level >= limits.MAX_DEPTH or not isinstance(value, Mapping | list | tuple):
        return level
    parts = value.values() if isinstance(value, Mapping) else value
    return max((_depth(v, level + 1) for v in parts if isinstance(v, Mapping | list | tuple)), default=level + 1)


BEFORE: dict[str, Callable[[Args], None]] = {
    "center": _center, "indent": _indent, "replace": _replace, "format": _format, "wordwrap": _wordwrap,
    "batch": _fill("linecount"), "slice": _fill("slices"), "tojson": _tojson, "pprint": _pprint,
    "striptags": _striptags, "urlize": _per_word(MAX_WORDS), "title": _per_word(MAX_WORDS)}
# filters that only read their value (its length, an element): it may be a large context value
READERS = frozenset(("length", "count", "first", "last", "default", "d", "attr", "random", "map", "select",
                     "reject", "selectattr", "rejectattr", "items", "batch", "slice", "join", "sum"))


def bounded_filter(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    """Jinja's filter ``name``: its operands bounded before it runs, its result after."""
    try:
        signature: inspect.Signature | None = inspect.signature(original)
    except (TypeError, ValueError):  # a builtin (len, abs) without one: it takes the value alone
        signature = None
    first = 1 if getattr(original, "jinja_pass_arg", None) else 0  # its context comes first

    def bounded(*args: Any, **kwargs: Any) -> Any:
        if not limits.bounded():
            return original(*args, **kwargs)
        limits.check_deadline()
        operands = list(args[first:]) + list(kwargs.values())
        for operand in operands[0 if name not in READERS else 1:]:
            if not isinstance(operand, str | int | float):  # those are bounded where they were built
                vb.need(f"the {name} filter's operand", vb.weight(operand))
        if name in BEFORE:
            BEFORE[name](_named(name, signature, args, kwargs))
        if name == "join":  # its parts walked once, bounded, then joined
            named = _named(name, signature, args, kwargs)
            items = vb.bounded_join(str(named.get("d", "")), args[first])
            factor = 6 if hasattr(named.get("d"), "__html__") or any(hasattr(p, "__html__") for p in items) else 1
            vb.need("a joined value", factor * sum(_len(p) for p in items))
            args = (*args[:first], items, *args[first + 1:])
        return vb.checked(original(*args, **kwargs))

    bounded.__dict__.update(getattr(original, "__dict__", {}))  # jinja's pass_context/pass_environment marks
    bounded.__wrapped__ = original  # type: ignore[attr-defined]
    return bounded


def _named(name: str, signature: inspect.Signature | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Args:
    """The filter's arguments by name; an argument it does not take is the template's mistake."""
    if signature is None:
        return {"value": args[0] if args else None, "s": args[0] if args else None}
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        taken = ", ".join(p for p in signature.parameters if p not in ("eval_ctx", "environment", "context"))
        raise TypeError(f"the {name} filter takes ({taken}): {exc}") from exc
    named = dict(bound.arguments)
    values = [v for k, v in named.items() if k not in ("eval_ctx", "environment", "context")]
    named.setdefault("value", values[0] if values else None)
    named.setdefault("s", named["value"])
    return named


@pass_environment
def bounded_sum(environment: Any, iterable: Any, attribute: str | int | None = None, start: Any = 0) -> Any:
    """Jinja's ``sum``, sequences added in one pass, their size bounded first."""
    get = make_attrgetter(environment, attribute) if attribute is not None else (lambda x: x)
    parts = [get(item) for item in vb.materialized(iterable)]
    if isinstance(start, str | list | tuple):
        vb.need("a sum", vb.weight(start) + sum(vb.weight(p) + 2 for p in parts))
        if not all(isinstance(p, type(start)) for p in parts):
            raise TypeError(f"can only add {type(start).__name__} to {type(start).__name__}")
        if isinstance(start, str):
            return Markup("").join([start, *parts]) if hasattr(start, "__html__") else "".join([start, *parts])
        return type(start)(itertools.chain(start, *parts))
    total = start
    for part in parts:
        vb.before_binop("+", total, part)
        total = vb.checked(total + part)
    return total


def wrap_filters(filters: dict[str, Callable[..., Any]]) -> None:
    filters["sum"] = bounded_sum
    for name, original in list(filters.items()):
        filters[name] = bounded_filter(name, original)


__all__ = ["MAX_VALUE_CHARS", "TemplateLimit", "bounded_filter", "wrap_filters"]
