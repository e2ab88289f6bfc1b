"""What every platform's cancel shares: one failed call never stops the rest, and the ending."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flows.core.errors import PlatformError
from flows.core.run_context import Run


def each_call(errors: list[str], what: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``; a platform error is noted in ``errors`` (unless ``what`` is empty) and counts as 0."""
    try:
        return fn(*args)
    except PlatformError as exc:
        if what:
            errors.append(f"{what}: {exc}")
        return 0


def finish_cancel(run: Run, errors: list[str], line: str) -> None:
    """The campaign is cancelled; a failed call is reported after everything else was tried."""
    run.store.table("campaigns").update(run.cfg.name, {"status": "cancelled"})
    run.progress(line)
    if errors:
        raise PlatformError(f"cancel did what it could but {len(errors)} call(s) failed (first: {errors[0]}); "
                            "run `hitflow cancel` again, it is safe to repeat")
