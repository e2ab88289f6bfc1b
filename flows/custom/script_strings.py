"""Where a placeholder stands in a page's script (a small JS lexer): only a whole string literal is safe to fill."""

from __future__ import annotations

import re

# JavaScript tokens enough to tell strings, templates, comments and regexes from code; unterminated ones run to the end.
TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n\r\u2028\u2029]*|/\*.*?(?:\*/|\Z))
  | (?P<string>'(?:[^'\\\n\r]|\\.)*(?:'|$)|"(?:[^"\\\n\r]|\\.)*(?:"|$))
  | (?P<template>`(?:[^`\\]|\\.)*(?:`|\Z))
  | (?P<word>[\w$\ufdd0\ufdd1]+)
  | (?P<open>\()
  | (?P<close>[)\]}])
  | (?P<slash>/)
  | (?P<other>.)
""", re.S | re.X | re.M)
REGEX_BODY = re.compile(r"(?:[^/\\\n\r\[]|\\.|\[(?:[^\]\\\n\r]|\\.)*\])+/[A-Za-z]*")
# after these words a "/" starts a regular expression, not a division
REGEX_AFTER_WORDS = frozenset(("return", "typeof", "case", "do", "else", "in", "instanceof", "new", "delete",
                               "void", "throw", "yield", "await", "of"))
# a "/" after the ")" of their condition starts a regular expression too (``if (a) /x/.test(b)``)
CONDITION_WORDS = frozenset(("if", "while", "for", "with"))


def script_places(code: str, mark: re.Pattern[str]) -> dict[int, str]:
    """Per placeholder mark in ``code``: "string" (whole literal), "code" (code or template literal) or "inside"."""
    places: dict[int, str] = {}
    pos, regex_may_follow, previous = 0, True, ""
    conditions: list[bool] = []  # for each open "(": whether it holds an if/while/for/with condition
    while pos < len(code):
        m = TOKEN.match(code, pos)
        assert m is not None  # "other" takes any character
        kind, text = m.lastgroup or "", m.group(0)
        if kind == "slash" and regex_may_follow and (body := REGEX_BODY.match(code, m.end())):
            kind, text = "regex", code[pos:body.end()]
        _place_marks(kind, text, mark, places)
        if kind not in ("space", "comment"):
            regex_may_follow = _regex_may_follow(kind, text, previous, conditions)
            previous = text
        pos += len(text)
    return places


def _regex_may_follow(kind: str, text: str, previous: str, conditions: list[bool]) -> bool:
    """Whether a "/" after this token starts a regex: after an operator, keyword, "}" or a condition's ")"."""
    if kind == "open":
        conditions.append(previous in CONDITION_WORDS)
        return True
    if text == ")":
        return conditions.pop() if conditions else False
    return text == "}" or kind in ("other", "slash") or (kind == "word" and text in REGEX_AFTER_WORDS)


def _place_marks(kind: str, text: str, mark: re.Pattern[str], places: dict[int, str]) -> None:
    for m in mark.finditer(text):
        if kind == "string" and len(text) >= 2 and text[0] == text[-1] and m.group(0) == text[1:-1]:
            places[int(m.group(1))] = "string"
        elif kind in ("word", "other", "close", "template"):
            places[int(m.group(1))] = "code"
        else:
            places[int(m.group(1))] = "inside"
