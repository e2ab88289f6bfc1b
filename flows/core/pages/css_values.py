"""What an item may give a page's ``style=`` attribute: a value of one declaration, never CSS of its own."""

from __future__ import annotations

import re
from collections.abc import Iterable

NUMBER = r"[+-]?(?:\d{1,12}(?:\.\d{1,12})?|\.\d{1,12})"
UNITS = r"px|em|rem|%|vh|vw|vmin|vmax|ch|ex|pt|pc|cm|mm|in|q|deg|rad|grad|turn|s|ms|fr|dpi|dppx|x"
HEX = r"#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})"
ARGUMENT = NUMBER + r"(?:%|deg|turn|rad)?"
COLOUR_FUNCTION = r"(?:rgba?|hsla?)\(\s*" + ARGUMENT + r"(?:\s*[,/]?\s*" + ARGUMENT + r"){2,3}\s*\)"
WORD = r"[a-z0-9][a-z0-9-]{0,39}"  # a keyword or colour name (bold, sans-serif, teal), or hex digits after a '#'
TOKEN = f"(?:{HEX}|{COLOUR_FUNCTION}|{NUMBER}(?:{UNITS})?|{WORD})"
CSS_VALUE = re.compile(rf"{TOKEN}(?:(?:\s*,\s*|\s+){TOKEN}){{0,7}}", re.I)
ALLOWED = ("a colour (#f4c542, rgb(244, 197, 66), teal), a number with its unit (12px, 1.5em, 40%) or a plain word "
           "(bold, sans-serif)")
# an item's column read through the filter in a template: {{ item.x | css_value }}, item['x-1'] too
STYLED = re.compile(r"""\{\{-?\s*item(?:\.(\w+)|\[\s*["']([\w-]+)["']\s*\])"""
                    r"""(?:\s*\|\s*\w+)*\s*\|\s*css_value\s*-?\}\}""")


def css_value(value: object) -> str:
    """``value`` if it is one CSS value an item may give a style (a colour, a length, a word), else ""."""
    text = str(value).strip()
    return text if len(text) <= 200 and CSS_VALUE.fullmatch(text) else ""


def style_place_problem(css: str, start: int, end: int) -> str:
    """Why an item's text at ``css[start:end]`` (a style attribute's value) could be more than a declaration's
    value, or "": it must follow a property's colon, outside any string, comment, escape or brackets."""
    if "\\" in css:
        return "the style holds a CSS escape (\\), which could join the page's text and the item's; write it " \
               "without escapes"
    quote, depth, declaration, at = "", 0, 0, 0
    while at < start:
        c = css[at]
        if quote:
            quote = "" if c == quote else quote
        elif css.startswith("/*", at):
            close = css.find("*/", at + 2)
            if close < 0 or close + 2 > start:
                return "it would be inside a CSS comment; move it out of the comment"
            at = close + 1
        elif c in "\"'":
            quote = c
        elif c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif c == ";" and depth == 0:
            declaration = at + 1
        at += 1
    if quote or depth:
        return "it would be inside a CSS string or brackets (url(), calc()...) and read as more than a value; " \
               "give a declaration's whole value (background: ${x})"
    if ":" not in css[declaration:start] or "{" in css or "}" in css:
        return "it would name a property instead of following one's colon; an item may give a declaration's " \
               "value only (background: ${x})"
    if css[end:].lstrip().startswith("("):
        return "a ( follows it, so the item's word would name a CSS function; give a declaration's whole value " \
               "(background: ${x})"
    return ""


def css_value_problems(rows: Iterable[dict[str, str]], template: str, where: str, most: int = 5) -> list[str]:
    """One line per styled column whose values are not all CSS values an item may give, naming its first items."""
    columns = list(dict.fromkeys(a or b for a, b in STYLED.findall(template)))  # through css_value, in order of use
    bad: dict[str, list[str]] = {c: [] for c in columns}
    for row in rows:
        for column in columns:
            value = str(row.get(column, "") or "")
            if value.strip() and not css_value(value):
                bad[column].append(f"{row.get('item_id') or row.get('image_id')} ({value[:40]!r})")
    return [f"{where}: column {column!r} is shown in the page's style=, but {len(items)} item(s) give it a value "
            f"that is not one CSS value: {', '.join(items[:most])}{' ...' if len(items) > most else ''}; "
            f"give each {ALLOWED}, or the page shows none there"
            for column, items in bad.items() if items]
