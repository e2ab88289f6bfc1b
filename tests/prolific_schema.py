"""Prolific's published schema as a judge: a reply is parsed by the pyrolific model for its route
(a client generated from Prolific's OpenAPI), then checked strictly against that model's declared
fields, because the generated ``from_dict`` is lenient (it casts a bad date-time through, keeps
unknown keys, never checks a string is a string). Strict means: every required field present,
null only where the schema allows it, each declared field of its declared type, enums within
their values, date-times ISO 8601 with a zone, nested objects and list items checked the same way.
Keys the schema does not declare are allowed (OpenAPI objects are open by default).
"""

from __future__ import annotations

import enum
import re
from typing import Any

import attrs
import pytest
from dateutil.parser import isoparse

models = pytest.importorskip("pyrolific.models", reason="pyrolific (installed by `make .venv/.installed`) "
                             "is the judge of the Prolific contract suite")
SCHEMA_VERSION = "pyrolific 1.5.1 (generated from Prolific's public OpenAPI, docs.prolific.com)"
NOT_TYPES = {"Union", "Unset", "None", "NoneType", "List", "Any", "Optional", "typing", "pyrolific",
             "types", "models"}
ZONE = re.compile(r"(Z|[+-]\d\d:?\d\d)$")
ERROR_FIELDS = {"status": int, "error_code": int, "title": str, "detail": (str, dict, list)}


def differences(model: type, reply: Any, where: str = "$") -> list[str]:
    """What in ``reply`` the schema's ``model`` does not allow (empty: none); ``from_dict`` first."""
    if not isinstance(reply, dict):
        return [f"{where}: expected an object, got {type(reply).__name__}"]
    try:
        model.from_dict(reply)
    except Exception as exc:  # the generated parser's own refusal is a difference too
        return [f"{where}: {model.__name__}.from_dict failed: {type(exc).__name__}: {exc}"]
    found: list[str] = []
    for field in attrs.fields(model):
        if field.name == "additional_properties":
            continue
        key = "_" + field.name[len("field_"):] if field.name.startswith("field_") else field.name
        spec = _spec(field.type)
        if key not in reply:
            if field.default is attrs.NOTHING:
                found.append(f"{where}.{key}: required by {model.__name__}, missing")
            continue
        found += _check_value(spec, reply[key], f"{where}.{key}")
    return found


def _spec(tp: Any) -> tuple[bool, bool, list[str]]:
    """(nullable, a list, the names of the allowed types) of an attrs field's annotation."""
    text = tp.__name__ if isinstance(tp, type) else str(tp)
    text = text.replace("datetime.datetime", "datetime")
    names = re.findall(r"[A-Za-z_][A-Za-z_0-9]*", re.sub(r"\b[a-z_]+\.", "", text))
    kinds = [n for n in names if n not in NOT_TYPES]
    return ("None" in names or "NoneType" in names), "List" in names, kinds


def _check_value(spec: tuple[bool, bool, list[str]], value: Any, where: str) -> list[str]:
    nullable, many, kinds = spec
    if value is None:
        return [] if nullable else [f"{where}: null where the schema does not allow it"]
    if many:
        if not isinstance(value, list):
            return [f"{where}: expected a list, got {type(value).__name__}"]
        return [d for i, item in enumerate(value) for d in _one_of(kinds, item, f"{where}[{i}]")]
    return _one_of(kinds, value, where)


def _one_of(kinds: list[str], value: Any, where: str) -> list[str]:
    if not kinds:
        return []
    tries = [_as(kind, value, where) for kind in kinds]
    return [] if any(not t for t in tries) else tries[0]


def _as(kind: str, value: Any, where: str) -> list[str]:
    plain = {"str": str, "bool": bool, "float": (int, float), "int": int, "Dict": dict}
    if kind in plain:
        ok = isinstance(value, plain[kind]) and not (kind in ("int", "float") and isinstance(value, bool))  # type: ignore[arg-type]
        return [] if ok else [f"{where}: expected {kind}, got {value!r}"[:200]]
    if kind == "datetime":
        return _date_time(value, where)
    target = getattr(models, kind, None)
    if isinstance(target, type) and issubclass(target, enum.Enum):
        allowed = {e.value for e in target}
        return [] if value in allowed else [f"{where}: {value!r} is not one of {target.__name__}'s {sorted(allowed)}"]
    if isinstance(target, type) and attrs.has(target):
        return differences(target, value, where)
    return []  # a type the generator left open


def _date_time(value: Any, where: str) -> list[str]:
    try:
        ok = isinstance(value, str) and "T" in value and bool(ZONE.search(value)) and isoparse(value) is not None
    except ValueError:
        ok = False
    return [] if ok else [f"{where}: {value!r} is not an ISO 8601 date-time with a zone"]


def error_differences(reply: Any) -> list[str]:
    """Prolific's error reply: ``{"error": {"status", "error_code", "title", "detail", ...}}``."""
    err = reply.get("error") if isinstance(reply, dict) else None
    if not isinstance(err, dict):
        return [f"error reply without an 'error' object: {str(reply)[:120]}"]
    return [f"error.{k}: expected {t}" for k, t in ERROR_FIELDS.items() if not isinstance(err.get(k), t)]
