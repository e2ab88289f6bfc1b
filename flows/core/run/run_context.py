"""A campaign run's context, handed to every batch step and platform."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from flows.core.ledger.store import Store

if TYPE_CHECKING:  # the config is a type here: a command that only reads the ledger (status) loads none of it
    from botocore.client import BaseClient

    from flows.core.config.config import CampaignConfig
    from flows.platforms.prolific.adapter import ProlificClient

# boto3's MTurk client or Prolific's httpx client; None only in a dry run
PlatformClient = Union["BaseClient", "ProlificClient", None]

# The kind's page for a unit's item rows, handed down so a platform never imports a task kind.
PageRenderer = Callable[["CampaignConfig", list[dict[str, Any]]], str]


@dataclass
class Target:
    """Where a run's platform calls go: the simulator, an MTurk-compatible endpoint, or Prolific."""

    kind: str  # "sim" or "endpoint"
    endpoint_url: str
    state: str = ""  # an embedded simulator's state file (flows/sim/service/market_store.py)

    @property
    def label(self) -> str:
        if self.state:
            return f"simulator (embedded, state {self.state})"
        kind = "simulator" if self.kind == "sim" else "MTurk-compatible endpoint"
        return f"{kind} at {self.endpoint_url}"


@dataclass
class Session:
    """An open platform: where its calls go, its client, how to wait, and (simulator) its truth."""

    target: Target
    client: PlatformClient
    wait: Callable[[float], None]
    truth: Callable[[], list[dict[str, Any]]] | None
    clock: Callable[[], float] = time.time  # the platform's clock: wall time, or the simulator's


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
    platform: str = "mturk"  # a name flows.platforms.registry.platform_for knows: mturk, prolific or links
    clock: Callable[[], float] = time.time  # the platform's clock (the simulator's virtual one)
    page: PageRenderer | None = None  # how the task kind renders a unit's page (see PageRenderer)
    # what the task kind does with a batch's work as it comes in (stops workers failing their first controls)
    new_work: Callable[[Run, int], None] | None = None
