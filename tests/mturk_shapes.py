"""A strict check of MTurk JSON replies against botocore's service model (the API's published shapes).

botocore's own parser is lenient: it drops members the model does not know, passes nulls and
accepts a string where a number belongs. This walks the raw JSON against the output shape and
names every difference: unknown or missing required members, nulls, JSON types, enum values,
string patterns and lengths, numeric ranges, and timestamps (epoch seconds in the JSON protocol).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import botocore.session
from botocore.model import ServiceModel, Shape

ERROR_MEMBERS = {"__type"}  # the JSON 1.1 protocol's error name, beside the error shape's members
# AWS's service-wide throttling error, which MTurk answers though its model lists only RequestError
# and ServiceFault: "ThrottlingException ... when calling the CreateHITWithHITType operation: Rate
# exceeded" (allenai/amti pull request 12, 2019). Its members are AWS's lower-case "message".
THROTTLING = {"__type": "ThrottlingException", "message": "Rate exceeded"}


@cache
def mturk_model() -> ServiceModel:
    return botocore.session.get_session().get_service_model("mturk")


def reply_problems(operation: str, status: int, body: Any) -> list[str]:
    """Every way ``body`` (the parsed JSON of a reply with HTTP ``status``) breaks the model."""
    model = mturk_model()
    if status == 200:
        shape = model.operation_model(operation).output_shape
        return shape_problems(shape, body, operation) if shape is not None else (
            [] if body == {} else [f"{operation}: no output is modelled, got {body!r}"])
    if body == THROTTLING and status == 400:
        return []
    if not isinstance(body, dict) or body.get("__type") not in {e.name for e in model.error_shapes}:
        return [f"{operation}: error reply is not one of {[e.name for e in model.error_shapes]}: {body!r}"]
    error_shape = model.shape_for(body["__type"])
    rest = {k: v for k, v in body.items() if k not in ERROR_MEMBERS}
    problems = shape_problems(error_shape, rest, f"{operation}!{body['__type']}")
    return problems + [f"{operation}: error without a TurkErrorCode" for _ in [0] if not rest.get("TurkErrorCode")]


def shape_problems(shape: Shape, value: Any, path: str) -> list[str]:
    if value is None:
        return [f"{path}: null where the model has a {shape.type_name} ({shape.name})"]
    check = CHECKS.get(shape.type_name)
    if check is None:
        return [f"{path}: no check for the model type {shape.type_name}"]
    return check(shape, value, path)


def _structure(shape: Any, value: Any, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected an object ({shape.name}), got {type(value).__name__}"]
    problems = [f"{path}.{k}: not a member of {shape.name}" for k in value if k not in shape.members]
    problems += [f"{path}.{k}: required member missing" for k in shape.required_members if k not in value]
    for name, member in shape.members.items():
        if name in value:
            problems += shape_problems(member, value[name], f"{path}.{name}")
    return problems


def _list(shape: Any, value: Any, path: str) -> list[str]:
    if not isinstance(value, list):
        return [f"{path}: expected a list ({shape.name}), got {type(value).__name__}"]
    problems = _bounds(shape, len(value), path, "items")
    for i, item in enumerate(value):
        problems += shape_problems(shape.member, item, f"{path}[{i}]")
    return problems


def _map(shape: Any, value: Any, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected an object ({shape.name}), got {type(value).__name__}"]
    problems = []
    for k, v in value.items():
        problems += shape_problems(shape.key, k, f"{path}<key>") + shape_problems(shape.value, v, f"{path}[{k}]")
    return problems


def _string(shape: Shape, value: Any, path: str) -> list[str]:
    if not isinstance(value, str):
        return [f"{path}: expected a string ({shape.name}), got {type(value).__name__} {value!r}"]
    enum = getattr(shape, "enum", None)
    if enum and value not in enum:
        return [f"{path}: {value!r} is not one of {shape.name}'s values {enum}"]
    pattern = shape.metadata.get("pattern")
    if pattern and not re.search(pattern, value):
        return [f"{path}: {value[:60]!r} does not match {shape.name}'s pattern {pattern}"]
    return _bounds(shape, len(value), path, "characters")


def _integer(shape: Shape, value: Any, path: str) -> list[str]:
    if isinstance(value, bool) or not isinstance(value, int):
        return [f"{path}: expected an integer ({shape.name}), got {type(value).__name__} {value!r}"]
    return _bounds(shape, value, path, "")


def _boolean(shape: Shape, value: Any, path: str) -> list[str]:
    return [] if isinstance(value, bool) else [f"{path}: expected a boolean, got {type(value).__name__} {value!r}"]


def _number(shape: Shape, value: Any, path: str) -> list[str]:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return [] if ok else [f"{path}: expected a number ({shape.name}), got {type(value).__name__} {value!r}"]


def _timestamp(shape: Shape, value: Any, path: str) -> list[str]:
    """JSON 1.1 sends a timestamp as epoch seconds (a number); a plausible one, since 2005 (MTurk's start)."""
    problems = _number(shape, value, path)
    if not problems and not 1.1e9 <= value <= 4.1e9:
        problems.append(f"{path}: {value!r} is not a plausible epoch-seconds timestamp")
    return problems


def _bounds(shape: Shape, size: int, path: str, unit: str) -> list[str]:
    low, high = shape.metadata.get("min"), shape.metadata.get("max")
    if (low is not None and size < low) or (high is not None and size > high):
        return [f"{path}: {size} {unit} is outside {shape.name}'s range {low}..{high}".replace("  ", " ")]
    return []


CHECKS = {"structure": _structure, "list": _list, "map": _map, "string": _string, "integer": _integer,
          "long": _integer, "boolean": _boolean, "double": _number, "float": _number, "timestamp": _timestamp}
