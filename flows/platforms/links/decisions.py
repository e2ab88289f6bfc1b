"""What a person's decision sends on the self-hosted links route: nothing to pay or refuse on a
platform; the task server refuses anyone in ``blocks``."""

from __future__ import annotations

from flows.core.decisions import Decision
from flows.core.errors import InputFormatError
from flows.core.run.run_context import Run
from flows.platforms.decision_steps import Sender, blocked_mode, strike


def _links_verdict(run: Run, d: Decision) -> tuple[str, str]:
    return "", "self-hosted"


def _links_block(run: Run, d: Decision) -> tuple[str, str]:
    return "", "no more links"


def _links_unblock(run: Run, d: Decision) -> tuple[str, str]:
    return "", "unblocked (links)" if blocked_mode(run, d) else "kept (not blocked)"


def _links_bonus(run: Run, d: Decision) -> tuple[str, str]:
    raise InputFormatError("invite links pay nobody through a platform; a bonus cannot be sent from here")


LINKS_SENDERS: dict[str, Sender] = {"approve": _links_verdict, "reject": _links_verdict, "strike_caption": strike,
                                    "block": _links_block, "unblock": _links_unblock, "bonus": _links_bonus}
