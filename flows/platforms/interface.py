"""The one small interface every platform implements (:class:`Platform`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from flows.core.config.config import CampaignConfig
    from flows.core.config.money import Estimate
    from flows.core.decisions import Decision
    from flows.core.run.run_context import PlatformClient, Run, Session
    from flows.platforms.words import RouteWords

Step = Callable[["Run", int], dict[str, Any]]
Sender = Callable[["Run", "Decision"], tuple[str, str]]  # -> (ledger key or "", outcome shown to the reviewer)
# The review a cancel runs on what came in, handed down so a platform never imports a task kind.
Review = Callable[["Run", list[str]], None]
Groups = dict[tuple[int, int], list[dict[str, Any]]]  # (batch, unit index) -> the unit's items
GATE_BATCH = 0  # the gating test's batch number in the store (its status "qualified" once run); batches start at 1


class PlatformFacts(Protocol):
    """What a platform is, for a reader of the ledger: each platform's ``facts`` module, which loads nothing else."""

    NAME: str  # as given to --platform
    LABEL: str  # for people: "MTurk", "Prolific", "invite links"
    SENDS_DECISIONS: bool  # False: decisions are only recorded (nobody is paid)
    WHOLE_MINUTES: bool  # a unit's time is stated in whole minutes: a unit holds whole minutes of work
    WORDS: RouteWords  # how the route names its work in every view (HITs, studies, pages)


class Platform(PlatformFacts, Protocol):
    """Publish, collect, decide, block, reconcile after a crash, cancel, and price it all up front."""

    # Facts (each module sets them as constants), beside PlatformFacts'.
    TARGET_NOTE: str  # appended to the "target:" line
    PUBLISH_STEP: str  # the batch steps' names (progress, Prefect task runs)
    COLLECT_STEP: str
    SERVES_PAGES: bool  # participants open hitflow's task server
    INVITES_PEOPLE: bool  # `run --invite NAME` makes each a link (others find their people)
    REVIEW_CATEGORIES: tuple[str, ...]  # a rejection names one (empty: none)
    MIN_REASON_CHARS: int  # a reviewer's rejection message is at least this long
    REJECTION_GROUNDS: Mapping[str, str] | None  # rule -> category the route may reject on; None: any
    STATED_ON_PAGE: tuple[str, ...]  # grounds that hold only where the page states the level
    REVIEW_SENDERS: Mapping[str, Sender]  # a person's decision, by action
    SETTLED_UNPAID: tuple[str, ...]  # stored statuses the platform closed unpaid: no decision due
    EXTENDS_UNITS: bool  # adaptive overlap ([answers] min_judgements) can add work to a posted unit
    TOPS_UP_CAPTIONS: bool  # caption top-ups ([answers] top_up_rounds) run here

    def publish(self, run: Run, batch: int) -> dict[str, Any]: ...

    def extend_units(self, run: Run, batch: int, round_no: int, unit_ids: list[str]) -> dict[str, Any]:
        """One more judgement on each posted unit (once per round, ledgered), then its work collected."""

    def posted_units(self, run: Run, batch: int) -> list[tuple[str, list[str]]]:
        """(unit id, item ids) of the batch's units, the unit id as its stored work names it (``hit_id``)."""

    def collect(self, run: Run, batch: int) -> dict[str, Any]: ...

    def decide(self, run: Run, batch: int, decisions: list[dict[str, Any]]) -> dict[str, Any]:
        """Send the batch's unsent decisions (rows of ``decisions``), each once; record ``applied``."""

    def block_mode(self, cfg: CampaignConfig) -> str:
        """How a block is kept ("soft", "hard", "blocklist", "no more links"), as stored in ``blocks``."""

    def block(self, run: Run, worker_id: str, reason: str) -> dict[str, Any]:
        """Keep one worker out of every later batch (the caller ledgers it); the ledger result."""

    def reconcile(self, run: Run, dry_run: bool = False) -> dict[str, Any]:
        """Square the ledger with the platform after a crash: adopt what an unsettled call made."""

    def refresh(self, run: Run) -> int:
        """Store the platform's current status of the campaign's stored work; how many changed."""

    def cancel_plan(self, run: Run) -> dict[str, Any]: ...

    def cancel(self, run: Run, review_undecided: Review) -> dict[str, Any]:
        """Close what is open and review what came in by policy; safe twice. ``closed``: units this call closed."""

    def estimate(self, cfg: CampaignConfig, units_per_batch: dict[int, int],
                 client: PlatformClient = None) -> Estimate:
        """The campaign's cost with fees; ``client``: ask the platform's own calculator, if it has one."""

    def assignment_cost(self, cfg: CampaignConfig) -> Decimal:
        """One assignment's cost with the platform's fee; 0 when nobody is paid through the platform."""

    def gate_test_cost(self, cfg: CampaignConfig) -> Decimal:
        """The paid gating test's whole planned cost, every taker with fees (0 without one)."""

    def gate_test(self, cfg: CampaignConfig) -> Step | None:
        """The paid gating test run once before the first batch, None for none; ConfigError where unsupported."""

    def record_test_scores(self, run: Run) -> int:
        """Store the platform's own gating-test scores for the dataset's lineage; how many (0 if it scores none)."""

    def place_cost(self, cfg: CampaignConfig) -> str:
        """One place's cost in the budget's currency for ``hitflow status`` ("" when not priced per place)."""

    def time_lines(self, cfg: CampaignConfig, said: str, minutes: float, shortest: int) -> list[str]:
        """The dry run's pay and time lines, warning where a person's time is under ``shortest`` minutes."""

    def took_lines(self, cfg: CampaignConfig, median: float, tail: float) -> list[str]:
        """After a rehearsal: the plan's time and pay against its accepted work's ``median`` and ``tail`` minutes."""

    def dry_run(self, run: Run, groups: Groups, invitees: list[str]) -> dict[str, Any]:
        """The calls, pages and cost a real run would make, computed offline."""

    def check_target(self, target: str, endpoint_url: str, live: bool) -> None:
        """Refuse a closed, unknown or unconfirmed target before anything starts."""

    def open_session(self, target: str, endpoint_url: str, live: bool, seed: int | None, crowd: Path | None,
                     sim_state: Path | None, sim_start: float | None = None) -> AbstractContextManager[Session]: ...

    def is_live(self, target_kind: str, task_url: str, invitees: tuple[str, ...]) -> bool:
        """Whether real people are on the other end (a detaching run leaves their batch open)."""

    def rehearsal_site(self, run: Run) -> dict[str, Any]:
        """The in-process task server's settings when only the simulator's people open its pages; {} for none."""
