"""Self-hosted invite links (``--platform links``): decisions only recorded."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from flows.core.config.config import CampaignConfig
from flows.core.config.money import Estimate
from flows.core.decisions import Decision
from flows.core.errors import ConfigError, InputFormatError
from flows.core.run.run_context import PlatformClient, Run, Session, Target
from flows.platforms import targets
from flows.platforms.decision_steps import Sender, blocked_mode, strike
from flows.platforms.interface import Groups, Review
from flows.platforms.links import batches as study_links
from flows.platforms.links import extend as links_extend
from flows.platforms.links import rehearsal
from flows.platforms.links.facts import LABEL, NAME, SENDS_DECISIONS, WHOLE_MINUTES, WORDS  # noqa: F401  (the protocol's facts)
from flows.platforms.operation_steps import UNDECIDED, finish_cancel
from flows.platforms.plan_checks import live_plan, open_for

TARGET_NOTE = " (invite links)"
PUBLISH_STEP = "open invite links"
COLLECT_STEP = "collect responses"
SERVES_PAGES = True
INVITES_PEOPLE = True
REVIEW_CATEGORIES: tuple[str, ...] = ()
MIN_REASON_CHARS = 1
REJECTION_GROUNDS: dict[str, str] | None = None  # every reject rule of the policy rejects
STATED_ON_PAGE: tuple[str, ...] = ()


def _no_bonus(run: Run, d: Decision) -> tuple[str, str]:
    raise InputFormatError("invite links pay nobody through a platform; a bonus cannot be sent from here")


# What a person's decision sends: nothing; the task server refuses the blocked.
REVIEW_SENDERS: dict[str, Sender] = {
    "approve": lambda run, d: ("", "self-hosted"), "reject": lambda run, d: ("", "self-hosted"),
    "strike_caption": strike, "block": lambda run, d: ("", "no more links"),
    "unblock": lambda run, d: ("", "unblocked (links)" if blocked_mode(run, d) else "kept (not blocked)"),
    "bonus": _no_bonus}
BLOCK_MODE = "no more links"
EXTENDS_UNITS = True  # the task server hands uncertain units to further invitees (extend.py)
TOPS_UP_CAPTIONS = True  # a short image's unit goes to further invitees, as for adaptive overlap
SETTLED_UNPAID: tuple[str, ...] = ()  # every stored response awaits a (recorded) decision
NOTHING_RECONCILED: dict[str, Any] = {"adopted": [], "expired_strays": [], "fetched": 0, "refreshed": 0}
# A real run refuses what its dry run lists here (gate_test).
NO_GATE_TEST = ("[gating] qualification_key: the qualification test runs as an MTurk HIT; invite links do not "
                "run it (invite the people you trust, or drop the key for this route)")

publish = study_links.open_links
extend_units = links_extend.extend_units
posted_units = links_extend.posted_units
collect = study_links.collect_links
check_target = targets.check_target
rehearsal_site = rehearsal.rehearsal_site  # its crowd on the simulator's clock and seed


@contextmanager
def open_session(target: str, endpoint_url: str, live: bool, seed: int | None, crowd: Path | None,
                 sim_state: Path | None, sim_start: float | None = None) -> Iterator[Session]:
    """The simulator (its crowd is who opens the links), or an endpoint confirmed with ``live``."""
    targets.check_target(target, endpoint_url, live)
    if target == "sim":
        with targets.simulator(endpoint_url, seed, crowd, sim_state, sim_start) as t:
            if endpoint_url:  # a served simulator's clock runs by itself (`hitflow sim serve --speed`)
                yield Session(t, None, targets.sim_wait(t), lambda: targets.sim_ground_truth(t), targets.sim_clock(t))
                return
            # An embedded simulator's clock moves only while a run waits; the people here answer on the wall clock.
            yield Session(t, None, time.sleep, lambda: targets.sim_ground_truth(t), time.time)
        return
    yield Session(Target("endpoint", endpoint_url), None, time.sleep, None)


def dry_run(run: Run, groups: Groups, invitees: list[str]) -> dict[str, Any]:
    """Who gets a link, and each round's units and responses; nobody is paid."""
    cfg, problems = run.cfg, list[str]()
    who = ", ".join(invitees) if invitees else "the names given with --invite (none yet)"
    calls = [f"invite links to {len(invitees)} people ({who}), signed with HITFLOW_TASK_SECRET or the ledger's "
             "secret, written to invites.csv; served by the running `hitflow serve` (--task-url)"]
    for batch in sorted({b for b, _ in groups}):
        units = sum(1 for b, _ in groups if b == batch)
        calls.append(f"batch {batch}: {units} unit(s) x {cfg.assignments_per_image} responses = "
                     f"{units * cfg.assignments_per_image} responses wanted; open until full or {open_for(cfg)} "
                     "have passed, then QC, decisions and blocks before the next batch opens to the same links")
    if cfg.gating.qualification_key is not None:
        problems.append(NO_GATE_TEST)
    if len(invitees) < cfg.assignments_per_image:
        problems.append(f"{len(invitees)} invitee(s) cannot give each unit {cfg.assignments_per_image} different "
                        "people's responses; invite more with --invite NAME")
    plan = live_plan(run, groups, calls, problems, Estimate(cfg.budget_currency), "invite links", "invite rounds")
    return {**plan, "estimate": "no platform costs: invitees are not paid through a platform", "verb": "plan:"}


