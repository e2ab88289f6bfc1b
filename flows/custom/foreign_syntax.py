"""Other platforms' placeholders (MTurk's ``${column}``, Liquid) into hitflow's Jinja, with (line, what to fix)."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from flows.custom.placeholder_places import MARK, UNREAD, Place, has_marks, mark, places

if TYPE_CHECKING:
    import liquid

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# MTurk takes hyphened headers as variables (``${passage-1}``); Jinja needs ``item['passage-1']``, not a subtraction
COLUMN = r"[A-Za-z_][A-Za-z0-9_-]*"
JINJA_OPENERS = re.compile(r"\{\{|\{%|\{#")
# what the converters swap in a marked page: a literal Jinja delimiter, or a mark (with the quotes around it)
PLACED = re.compile(JINJA_OPENERS.pattern + "|(?P<quote>[\"'])?" + MARK.pattern.replace("(", "(?P<mark>", 1)
                    + "(?(quote)(?P=quote))")
DOLLAR = re.compile(r"\$\{\s*(" + COLUMN + r")\s*\}")
# hitflow's own converted expressions: a template of these alone is bounded as written, so it needs no test render
VALUE_REF = r"""(?:item\.[A-Za-z_][A-Za-z0-9_]*|item\['[A-Za-z_][A-Za-z0-9_-]*'\])"""
FILTER_CHAIN = r"""(?![^}]*\b(tojson|forceescape)\b[^}]*\b\1\b)""" \
    r"""(?: \| (?:safe_url|css_value|tojson|forceescape|upper|lower|trim|capitalize)){0,8}"""
# each term ends where a word does: no run of letters or digits splits two ways (no backtracking blow-up)
CONDITION_TERMS = r"""(?:(?:(?:""" + VALUE_REF + r"""|-?\d{1,20}(?:\.\d{1,20})?|and|or|not|true|false|none)""" \
    r"""(?![\w.])|'[^'{}%\\]*'|"[^"{}%\\]*"|[=!<>]=|[<>()])\s*)+"""
HITFLOW_EXPRESSIONS = re.compile(
    r"""\{\{ (?:""" + VALUE_REF + FILTER_CHAIN + r"""|i|'\{[{%#]')"""
    r""" \}\}"""
    r"""|\{% (?:extends "_(?:custom|crowd)_page\.html\.j2"|block (?:item|instructions)|endblock|else|endif|"""
    r"""(?:if|elif) """ + CONDITION_TERMS + r""") %\}|\{#.*?#\}""",
    re.S)


@dataclass
class Converted:
    text: str
    columns: list[str] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set, repr=False)  # the columns': a list's `in` made 300,000 quadratic

    def __post_init__(self) -> None:
        self.seen.update(self.columns)

    def column(self, name: str) -> None:
        if name not in self.seen:
            self.seen.add(name)
            self.columns.append(name)


def only_hitflow_expressions(template: str) -> bool:
    """Whether every Jinja expression, statement and comment of ``template`` is one of :data:`HITFLOW_EXPRESSIONS`."""
    return not JINJA_OPENERS.search(HITFLOW_EXPRESSIONS.sub("", template))


def line_of(source: str, offset: int) -> int:
    return source.count("\n", 0, offset) + 1


def line_finder(source: str) -> Callable[[int], int]:
    """``line_of`` for many offsets by a search in the newlines' offsets (counting per tag took 94 s for 100,000)."""
    newlines = [i for i, c in enumerate(source) if c == "\n"] if "\n" in source else []
    return lambda offset: bisect.bisect_left(newlines, offset) + 1


def _escaped(opener: str) -> str:
    """A literal ``{{``/``{%``/``{#`` of the page, kept as text in Jinja."""
    return "{{ '" + opener + "' }}"


# what a value is read through where it stands: a URL's scheme checked, a style's value one CSS value
PLACE_FILTER = {"url": " | safe_url", "style": " | css_value"}


def item_ref(name: str) -> str:
    """``item.name``, or ``item['name-1']`` for a column Jinja's dot cannot name."""
    return f"item.{name}" if re.fullmatch(NAME, name) else f"item['{name}']"


