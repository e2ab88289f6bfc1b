"""Who works: the platforms a campaign posts to, behind one small interface.

Owns the :class:`~flows.platforms.interface.Platform` protocol and its three implementations
(``mturk_platform``, ``prolific_platform``, ``links_platform``), picked by name with
:func:`platform_for`; the MTurk adapter (boto3, 2017-01-17 API) with its question/answer XML,
qualification XML and fee table; the Prolific adapter (httpx) and Prolific's batch steps; the
choice of target (the simulator by default); the decision senders per platform; the readers of
platforms' results files.

May import: the core modules at the top of ``flows/`` (store, config, errors, run context, ledger
calls), ``qc`` and ``postprocess``; ``flows.taskserver`` for the links and completion codes a
Prolific study carries; the batch steps a platform's implementation points at (``flows.campaigns``,
``flows.studies``), and ``flows.driver`` (the operations' shared steps).

The simulator is never imported at module level: only ``targets`` opens one, inside a function.
This ``__init__`` imports the implementations only inside ``platform_for``, so importing the
package never loads a campaign step (no import cycle).
"""

from __future__ import annotations

from flows.core.errors import ConfigError
from flows.platforms.interface import Platform

PLATFORMS = ("mturk", "prolific", "links")


def platform_for(name: str) -> Platform:
    """The platform called ``name`` (``--platform``); an unknown name is a config error."""
    if name == "mturk":
        from flows.platforms.mturk import platform as mturk_platform

        return mturk_platform
    if name == "prolific":
        from flows.platforms.prolific import platform as prolific_platform

        return prolific_platform
    if name == "links":
        from flows.platforms.links import platform as links_platform

        return links_platform
    raise ConfigError(f"unknown platform {name!r}; use one of {', '.join(PLATFORMS)}")
