"""A campaign run's context: what every batch step and every platform is handed.

Kept at the top of ``flows/`` so that the platforms (``flows.platforms``) and the task types
(``flows.campaigns``, ``flows.studies``, ``flows.custom``) share it without importing each other.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from flows.core.config import CampaignConfig
from flows.core.store import Store

if TYPE_CHECKING:
    from botocore.client import BaseClient

    from flows.platforms.mturk.adapter import Target
    from flows.platforms.prolific.adapter import ProlificClient

# boto3's MTurk client (MTurk, and the links route's simulator session) or Prolific's httpx client;
# None only in a dry run, which talks to no platform.
PlatformClient = Union["BaseClient", "ProlificClient", None]


@dataclass
class Run:
    """Everything a batch step needs: config, ledger, platform client, and how to wait."""

    cfg: CampaignConfig
    store: Store
    client: PlatformClient
    target: Target
    progress: Callable[[str], None] = print
    wait: Callable[[float], None] = time.sleep
    notes: dict[str, Any] = field(default_factory=dict)
    platform: str = "mturk"  # a name flows.platforms.platform_for knows: mturk, prolific or links
    clock: Callable[[], float] = time.time  # the platform's clock (the simulator's virtual one)