def dollar_to_jinja(source: str) -> Converted:
    """``${column}`` -> ``{{ item.column }}``, escaped where it stands (else a problem); comments dropped."""
    out, written = Converted(""), []
    spelt: dict[str, str] = {}  # one string per spelling (300,000 "${x}": 16 MB of copies)
    line_at = line_finder(source)

    def marked(m: re.Match[str]) -> str:
        written.append((spelt.setdefault(m.group(0), m.group(0)), m.group(1), line_at(m.start())))
        return mark(len(written) - 1)
    page, found = places(DOLLAR.sub(marked, without_marks(source)), drop_comments=True)

    def swap(m: re.Match[str]) -> str:
        if m.group("mark") is None:
            return _escaped(m.group(0))
        quote, n = m.group("quote") or "", int(m.group("mark"))
        text, name, line = written[n]
        place = found.get(n, UNREAD)
        kind = place.kind
        if kind == "refused":
            out.problems.append((line, f"{text}: {place.why}"))
            return ""
        if kind in ("script-code", "script-inside") or (kind == "script-string" and not quote):
            out.notes.append((line, f"{text} in a script is left as the script's own (a template literal?); for "
                                    f"the item's column write it as a string of its own (\"{text}\"), which "
                                    f"becomes {{{{ {item_ref(name)} | tojson }}}}"))
            return quote + text + quote
        out.column(name)
        if kind == "script-string":  # its quotes taken, as JSON writes its own
            return "{{ " + item_ref(name) + " | tojson }}"
        return quote + "{{ " + item_ref(name) + PLACE_FILTER.get(kind, "") + " }}" + quote
    out.text = PLACED.sub(swap, page)
    return out


def without_marks(source: str) -> str:
    """The page without the noncharacters that mark placeholders (no page shows them)."""
    return source.translate(NO_MARKS) if has_marks(source) or "\ufdd1" in source else source


NO_MARKS = {0xFDD0: 0xFFFD, 0xFDD1: 0xFFFD}


# Liquid (Ground Truth) ---------------------------------------------------------------------------

LIQUID_TAG = re.compile(r"\{%-?\s*comment\s*-?%\}.*?\{%-?\s*endcomment\s*-?%\}|\{\{-?(.*?)-?\}\}|\{%-?(.*?)-?%\}|\{#",
                        re.S)
TASK_INPUT = re.compile(r"\btask\.input\.(" + NAME + r")((?:\.\w+|\[[^\]]*\])*)")
FILTERS = {"escape": "", "escape_once": "", "skip_autoescape": "", "grant_read_access": "safe_url",
           "to_json": "tojson", "upcase": "upper", "downcase": "lower", "strip": "trim", "capitalize": "capitalize"}
CONDITION = re.compile(r"^(if|elsif|unless)\s+(.*)$", re.S)
SAME_TAGS = {"else": "else", "endif": "endif", "endunless": "endif", "raw": "raw", "endraw": "endraw"}


def _liquid_environment() -> liquid.Environment:
    """Liquid with Ground Truth's own filters, so a Ground Truth page parses and renders."""
    import liquid  # here, not above: every run imports this module (~0.12 s), only a Ground Truth page needs Liquid

    env = liquid.Environment()
    env.filters["grant_read_access"] = lambda value: value
    env.filters["skip_autoescape"] = lambda value: value
    env.filters["to_json"] = json.dumps
    return env


def liquid_parse_problem(source: str) -> tuple[int, str] | None:
    """Liquid's own verdict on the page: None, or (line, message) for a page it cannot parse."""
    from liquid.exceptions import LiquidError

    try:
        _liquid_environment().from_string(source)
    except LiquidError as exc:
        at = exc.token.start_index if exc.token is not None else -1
        return (line_of(source, at) if at >= 0 else 1, f"Liquid cannot parse the page: {exc.message}; "
                                                       "fix the tag on that line")
    return None


def liquid_to_jinja(source: str) -> Converted:
    """``{{ task.input.x | f }}`` and ``if``/``unless`` to Jinja (placed: :func:`_liquid_placed`); others named."""
    out = Converted("")
    problem = liquid_parse_problem(source)
    if problem:
        out.problems.append(problem)
        return out

    line_at = line_finder(source)
    written: list[tuple[str, list[str], int]] = []  # (what the page wrote or the Jinja to keep, filters, line)

    def kept(text: str, chain: list[str] | None = None, line: int = 0) -> str:
        written.append((text, chain or [], line))
        return mark(len(written) - 1) if text else ""

    def swap(m: re.Match[str]) -> str:
        line = line_at(m.start())
        if m.group(0).startswith("{%") and m.group(1) is None and m.group(2) is None:
            return ""  # a {% comment %} block
        if m.group(0) == "{#":
            return kept(_escaped("{#"))
        if m.group(1) is not None:
            chain = _liquid_output(m.group(1), line, out)
            return kept(" ".join(m.group(0).split())[:80], chain, line) if chain else ""
        return kept(_liquid_tag(m.group(2).strip(), line, out))
    page, found = places(LIQUID_TAG.sub(swap, without_marks(source)))

    def placed(m: re.Match[str]) -> str:
        if m.group("mark") is None:
            return _escaped(m.group(0))
        quote, (text, chain, line) = m.group("quote") or "", written[int(m.group("mark"))]
        if not chain:
            return quote + text + quote
        return _liquid_placed(text, chain, found.get(int(m.group("mark")), UNREAD), line, out, quote)
    out.text = PLACED.sub(placed, page)
    return out


