"""Reading a config file safely, each schema complaint one line."""

from __future__ import annotations

import difflib
import re
import tomllib
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from flows.core.errors import ConfigError, InputFormatError, shown
from flows.core.inputs.text_files import read_text

MAX_CONFIG_BYTES = 1 << 20
_PLAIN_NAME = re.compile(r"[\w-]{1,60}")
EXAMPLE = "see config/vizwiz_captions.toml for an example"


def read_toml(path: Path) -> dict[str, Any]:
    """The parsed TOML; any unreadable, binary, non-UTF-8 or malformed file is a one-line ConfigError."""
    try:
        text = read_text(path, "the config file", MAX_CONFIG_BYTES)
    except InputFormatError as exc:
        if isinstance(exc.__cause__, FileNotFoundError):
            raise ConfigError(f"{path}: no such config file; {EXAMPLE}") from exc
        raise ConfigError(f"{exc}; {EXAMPLE}") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix the syntax and run again") from exc
    except RecursionError as exc:  # tomllib recurses once per nested array or inline table
        raise ConfigError(f"{path}: arrays or tables nest too deeply to read; a config needs a few levels "
                          "at most") from exc


def fail(path: Path, section: str, key: str, why: str) -> ConfigError:
    return ConfigError(f"{path}: [{section}].{key} {why}")


def _where(loc: tuple[int | str, ...]) -> str:
    if not loc:
        return "the file"
    names = [str(p) if _PLAIN_NAME.fullmatch(str(p)) else shown(str(p)) for p in loc]
    return f"[{names[0]}]" + "".join(f".{name}" for name in names[1:])


def _fields_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> dict[str, FieldInfo]:
    """The fields of the section that holds ``loc``'s last part."""
    current: Any = model
    for part in loc[:-1]:
        info = getattr(current, "model_fields", {}).get(part)
        if info is None:
            return {}
        current = info.annotation
        for candidate in getattr(current, "__args__", ()):  # Optional[Section]
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                current = candidate
    return dict(getattr(current, "model_fields", {}))


def nearest(typed: str, known: list[str], shape: str = "{}") -> str:
    """"did you mean `x`?" for the nearest of ``known`` (shown as ``shape``), else the list of them."""
    near = difflib.get_close_matches(typed[:100], known, n=1)
    return f"did you mean `{shape.format(near[0])}`?" if near else f"known: {', '.join(known)}"


def _unknown(model: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    section = len(loc) == 1
    hint = nearest(str(loc[-1]), list(_fields_at(model, loc)), "[{}]" if section else "{}")
    return f"is not a known {'section' if section else 'key'}; {hint}"


PAGES = Path(__file__).resolve().parents[3] / "hit_templates"  # [campaign] task = NAME: PAGES/NAME.html.j2


def nearest_task(typed: str) -> str:
    """The nearest task with a page (`captoin`: did you mean `caption`?), else the list."""
    pages = [p.name.removesuffix(".html.j2") for p in PAGES.glob("[!_]*.html.j2")]
    known = [*sorted(set(pages) - {"base"}), "custom"]  # base.html.j2 is the layout the pages extend, not a task
    return nearest(typed, known)


def _bounds(info: Any) -> dict[str, Any]:
    """ge/gt/le/lt of a field, wherever its annotations put them (Optional, Annotated, Field)."""
    found: dict[str, Any] = {}
    parts = [*getattr(info, "metadata", ()), *get_args(getattr(info, "annotation", None)), *get_args(info)]
    for item in parts:
        for bound in ("ge", "gt", "le", "lt"):
            if getattr(item, bound, None) is not None:
                found.setdefault(bound, getattr(item, bound))
        if item is not info and (getattr(item, "metadata", None) or get_args(item)):
            found = {**_bounds(item), **found}
    return found


def _range(b: dict[str, Any], whole: bool) -> str:
    lower = f"above {b['gt']}" if "gt" in b else (f"at least {b['ge']}" if "ge" in b else "")
    upper = f"below {b['lt']}" if "lt" in b else (f"at most {b['le']}" if "le" in b else "")
    if whole and b.get("ge") == 1:
        return "must be a positive integer" + (f" ({upper})" if upper else "")
    kind = "an integer" if whole else "a number"
    if "ge" in b and "le" in b:
        return f"must be {kind} between {b['ge']} and {b['le']}"
    return f"must be {kind} " + " and ".join(p for p in (lower, upper) if p)


def describe_error(path: Path, model: type[BaseModel], exc: ValidationError) -> str:
    """The first complaint of ``exc`` as one line naming file, section and key; an unknown key first."""
    errors = exc.errors(include_url=False)
    err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc, kind, value = tuple(err["loc"]), err["type"], err.get("input")
    msg = str(err["msg"]).removeprefix("Value error, ").replace("Input should be", "must be")
    msg = msg.replace("must be a valid integer", "must be an integer").replace("must be a valid ", "must be a ")
    info = _fields_at(model, loc).get(str(loc[-1]))
    if info is None and len(loc) >= 3:  # a value inside a table such as [policy].block_min_flags
        info = _fields_at(model, loc[:-1]).get(str(loc[-2]))
    if kind == "string_pattern_mismatch" and info is not None:
        msg = f"is not in the expected form: {info.description}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than") and info is not None:
        msg = _range(_bounds(info), "int" in str(info.annotation) and "float" not in str(info.annotation))
    if kind == "literal_error":
        msg = msg.replace("'", '"')
    if kind == "extra_forbidden":
        return f"{path}: {_where(loc)} {_unknown(model, loc)}"
    if kind == "missing":
        return f"{path}: {_where(loc)} is required"
    if kind in ("model_type", "model_attributes_type", "dict_type") and len(loc) == 1:
        return f"{path}: [{loc[0]}] must be a table (got {shown(value)})"
    if kind == "value_error" and len(loc) == 1:  # a section's check over several keys: "<key> <why>"
        return f"{path}: [{loc[0]}].{msg}"
    if "(got " in msg:
        return f"{path}: {_where(loc)} {msg}"
    return f"{path}: {_where(loc)} {msg} (got {shown(value)})"


def validate(path: Path, model: type[BaseModel], data: dict[str, Any]) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_error(path, model, exc)) from exc
