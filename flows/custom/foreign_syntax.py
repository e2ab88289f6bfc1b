"""Other platforms' placeholders, turned into hitflow's Jinja (``hitflow new NAME --from PAGE``).

- MTurk's requester UI: ``${column}`` is replaced by the batch CSV's value for each HIT
  (MTurk's "Create a project" guide, "Customize the HIT template with variables").
- SageMaker Ground Truth: Liquid, with each item as ``task.input`` (``{{ task.input.source }}``)
  and Ground Truth's filters ``grant_read_access``, ``to_json``, ``skip_autoescape`` and
  ``escape`` (Ground Truth developer guide, "Creating a custom worker task template").
  python-liquid parses the page first, so a page Liquid itself refuses is named with its line.

Each converter returns the Jinja text, the item columns the page reads (in order of first use)
and problems ``(line, what and how to fix it)``; a page with problems is not written.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import liquid
from liquid.exceptions import LiquidError

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# MTurk's requester UI takes a CSV header with hyphens as a variable (``${passage-1}``); Jinja reads
# such a column as ``item['passage-1']`` (``item.passage-1`` would be a subtraction)
COLUMN = r"[A-Za-z_][A-Za-z0-9_-]*"
JINJA_OPENERS = re.compile(r"\{\{|\{%|\{#")
DOLLAR = re.compile(r"\$\{\s*(" + COLUMN + r")\s*\}")
SCRIPT = re.compile(r"(<script\b[^>]*>)(.*?)(</script\s*>)", re.S | re.I)
# "inside a URL attribute's value", read backwards from the placeholder: the value's run of characters
# (no quote, bracket or space), then the attribute's name and "=". Anchored matches cost the run's length,
# where a forward search ending in $ tried every start in its 300-character window (300,000
# placeholders: most of the conversion's time, issue 55)
VALUE_RUN = re.compile(r"[^\"'<>\s]*")
URL_ATTR_BACKWARDS = re.compile(r"[\"']?\s*=\s*(?:crs|ferh|noitca|retsop|crs-atad)(?!\w)", re.I)
# The expressions hitflow writes as it converts a page (a placeholder, a renamed field's index, a literal
# Jinja delimiter, the frame of template_text): each outputs an item's value, the index or two
# characters. A template holding no other is bounded as written and needs no render to show it.
HITFLOW_EXPRESSIONS = re.compile(
    r"""\{\{ (?:item\.[A-Za-z_][A-Za-z0-9_]*|item\['[A-Za-z_][A-Za-z0-9_-]*'\]|i|'\{[{%#]')"""
    r"""(?: \| (?:safe_url|tojson))? \}\}"""
    r"""|\{% (?:extends "_(?:custom|crowd)_page\.html\.j2"|block (?:item|instructions)|endblock) %\}|\{#.*?#\}""",
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
    """Whether every Jinja expression, statement and comment of ``template`` is one hitflow writes
    (:data:`HITFLOW_EXPRESSIONS`); removing them leaves no delimiter a page's own would show."""
    return not JINJA_OPENERS.search(HITFLOW_EXPRESSIONS.sub("", template))


def in_url_attribute(before: str) -> bool:
    """Whether text ending in ``before`` is inside a URL attribute's value (src, href, action...)."""
    backwards = before[::-1]
    run = VALUE_RUN.match(backwards)
    end = run.end() if run else 0  # the run may be empty, so it always matches
    if URL_ATTR_BACKWARDS.match(backwards, end):
        return True
    at = backwards.find("=", 0, end)  # a value may hold "=": it may also start after one inside the run
    while at >= 0:
        if URL_ATTR_BACKWARDS.match(backwards, at):
            return True
        at = backwards.find("=", at + 1, end)
    return False


def line_of(source: str, offset: int) -> int:
    return source.count("\n", 0, offset) + 1


def line_finder(source: str) -> Callable[[int], int]:
    """``line_of`` for many offsets into one page: counting from the start for each of 100,000 Liquid
    tags on one line took 94 s (issue 41); a search in the newlines' offsets takes microseconds."""
    newlines = [i for i, c in enumerate(source) if c == "\n"] if "\n" in source else []
    return lambda offset: bisect.bisect_left(newlines, offset) + 1


def _escaped(opener: str) -> str:
    """A literal ``{{``/``{%``/``{#`` of the page, kept as text in Jinja."""
    return "{{ '" + opener + "' }}"


def item_ref(name: str) -> str:
    """``item.name``, or ``item['name-1']`` for a column Jinja's dot cannot name."""
    return f"item.{name}" if re.fullmatch(NAME, name) else f"item['{name}']"


def _item_expr(name: str, in_url: bool) -> str:
    return "{{ " + item_ref(name) + (" | safe_url }}" if in_url else " }}")


def dollar_to_jinja(source: str) -> Converted:
    """``${column}`` -> ``{{ item.column }}`` (``| safe_url`` in a URL attribute, ``| tojson`` for a
    quoted string in a script); literal Jinja delimiters are kept as text."""
    out = Converted("")
    parts, pos = [], 0
    for script in SCRIPT.finditer(source):
        parts.append(_dollar_html(source, pos, script.start(), out))
        parts.append(script.group(1))
        parts.append(_dollar_script(source, script.start(2), script.end(2), out))
        parts.append(script.group(3))
        pos = script.end()
    parts.append(_dollar_html(source, pos, len(source), out))
    out.text = "".join(parts)
    return out


def _dollar_html(source: str, start: int, end: int, out: Converted) -> str:
    pattern = re.compile(r"<!--.*?-->|" + JINJA_OPENERS.pattern + "|" + DOLLAR.pattern, re.S)

    def swap(m: re.Match[str]) -> str:
        if m.group(0).startswith("<!--"):
            return ""  # a comment: what it mentions is not a column (and shows nobody anything)
        if m.group(1) is None:
            return _escaped(m.group(0))
        out.column(m.group(1))
        at = start + m.start()  # m is in the slice; the text before it is looked up in the whole page
        return _item_expr(m.group(1), in_url_attribute(source[max(0, at - 300):at]))
    return pattern.sub(swap, source[start:end]) if start < end else ""


def _dollar_script(source: str, start: int, end: int, out: Converted) -> str:
    """In a script MTurk pastes the value raw; hitflow writes a quoted one as a JSON string. A bare
    ``${x}`` may be the script's own template literal: left alone, with a note."""
    quoted = re.compile(JINJA_OPENERS.pattern + r"|([\"'])" + DOLLAR.pattern + r"\1|" + DOLLAR.pattern)

    def swap(m: re.Match[str]) -> str:
        if m.group(2):
            out.column(m.group(2))
            return "{{ " + item_ref(m.group(2)) + " | tojson }}"
        if m.group(3):
            out.notes.append((line_of(source, start + m.start()),
                              f"${{{m.group(3)}}} in a script is left as the script's own (a template literal?); "
                              f"for the item's column write {{{{ {item_ref(m.group(3))} | tojson }}}}"))
            return m.group(0)
        return _escaped(m.group(0))
    return quoted.sub(swap, source[start:end])


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
    env = liquid.Environment()
    env.filters["grant_read_access"] = lambda value: value
    env.filters["skip_autoescape"] = lambda value: value
    env.filters["to_json"] = json.dumps
    return env


def liquid_parse_problem(source: str) -> tuple[int, str] | None:
    """Liquid's own verdict on the page: None, or (line, message) for a page it cannot parse."""
    try:
        _liquid_environment().from_string(source)
    except LiquidError as exc:
        at = exc.token.start_index if exc.token is not None else -1
        return (line_of(source, at) if at >= 0 else 1, f"Liquid cannot parse the page: {exc.message}; "
                                                       "fix the tag on that line")
    return None


def render_liquid(source: str, item: dict[str, str]) -> str:
    """The page as Ground Truth's Liquid would show ``item`` (tests compare the conversion with it).
    An empty cell is a key the item does not have (nil, falsy in Liquid, where "" is truthy), as
    hitflow's Jinja treats an empty column as false."""
    return _liquid_environment().from_string(source).render(task={"input": {k: v for k, v in item.items() if v}})


def liquid_to_jinja(source: str) -> Converted:
    """``{{ task.input.x | filter }}`` and ``if``/``unless`` tags into Jinja; other tags named."""
    out = Converted("")
    problem = liquid_parse_problem(source)
    if problem:
        out.problems.append(problem)
        return out

    line_at = line_finder(source)

    def swap(m: re.Match[str]) -> str:
        line = line_at(m.start())
        if m.group(0).startswith("{%") and m.group(1) is None and m.group(2) is None:
            return ""  # a {% comment %} block
        if m.group(0) == "{#":
            return _escaped("{#")
        if m.group(1) is not None:
            return _liquid_output(m.group(1), line, out)
        return _liquid_tag(m.group(2).strip(), line, out)
    out.text = LIQUID_TAG.sub(swap, source)
    return out


def _task_input(expr: str, line: int, out: Converted) -> str:
    def swap(m: re.Match[str]) -> str:
        if m.group(2):
            out.problems.append((line, f"task.input.{m.group(1)}{m.group(2)} reads inside a value; an item file "
                                       f"column is flat text: make {m.group(1)}_... columns of their own"))
        out.column(m.group(1))
        return f"item.{m.group(1)}"
    return TASK_INPUT.sub(swap, expr)


def _liquid_output(expr: str, line: int, out: Converted) -> str:
    value, *filters = [p.strip() for p in expr.split("|")]
    if not TASK_INPUT.fullmatch(value):
        out.problems.append((line, f"{{{{ {expr.strip()} }}}} reads {value!r}, not task.input.<column>; "
                                   "hitflow gives a page only its item's columns"))
        return ""
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
    return "{{ " + " | ".join(jinja) + " }}"


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