def _liquid_placed(text: str, chain: list[str], place: Place, line: int, out: Converted, quote: str) -> str:
    """A Liquid output as Jinja in place: JSON re-escaped in an attribute, safe_url in a URL, JSON in a script."""
    kind = place.kind
    if kind == "script-string" and quote and "tojson" not in chain:
        return "{{ " + " | ".join([*chain, "tojson"]) + " }}"
    if kind.startswith("script") and not (kind == "script-code" and chain[-1] == "tojson"):
        where = "inside a string, comment or regular expression" if kind == "script-inside" else "as code"
        out.problems.append((line, f"{text} stands in a script {where}: autoescape cannot keep an item's text "
                                   "from being code there; write it as a whole string of its own (\"{{ task.input."
                                   "x }}\") or as {{ task.input.x | to_json }}"))
        return ""
    if kind == "refused":
        out.problems.append((line, f"{text}: {place.why}"))
        return ""
    if kind == "url" and "safe_url" not in chain:
        chain = [*chain, "safe_url"]
    if kind == "style":  # the value last, as the style reads it
        chain = [*chain, "css_value"]
    last_json = max((i for i, f in enumerate(chain) if f == "tojson"), default=-1)
    if kind in ("attribute", "url") and last_json >= 0 and chain[-1] != "safe_url" and \
            "forceescape" not in chain[last_json:]:
        chain = [*chain, "forceescape"]
    return quote + "{{ " + " | ".join(chain) + " }}" + quote


def _task_input(expr: str, line: int, out: Converted) -> str:
    def swap(m: re.Match[str]) -> str:
        if m.group(2):
            out.problems.append((line, f"task.input.{m.group(1)}{m.group(2)} reads inside a value; an item file "
                                       f"column is flat text: make {m.group(1)}_... columns of their own"))
        out.column(m.group(1))
        return f"item.{m.group(1)}"
    return TASK_INPUT.sub(swap, expr)


def _liquid_output(expr: str, line: int, out: Converted) -> list[str]:
    value, *filters = [p.strip() for p in expr.split("|")]
    if not TASK_INPUT.fullmatch(value):
        out.problems.append((line, f"{{{{ {expr.strip()} }}}} reads {value!r}, not task.input.<column>; "
                                   "hitflow gives a page only its item's columns"))
        return []
    jinja = [_task_input(value, line, out)]
    names = [f.split(":")[0].strip() for f in filters]
    for name in names:
        if name not in FILTERS:
            out.problems.append((line, f"Liquid filter {name!r} has no hitflow counterpart; drop it or compute the "
                                       "value into an item column"))
        elif FILTERS[name]:
            jinja.append(FILTERS[name])
    if "tojson" in jinja and "escape" in names:
        jinja.append("forceescape")  # JSON in an attribute: its quotes escaped as Liquid's escape does
    return jinja


def _liquid_tag(body: str, line: int, out: Converted) -> str:
    word = body.split(None, 1)[0] if body else ""
    if word in SAME_TAGS:
        return "{% " + SAME_TAGS[word] + " %}"
    m = CONDITION.match(body)
    if m and " contains " not in f" {m.group(2)} ":
        condition = _task_input(m.group(2), line, out)
        head = {"if": "if", "elsif": "elif", "unless": "if not"}[m.group(1)]
        return "{% " + head + " " + (f"({condition})" if m.group(1) == "unless" else condition) + " %}"
    out.problems.append((line, f"Liquid tag {{% {body} %}} has no hitflow counterpart; hitflow shows one item "
                               "per page with flat columns: rewrite it with if/else on item columns"))
    return ""


def jinja_columns(source: str) -> list[str]:
    """The item columns a hitflow Jinja page reads (``item.x`` / ``item['x']``), in order of use."""
    found = re.findall(r"\bitem\.(" + NAME + r")|\bitem\[\s*[\"'](" + COLUMN + r")[\"']\s*\]", source)
    return list(dict.fromkeys(a or b for a, b in found if (a or b) != "item_id"))

