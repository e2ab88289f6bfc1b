"""Shared pieces of the hostile-input suites (tests/test_fuzz_*.py): strategies and the one-line check."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from flows.core.errors import HitflowError

# deadline=None: the machine is shared; bounded examples keep the suites fast
FUZZ = settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.function_scoped_fixture])

FORMULAS = ["=1+2", "+SUM(A1:A2)", "-2+3", "@SUM(1)", "=HYPERLINK(\"http://evil\",\"x\")", "\t=1", "\r=1",
            "=cmd|' /C calc'!A0"]
MARKUP = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "]]>", "&amp;", "<![CDATA[x]]>"]
NASTY = ["\ufeff", "\x00", "\x0b", "\r\n", "\n", "\"", "\"\"", ",", "\t", "\u2028", "\ud800", "😀", "é", "\x1b[31m"]

hostile_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(FORMULAS + MARKUP + NASTY),
    st.lists(st.sampled_from(FORMULAS + MARKUP + NASTY + ["a", " ", "word"]), max_size=6).map("".join),
)
toml_scalar = st.one_of(
    st.booleans(), st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True), hostile_text,
    st.sampled_from(["NaN", "Infinity", "-1", "1e9", "0.555", "400.00 USD", "400 XYZ", "", "0.55"]),
)
toml_value = st.recursive(toml_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                                st.dictionaries(st.text(max_size=8), inner,
                                                                                max_size=3)),
                          max_leaves=6)


def toml_literal(value: Any) -> str:
    """A TOML literal for ``value`` (strings as basic strings with JSON-like escapes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return '"' + "".join(_char(c) for c in value) + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    return "{" + ", ".join(f"{toml_literal(str(k))} = {toml_literal(v)}" for k, v in value.items()) + "}"


def _char(c: str) -> str:
    if c in '"\\':
        return "\\" + c
    return c if c.isprintable() and c not in "\u2028\u2029" else f"\\U{ord(c):08x}"


def toml_document(data: dict[str, Any]) -> str:
    lines = []
    for section, table in sorted(data.items(), key=lambda kv: isinstance(kv[1], dict)):  # bare keys first
        if not isinstance(table, dict):
            lines.append(f"{toml_literal(section)} = {toml_literal(table)}")
            continue
        lines.append(f"[{toml_literal(section)}]")
        lines += [f"{toml_literal(str(k))} = {toml_literal(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def assert_one_line(exc: HitflowError, exit_code: int) -> str:
    message = str(exc)
    assert exc.exit_code == exit_code, message
    assert "\n" not in message and "\r" not in message and len(message) < 2000, message[:300]
    assert "Traceback" not in message
    return message
