"""MTurk's qualification comparators, as the simulated marketplace applies them."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

INTEGER_COMPARATORS: dict[str, Callable[[int, int], bool]] = {
    "LessThan": operator.lt, "LessThanOrEqualTo": operator.le, "GreaterThan": operator.gt,
    "GreaterThanOrEqualTo": operator.ge, "EqualTo": operator.eq, "NotEqualTo": operator.ne}


def comparator(req: dict[str, Any]) -> Callable[[dict[str, Any] | None], bool]:
    """Whether a worker's qualification value (None: not held) meets one requirement."""
    comp = req["Comparator"]
    if comp == "Exists":
        return lambda value: value is not None
    if comp == "DoesNotExist":
        return lambda value: value is None
    wanted = {loc["Country"] for loc in req.get("LocaleValues", [])}
    targets = [int(v) for v in req.get("IntegerValues", [])]

    def ok(value: dict[str, Any] | None) -> bool:
        if value is None:
            return False
        if "LocaleValue" in value:
            return (value["LocaleValue"]["Country"] in wanted) == (comp in ("EqualTo", "In"))
        have = int(value.get("IntegerValue", 0))
        if comp == "In":
            return have in targets
        if comp == "NotIn":
            return have not in targets
        return bool(targets) and INTEGER_COMPARATORS[comp](have, targets[0])
    return ok
