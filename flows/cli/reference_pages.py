"""The docs' generated reference pages (config keys, commands) as Markdown, put in by MkDocs."""

from __future__ import annotations

import argparse
import json
import types
from decimal import Decimal
from enum import Enum
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from flows.cli.help import ALWAYS, COMMANDS, EXIT_CODES, command_path, subcommands
from flows.cli.parser import _parser
from flows.core.config.config_schema import ConfigFile

CONFIG_MARK = "<!-- generated: config keys -->"
COMMANDS_MARK = "<!-- generated: commands -->"
EXIT_CODES_MARK = "<!-- generated: exit codes -->"


def config_markdown() -> str:
    """One table per section: key, type (with bounds), default, description."""
    parts = []
    for name, section in ConfigFile.model_fields.items():  # in the schema's order
        model = _section_model(section)
        optional = "required" if section.is_required() else "optional"
        parts += [f"## `[{name}]`", "", f"{section.description} ({optional} section).", "",
                  "| key | type | default | description |", "|---|---|---|---|"]
        for key, field in model.model_fields.items():
            parts.append(f"| `{key}` | {_cell(type_text(field))} | {_cell(default_text(field))} | "
                         f"{_cell(field.description or '')} |")
        parts.append("")
    return "\n".join(parts)


def _section_model(field: FieldInfo) -> type[BaseModel]:
    for candidate in (field.annotation, *get_args(field.annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    raise TypeError(f"a config section that is not a model: {field.annotation}")


def type_text(field: FieldInfo) -> str:
    """``int`` with ``ge=1, le=1000`` -> ``integer, 1 to 1000``."""
    text = _type_name(field.annotation)
    bounds = {name: getattr(m, name.lower()) for m in field.metadata for name in ("Ge", "Gt", "Le", "Lt")
              if type(m).__name__ == name}
    low = bounds.get("Ge", bounds.get("Gt"))
    high = bounds.get("Le", bounds.get("Lt"))
    if low is not None and high is not None:
        return f"{text}, {_number(low)} to {_number(high)}" + (" (above the low end)" if "Gt" in bounds else "")
    if low is not None:
        return f"{text}, {'above' if 'Gt' in bounds else 'at least'} {_number(low)}"
    if high is not None:
        return f"{text}, at most {_number(high)}"
    return text


def _number(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and abs(value) >= 10000 else str(value)


def _type_name(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return " or ".join(f'`{json.dumps(a)}`' for a in args)
    if origin in (Union, types.UnionType):
        named = [_type_name(a) for a in args if a is not type(None)]
        return " or ".join(named) + (" (or unset)" if type(None) in args else "")
    if origin is list:
        return f"list of {_type_name(args[0])}"
    if origin is dict:
        return f"table of {_type_name(args[0])} to {_type_name(args[1])}"
    if get_args(annotation) and hasattr(annotation, "__metadata__"):  # Annotated inside a list or dict
        return _type_name(args[0])
    names = {bool: "true/false", int: "integer", float: "number", str: "text", Decimal: 'amount, quoted ("0.55")'}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def default_text(field: FieldInfo) -> str:
    """The default as it would be written in the TOML file, or "required"."""
    if field.is_required():
        return "required"
    value = field.default_factory() if field.default_factory is not None else field.default  # type: ignore[call-arg]
    return "unset" if value is None else f"`{_toml(value)}`"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return f'"{value}"'
    if isinstance(value, Enum):
        return json.dumps(value.value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value) if isinstance(value, str) else str(value)


def _cell(text: str) -> str:
    """Table-cell safe: a | would end the cell, <name> would be read as an HTML tag."""
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;")


def commands_markdown() -> str:
    """Every command: what it does, its usage, options, examples and exit codes."""
    parts: list[str] = []
    for parser in all_commands(_parser())[1:]:
        path = command_path(parser)
        examples, codes = COMMANDS[path]
        parts += [f"## `hitflow {path}`", "", _help_of(parser), "", "```text", parser.format_usage().strip(), "```", ""]
        rows = option_rows(parser)
        if rows:
            parts += ["| argument | default | what it does |", "|---|---|---|"]
            parts += [f"| `{flag}` | {_cell(default)} | {_cell(text)} |" for flag, default, text in rows]
            parts.append("")
        own = (parser.epilog or "").split("examples:")[0].strip()
        if own:
            parts += ["```text", own, "```", ""]
        parts += ["Examples:", "", "```sh", *examples, "```", "",
                  f"Exit codes: {', '.join(map(str, sorted({*ALWAYS, *codes})))} ([what they mean](#exit-codes)).", ""]
    return "\n".join(parts)


def all_commands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and every (sub)command under it, depth first."""
    found = [parser]
    for sub in subcommands(parser):
        found += all_commands(sub)
    return found


def _help_of(parser: argparse.ArgumentParser) -> str:
    """The one-line help the parent command gave ``parser``."""
    for parent in all_commands(_parser()):
        for action in parent._actions:
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    if f"{parent.prog} {choice.dest}" == parser.prog:
                        text = choice.help or ""
                        return text[:1].upper() + text[1:] + "."
    return ""


def option_rows(parser: argparse.ArgumentParser) -> list[tuple[str, str, str]]:
    """(flags or metavar, default, help) for every argument but -h and the subcommand choice."""
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        choices = "{" + ",".join(map(str, action.choices)) + "}" if action.choices else ""
        flag = "`, `".join(action.option_strings) or str(action.metavar or action.dest)  # each flag its own code span
        if action.option_strings and action.nargs != 0:
            flag += f" {action.metavar or choices or action.dest.upper()}"
        elif choices:
            flag += f" {choices}"
        shown = "" if action.default in (None, "", False, [], argparse.SUPPRESS) or action.required else \
            f"`{action.default}`"
        rows.append((_cell(str(flag)), shown, action.help or ""))
    return rows


def render(markdown: str) -> str:
    """Fill a page's generated parts (the hook calls this for every page)."""
    for mark, make in ((CONFIG_MARK, config_markdown), (COMMANDS_MARK, commands_markdown),
                       (EXIT_CODES_MARK, lambda: "\n".join(["| code | meaning |", "|---|---|", *(
                           f"| {code} | {_cell(text)} |" for code, text in EXIT_CODES.items()), ""]))):
        if mark in markdown:
            markdown = markdown.replace(mark, make())
    return markdown
