"""What a person's decision sends on the links route: nothing; the task server refuses the blocked."""

from __future__ import annotations

from flows.core.decisions import Decision
from flows.core.errors import InputFormatError
from flows.core.run.run_context import Run
from flows.platforms.decision_steps import Sender, blocked_mode, strike


def _links_bonus(run: Run, d: Decision) -> tuple[str, str]:
    raise InputFormatError("invite links pay nobody through a platform; a bonus cannot be sent from here")


LINKS_SENDERS: dict[str, Sender] = {
    "approve": lambda run, d: ("", "self-hosted"), "reject": lambda run, d: ("", "self-hosted"),
    "strike_caption": strike, "block": lambda run, d: ("", "no more links"),
    "unblock": lambda run, d: ("", "unblocked (links)" if blocked_mode(run, d) else "kept (not blocked)"),
    "bonus": _links_bonus}
