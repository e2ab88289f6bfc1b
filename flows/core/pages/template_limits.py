"""Bounds on what a template's expressions may build: a user's own task page (or one imported by
``hitflow new --from``, kept word for word) renders in the one environment, and ``{{ 'a'*10**9 }}``,
``{{ ''.join(['a']*10**8) }}``, ``{{ 'x'|center(10**9) }}`` or ``{{ lipsum(10**6) }}`` took gigabytes
or minutes there. Each is refused (:class:`TemplateLimit`) before it allocates:

- repetition (``*`` on a string or list), ``**``, and ``%`` formatting whose result would exceed
  MAX_VALUE_CHARS or MAX_POWER_BITS;
- a call on a string, list or the globals (``center``, ``ljust``, ``zfill``, ``format``, ``lipsum``,
  ``range``...) with a count or width over MAX_COUNT, and the same for the filters that repeat;
- a ``namespace`` value over MAX_VALUE_CHARS (it is how a loop could double a string);
- the page's output over MAX_OUTPUT_CHARS, and a render past RENDER_DEADLINE_S (checked in every
  call, every ``range`` step and every piece of output, and by a timer in the main thread).
"""

from __future__ import annotations

import contextlib
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from jinja2.sandbox import SecurityError
from jinja2.utils import Namespace

MAX_VALUE_CHARS = 1_000_000  # one value a page may build (a string, a list)
MAX_OUTPUT_CHARS = 16 * 2**20  # the page limit (flows/custom/page_fetch.py)
MAX_COUNT = 100_000  # a width, a count or a range a call may ask for
MAX_POWER_BITS = 100_000
RENDER_DEADLINE_S = 10.0
_deadline = threading.local()


class TemplateLimit(SecurityError):
    """An expression asked for more than a page may build, or the page took too long."""


def check_deadline() -> None:
    end = getattr(_deadline, "end", None)
    if end is not None and time.monotonic() > end:
        raise TemplateLimit(f"the page took more than {RENDER_DEADLINE_S:.0f} s to render")


def _too_big(what: str, size: int, limit: int) -> TemplateLimit:
    return TemplateLimit(f"{what} would be {size:,} long, over the limit of {limit:,}")


def bounded_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse ``left <operator> right`` when its result would be too big; else return (Jinja computes it)."""
    check_deadline()
    if operator == "*":
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, str | bytes | list | tuple) and isinstance(n, int) and len(seq) * n > MAX_VALUE_CHARS:
                raise _too_big("a repeated value", len(seq) * n, MAX_VALUE_CHARS)
    if operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and \
            (right > MAX_POWER_BITS or left.bit_length() * right > MAX_POWER_BITS):
            raise _too_big("a power (in bits)", left.bit_length() * max(right, 0), MAX_POWER_BITS)
    if operator == "%" and isinstance(left, str):
        bounded_format(left, right if isinstance(right, tuple) else (right,))


PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(\*|\d+)?(?:\.(\*|\d+))?")
BRACE_SPEC = re.compile(r"\{[^{}]*?:([^{}]*)\}")
NESTED_SPEC = re.compile(r"\{[^{}]*:[^{}]*\{")  # {:>{width}}: the width comes from the arguments


def bounded_format(text: str, args: tuple[Any, ...]) -> None:
    """Refuse a ``%`` or ``str.format`` template whose field widths or precisions exceed MAX_COUNT."""
    specs = [g for m in PERCENT_SPEC.finditer(text) for g in m.groups() if g]
    widths = [int(g) for g in specs if g.isdigit()]
    widths += [int(d) for m in BRACE_SPEC.finditer(text) for d in re.findall(r"\d+", m.group(1))]
    if "*" in specs or NESTED_SPEC.search(text):
        widths += [a for a in args if isinstance(a, int) and not isinstance(a, bool)]
    if widths and max(widths) > MAX_COUNT:
        raise _too_big("a formatted field", max(widths), MAX_COUNT)


def bounded_call(obj: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse a call that asks a string, a list or a global for a count or width over MAX_COUNT."""
    check_deadline()
    owner = getattr(obj, "__self__", None)
    if not isinstance(owner, str | bytes | list | tuple | dict) and getattr(obj, "__name__", "") not in BOUNDED_GLOBALS:
        return
    counts = [a for a in (*args, *kwargs.values()) if isinstance(a, int) and not isinstance(a, bool)]
    if counts and max(counts) > MAX_COUNT:
        raise _too_big(f"{getattr(obj, '__name__', 'a call')}'s count", max(counts), MAX_COUNT)
    if isinstance(owner, str) and getattr(obj, "__name__", "") == "join":
        _bounded_join(owner, args[0] if args else ())


