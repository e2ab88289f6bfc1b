"""A requester's template render bounded as a whole; hitflow's own pages render ``trusted()``."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

from jinja2.sandbox import SecurityError

MAX_VALUE_CHARS = 1_000_000  # one value an expression builds: a string, or a list/dict's characters
MAX_INT_BITS = 100_000  # one integer (about 30,000 digits)
MAX_COUNT = 100_000  # a range's length, a batch or slice count
MAX_DEPTH = 100  # a value nested in lists or dicts
MAX_OUTPUT_CHARS = 16 * 2**20  # the page, and each block of output (the page limit of flows/custom/page_fetch.py)
MAX_BUFFERED_CHARS = 4 * MAX_OUTPUT_CHARS  # every block of output of one render together
MAX_BUILT_BYTES = 256 * 2**20  # every value one render builds, together: what its set, macro and block values keep
RENDER_DEADLINE_S = 10.0
# a template's size in Jinja tags and parsed nodes (compiling costs ~13 KB and ~0.1 ms a tag)
MAX_TEMPLATE_TAGS = 20_000
MAX_TEMPLATE_NODES = 60_000
_state = threading.local()


class TemplateLimit(SecurityError):
    """An expression asked for more than a page may build, or the page took too long."""


class RenderTimeout(TemplateLimit):
    """The render ran past RENDER_DEADLINE_S."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or f"the page took more than {RENDER_DEADLINE_S:g} s to render")


def template_tags(source: str) -> int:
    return source.count("{{") + source.count("{%")


def check_template_size(source: str) -> None:
    """Refuse a template of more tags than MAX_TEMPLATE_TAGS before it is parsed and compiled."""
    tags = template_tags(source)
    if tags > MAX_TEMPLATE_TAGS:
        raise TemplateLimit(f"the template has {tags:,} expressions and statements, over the {MAX_TEMPLATE_TAGS:,} "
                            "a page may have")


def too_big(what: str, size: int, limit: int) -> TemplateLimit:
    return TemplateLimit(f"{what} would be {size:,} long, over the limit of {limit:,}")


def need(what: str, size: int, limit: int = MAX_VALUE_CHARS) -> None:
    if size > limit:
        raise too_big(what, size, limit)


def bounded() -> bool:
    """Whether the values built now are checked: always, but inside hitflow's own ``trusted()`` render."""
    return not getattr(_state, "trusted", False)


@contextlib.contextmanager
def trusted() -> Iterator[None]:
    outer = getattr(_state, "trusted", False)
    _state.trusted = True
    try:
        yield
    finally:
        _state.trusted = outer


class _Render:
    """One bounded render: its deadline, the characters it has buffered."""

    def __init__(self) -> None:
        self.end = time.monotonic() + RENDER_DEADLINE_S
        self.buffered = 0
        self.built = 0  # bytes


def count_built(size: int) -> None:
    """``size`` more bytes built by the render, counted whether kept or not."""
    render = current()
    if render is not None:
        render.built += size
        if render.built > MAX_BUILT_BYTES:
            raise TemplateLimit(f"the values the page built together would take {render.built:,} bytes, over the "
                                f"limit of {MAX_BUILT_BYTES:,}")


def current() -> _Render | None:
    return getattr(_state, "render", None) if bounded() else None


@contextlib.contextmanager
def render_deadline() -> Iterator[None]:
    """RENDER_DEADLINE_S for the render in this block (an inner block keeps the outer deadline)."""
    if getattr(_state, "render", None) is not None:
        yield
        return
    _state.render = _Render()
    try:
        yield
    finally:
        _state.render = None


def check_deadline() -> None:
    render = current()
    if render is not None and time.monotonic() > render.end:
        raise RenderTimeout()


def deadline_checked(iterable: Iterable[Any], every: int) -> Iterator[Any]:
    """``iterable``'s items, the render's deadline checked before every ``every``-th (the first included)."""
    for i, item in enumerate(iterable):
        if i % every == 0:
            check_deadline()
        yield item


class Ticking:
    """A ``{% for %}`` loop's iterable, checking the deadline as the loop runs."""

    def __init__(self, iterable: Any):
        self.iterable = iterable

    def __iter__(self) -> Iterator[Any]:
        return deadline_checked(self.iterable, 64)

    def __len__(self) -> int:
        return len(self.iterable)


def ticking(iterable: Any) -> Any:
    return Ticking(iterable) if current() is not None else iterable


class BlockBuffer(list):  # type: ignore[type-arg]
    """The list a macro, a ``{% set %}`` block, a call or filter block writes its output into."""

    size = 0

    def append(self, piece: Any) -> None:
        render = current()
        if render is not None and isinstance(piece, str):
            self.size += len(piece)
            render.buffered += len(piece)
            if self.size > MAX_OUTPUT_CHARS:
                raise too_big("a block of output", self.size, MAX_OUTPUT_CHARS)
            if render.buffered > MAX_BUFFERED_CHARS:
                raise too_big("the blocks of output together", render.buffered, MAX_BUFFERED_CHARS)
        super().append(piece)


def bounded_concat(pieces: Iterable[Any]) -> str:
    """``environment.concat``: a block's pieces joined, at most MAX_OUTPUT_CHARS."""
    if not bounded():
        return "".join(pieces)
    if isinstance(pieces, BlockBuffer):
        joined = "".join(pieces)
        count_built(sys.getsizeof(joined))  # a macro's, a {% set %} block's value: kept as long as its name
        return joined
    return bounded_output(iter(pieces), MAX_OUTPUT_CHARS)


class BoundedRange:
    """``range``, at most MAX_COUNT long, checking the deadline as it is walked (a loop in a loop)."""

    def __init__(self, *args: int):
        self.steps = range(*args)
        need("a range", len(self.steps), MAX_COUNT)

    def __iter__(self) -> Iterator[int]:
        return deadline_checked(self.steps, 1000)

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, index: Any) -> Any:
        return self.steps[index]

    def __contains__(self, value: object) -> bool:
        return value in self.steps

    def __reversed__(self) -> Iterator[int]:
        return reversed(self.steps)


def bounded_lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> Any:
    """Jinja's ``lipsum`` with at most 100 paragraphs of at most 1,000 words."""
    from jinja2.utils import generate_lorem_ipsum

    if n > 100 or max > 1000 or min > 1000:
        raise too_big("lipsum's text (paragraphs x words)", n * max, 100 * 1000)
    return generate_lorem_ipsum(n, html, min, max)


def bounded_output(pieces: Iterator[str], limit: int | None = None) -> str:
    """A template's output pieces joined, refused past ``limit`` (MAX_OUTPUT_CHARS) or the deadline."""
    limit = MAX_OUTPUT_CHARS if limit is None else limit
    out, size = [], 0
    for piece in pieces:
        size += len(piece)
        if size > limit:
            raise too_big("the page" if limit == MAX_OUTPUT_CHARS else "a block of output", size, limit)
        check_deadline()
        out.append(piece)
    return "".join(out)
