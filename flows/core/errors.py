"""Domain errors. The CLI turns each into one line and an exit code; none carries secrets."""

from __future__ import annotations

from typing import Any


class HitflowError(Exception):
    """Base: a message that says what went wrong and what to do next."""

    exit_code = 1
    waits_for_person = False  # a planned stop for a person (review, a held batch): no "error:" prefix
    lists_lines = False  # a message that is a list, one problem a line (a page import); else printed as one line


class ConfigError(HitflowError):
    exit_code = 2


class OtherMarketplaceError(ConfigError):
    """A campaign resumed on a marketplace other than the one it posted on (its HITs unknown there)."""


class InputFormatError(HitflowError):
    exit_code = 3


class PlatformError(HitflowError):
    exit_code = 4


class ClosedEndpointError(PlatformError):
    exit_code = 5


class BudgetError(HitflowError):
    exit_code = 6


class CampaignBusyError(HitflowError):
    exit_code = 7


class AnswerConflictError(PlatformError):
    """The platform listed answers the ledger could not keep apart (reused ids): stop before deciding."""


class IncompleteError(HitflowError):
    """The crowd did not deliver the planned work; ``[campaign] accept_partial = true`` accepts it."""

    exit_code = 8


class BatchOpen(HitflowError):
    """A live batch is still open: the run leaves and a later run collects what came in. Not a failure."""

    exit_code = 9

    def __init__(self, message: str, batch: int = 0, filled: int = 0, places: int = 0, seconds_left: float = 0.0):
        super().__init__(message)
        self.batch, self.filled, self.places, self.seconds_left = batch, filled, places, seconds_left


class Interrupted(HitflowError):
    """Ctrl-C: the message says where the run stopped and how to resume it."""

    exit_code = 130


class BatchHeld(HitflowError):
    """One rule would reject or block more than ``[policy] hold_share`` of a batch: it waits for a person."""

    exit_code = 10
    waits_for_person = True

    def __init__(self, message: str, batch: int = 0):
        super().__init__(message)
        self.batch = batch


def shown(value: Any, limit: int = 60) -> str:
    """A value as it may appear in a one-line message: repr (escapes newlines), shortened."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...'"
