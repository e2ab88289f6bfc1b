"""A request's members checked against botocore's input shape for the operation before it runs."""

from __future__ import annotations

from functools import cache
from typing import Any

import botocore.session
from botocore.model import ServiceModel, Shape
from botocore.validate import ParamValidator

from flows.sim.mturk.validation import bad


@cache
def _service_model() -> ServiceModel:
    # get_session() is a new session with an empty loader: ~15 ms of CPU parsing the model's JSON each time
    return botocore.session.get_session().get_service_model("mturk")


@cache
def _input_shape(operation: str) -> Shape | None:
    model = _service_model()
    return model.operation_model(operation).input_shape if operation in model.operation_names else None


def check_input(operation: str, params: dict[str, Any]) -> None:
    shape = _input_shape(operation)
    if shape is None:
        return
    try:
        report = ParamValidator().validate(params, shape)
    except (RuntimeError, ValueError, OverflowError) as exc:  # botocore's timestamp parser on e.g. 1e308
        raise bad(f"A member's value cannot be read: {exc}") from exc
    if report.has_errors():
        problems = [line for line in report.generate_report().splitlines()
                    if line and not line.startswith("Unknown parameter")]
        if problems:
            raise bad("; ".join(problems).replace("<class '", "").replace("'>", ""))