def _bounded_join(separator: str, parts: Any) -> None:
    if isinstance(parts, list | tuple):
        size = sum(len(p) for p in parts if isinstance(p, str)) + len(separator) * len(parts)
        if size > MAX_VALUE_CHARS:
            raise _too_big("a joined value", size, MAX_VALUE_CHARS)


BOUNDED_GLOBALS = ("generate_lorem_ipsum", "lipsum", "safe_range", "range", "cycler", "joiner")


def bounded_filter(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    """Jinja's filter ``name`` with its counts and widths bounded, and its result's size."""

    skip = 1 if getattr(original, "jinja_pass_arg", None) else 0  # its context comes first

    def bounded(*args: Any, **kwargs: Any) -> Any:
        check_deadline()
        value, rest = (args[skip] if len(args) > skip else None), args[skip + 1:]
        counts = [a for a in (*rest, *kwargs.values()) if isinstance(a, int) and not isinstance(a, bool)]
        if counts and max(counts) > MAX_COUNT:
            raise _too_big(f"the {name} filter's count", max(counts), MAX_COUNT)
        if name == "replace" and len(rest) >= 2 and len(str(value)) * max(1, len(str(rest[1]))) > MAX_VALUE_CHARS:
            raise _too_big("a replaced value", len(str(value)) * len(str(rest[1])), MAX_VALUE_CHARS)
        if name == "format":
            bounded_format(str(value), tuple(rest) + tuple(kwargs.values()))
        if name == "join" and isinstance(value, list | tuple):
            _bounded_join(str(rest[0]) if rest else "", value)
        return original(*args, **kwargs)

    bounded.__dict__.update(original.__dict__)  # jinja's pass_context/pass_environment marks
    return bounded


BOUNDED_FILTERS = ("center", "indent", "format", "replace", "batch", "slice", "wordwrap", "truncate", "join",
                   "filesizeformat", "round", "random")


class BoundedNamespace(Namespace):
    """``namespace()``, whose values stay under MAX_VALUE_CHARS: ``{% set ns.x = ns.x ~ ns.x %}`` in a
    loop doubled a string 30 times."""

    def __setitem__(self, name: str, value: Any) -> None:
        check_deadline()
        if isinstance(value, str | list | tuple) and len(value) > MAX_VALUE_CHARS:
            raise _too_big("a namespace value", len(value), MAX_VALUE_CHARS)
        super().__setitem__(name, value)


class BoundedRange:
    """``range``, at most MAX_COUNT long, checking the deadline as it is walked (a loop in a loop)."""

    def __init__(self, *args: int):
        self.steps = range(*args)
        if len(self.steps) > MAX_COUNT:
            raise _too_big("a range", len(self.steps), MAX_COUNT)

    def __iter__(self) -> Iterator[int]:
        for i, value in enumerate(self.steps):
            if i % 1000 == 0:
                check_deadline()
            yield value

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
        raise _too_big("lipsum's text (paragraphs x words)", n * max, 100 * 1000)
    return generate_lorem_ipsum(n, html, min, max)


def bounded_output(pieces: Iterator[str]) -> str:
    """A template's output pieces joined, refused past MAX_OUTPUT_CHARS or the deadline."""
    out, size = [], 0
    for piece in pieces:
        size += len(piece)
        if size > MAX_OUTPUT_CHARS:
            raise _too_big("the page", size, MAX_OUTPUT_CHARS)
        check_deadline()
        out.append(piece)
    return "".join(out)


@contextlib.contextmanager
def render_deadline() -> Iterator[None]:
    """RENDER_DEADLINE_S for the render in this block: checked by the hooks above, and in the main thread
    by a timer as well (it stops a loop that calls nothing, e.g. over a long string, in a loop)."""
    outer = getattr(_deadline, "end", None)
    _deadline.end = time.monotonic() + RENDER_DEADLINE_S if outer is None else outer
    timer = outer is None and threading.current_thread() is threading.main_thread() and \
        signal.getitimer(signal.ITIMER_REAL)[0] == 0 and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
    if timer:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, RENDER_DEADLINE_S)
    try:
        yield
    finally:
        if timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
        _deadline.end = outer


def _alarm(signum: int, frame: Any) -> None:
    raise TemplateLimit(f"the page took more than {RENDER_DEADLINE_S:.0f} s to render")