def decide(run: Run, batch: int, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """Recorded, not sent: there is nobody to pay or refuse on a platform."""
    with run.store.transaction():
        run.store.executemany("UPDATE decisions SET applied = 'self-hosted' WHERE campaign = ? AND assignment_id = ?",
                              [(run.cfg.name, d["assignment_id"]) for d in decisions])
    return {}


def block_mode(cfg: CampaignConfig) -> str:
    return BLOCK_MODE


def block(run: Run, worker_id: str, reason: str) -> dict[str, Any]:
    return {"mode": BLOCK_MODE}  # the task server refuses anyone in the blocks table


def reconcile(run: Run, dry_run: bool = False) -> dict[str, Any]:
    """Nothing to adopt: links are signed from the ledger's secret and every response was stored first."""
    return dict(NOTHING_RECONCILED)


def refresh(run: Run) -> int:
    return 0  # the ledger is the only record


def cancel_plan(run: Run) -> dict[str, Any]:
    undecided = run.store.rows(UNDECIDED, [run.cfg.name])
    run.progress(f"cancel (dry run): would review {undecided[0]['n']} stored response(s); nothing is open on a "
                 "platform (stop `hitflow serve` to close the links)")
    return {"would_review": undecided[0]["n"]}


def cancel(run: Run, review_undecided: Review) -> dict[str, Any]:
    """Review what came in by policy and mark the campaign cancelled (stopping `hitflow serve` closes the links)."""
    errors: list[str] = []
    review_undecided(run, errors)
    finish_cancel(run, errors, "cancel: responses so far reviewed; stop `hitflow serve` to close the links")
    return {"closed": 0}  # nothing open on a platform


def estimate(cfg: CampaignConfig, units_per_batch: dict[int, int], client: PlatformClient = None) -> Estimate:
    return Estimate(cfg.budget_currency)  # invited annotators: nobody is paid through a platform


def place_cost(cfg: CampaignConfig) -> str:
    return ""


def time_lines(cfg: CampaignConfig, said: str, minutes: float, shortest: int) -> list[str]:
    return [said]  # invited people are not paid by the unit nor timed out by a platform


def took_lines(cfg: CampaignConfig, median: float, tail: float) -> list[str]:
    return []  # nothing to hold the times against: no pay by the unit, no time limit


def assignment_cost(cfg: CampaignConfig) -> Decimal:
    return Decimal("0.00")  # invited annotators: nobody is paid through a platform


def gate_test_cost(cfg: CampaignConfig) -> Decimal:
    return Decimal("0.00")


def gate_test(cfg: CampaignConfig) -> None:
    """No test runs here: a campaign gated on one is refused before anything is planned (as its dry run says)."""
    if cfg.gating.qualification_key is not None:
        raise ConfigError(f"{cfg.path}: {NO_GATE_TEST}; nothing was posted")


def record_test_scores(run: Run) -> int:
    return 0  # no platform scores a test here


def is_live(target_kind: str, task_url: str, invitees: tuple[str, ...]) -> bool:
    """Named people, or a task server that outlives the run (the simulator's crowd opens neither)."""
    return target_kind != "sim" or bool(task_url or invitees)

